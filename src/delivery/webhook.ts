import { createHmac, randomBytes } from 'node:crypto'
import type { InquiryRow, WebhookRow } from '../db/schema.js'
import { propertyOf } from '../validation/guards.js'
import { inquiryPayload } from './payload.js'

/** The header that carries the signature: `t=<unix seconds>,v1=<hex HMAC-SHA256>` (docs/webhooks.md). */
export const SIGNATURE_HEADER = 'x-expertdir-signature'
export const WEBHOOK_TIMEOUT_MS = 10_000

/** A new signing secret: `whsec_` and 32 random bytes, base64url. The whole string is the HMAC key. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}

/** `t=<seconds>,v1=<hex HMAC-SHA256(secret, "<seconds>.<raw body>")>` */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')
  return `t=${unixSeconds},v1=${digest}`
}

/** A failed delivery attempt; the message is stored and logged, so it never holds the URL or secret. */
export class DeliveryError extends Error {}

/** Only http(s) URLs without credentials can be webhook targets. */
export function isWebhookUrl(value: string): boolean {
  try {
    const url = new URL(value)
    // Credentials in the URL would be stored and logged as part of it; fetch refuses them anyway.
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.hostname !== '' &&
      url.username === '' &&
      url.password === ''
    )
  } catch {
    return false
  }
}

/** POSTs the signed `inquiry.created` event; any 2xx is success, anything else a DeliveryError. */
export async function sendWebhook(
  webhook: Pick<WebhookRow, 'url' | 'secret'>,
  inquiry: InquiryRow,
  deliveryId: number,
  signedAt: number = Date.now(),
): Promise<void> {
  await postEvent(
    webhook,
    'inquiry.created',
    String(deliveryId),
    {
      event: 'inquiry.created',
      delivery_id: deliveryId,
      organization_id: inquiry.org_id,
      inquiry: inquiryPayload(inquiry),
    },
    signedAt,
  )
}

/**
 * POSTs a signed `ping` event (the admin API's test delivery): the same headers, signature and rules
 * as a real delivery, with `X-Expertdir-Delivery: test`. Nothing is stored.
 */
export async function sendTestEvent(
  webhook: Pick<WebhookRow, 'url' | 'secret' | 'org_id'>,
  signedAt: number = Date.now(),
): Promise<void> {
  await postEvent(
    webhook,
    'ping',
    'test',
    { event: 'ping', delivery_id: 'test', organization_id: webhook.org_id },
    signedAt,
  )
}

async function postEvent(
  webhook: Pick<WebhookRow, 'url' | 'secret'>,
  event: string,
  deliveryId: string,
  payload: Record<string, unknown>,
  signedAt: number,
): Promise<void> {
  const body = JSON.stringify(payload)
  let response: Response
  try {
    response = await fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'expertdir-webhook/1',
        'x-expertdir-event': event,
        'x-expertdir-delivery': deliveryId,
        [SIGNATURE_HEADER]: signatureHeader(webhook.secret, body, Math.floor(signedAt / 1000)),
      },
      body,
      // A redirect would send the signed body somewhere the organization did not configure.
      redirect: 'manual',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    })
  } catch (error) {
    const cause = propertyOf(error, 'cause')
    const name = propertyOf(error, 'name')
    if (name === 'TimeoutError') throw new DeliveryError(`webhook timed out after ${WEBHOOK_TIMEOUT_MS} ms`)
    const reason = propertyOf(cause, 'code') ?? propertyOf(cause, 'message') ?? name
    throw new DeliveryError(`webhook request failed: ${String(reason)}`)
  }
  await response.body?.cancel().catch(() => {})
  if (response.status < 200 || response.status > 299) {
    throw new DeliveryError(`webhook answered HTTP ${response.status}`)
  }
}
