import { createHmac, randomBytes } from 'node:crypto'
import type { InquiryRow, WebhookRow } from '../db/schema.js'
import { nodeHttp } from '../http/node-http.js'
import { propertyOf } from '../validation/guards.js'
import { inquiryPayload } from './payload.js'
import { literalRefusal, RefusedTarget, type WebhookNetwork } from './webhook-network.js'

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
  network: WebhookNetwork,
  webhook: Pick<WebhookRow, 'url' | 'secret'>,
  inquiry: InquiryRow,
  deliveryId: number,
  signedAt: number = Date.now(),
): Promise<void> {
  await postEvent(
    network,
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
  network: WebhookNetwork,
  webhook: Pick<WebhookRow, 'url' | 'secret' | 'org_id'>,
  signedAt: number = Date.now(),
): Promise<void> {
  await postEvent(
    network,
    webhook,
    'ping',
    'test',
    { event: 'ping', delivery_id: 'test', organization_id: webhook.org_id },
    signedAt,
  )
}

async function postEvent(
  network: WebhookNetwork,
  webhook: Pick<WebhookRow, 'url' | 'secret'>,
  event: string,
  deliveryId: string,
  payload: Record<string, unknown>,
  signedAt: number,
): Promise<void> {
  const body = JSON.stringify(payload)
  const status = await post(network, webhook.url, body, {
    'content-type': 'application/json',
    'user-agent': 'expertdir-webhook/1',
    'x-expertdir-event': event,
    'x-expertdir-delivery': deliveryId,
    [SIGNATURE_HEADER]: signatureHeader(webhook.secret, body, Math.floor(signedAt / 1000)),
  })
  if (status < 200 || status > 299) throw new DeliveryError(`webhook answered HTTP ${status}`)
}

/**
 * One POST over its own connection, made to an address the network policy checked (the socket's
 * lookup, or the literal checked here); the answer's status only: its headers and body are not read,
 * and a redirect is not followed (it would send the signed body somewhere the organization did not
 * configure).
 */
function post(
  network: WebhookNetwork,
  target: string,
  body: string,
  headers: Record<string, string>,
): Promise<number> {
  let url: URL
  try {
    url = new URL(target)
  } catch {
    return Promise.reject(new DeliveryError('webhook URL is not valid'))
  }
  const refused = network.guarded ? literalRefusal(network, url) : undefined
  if (refused) return Promise.reject(new DeliveryError(`webhook refused: ${refused}`))
  const signal = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS)
  // node:https (and TLS with it) loads with the first https webhook, not with every process.
  const send = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : nodeHttp.request
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        agent: false,
        signal,
        ...(network.guarded ? { lookup: network.lookup } : {}),
      },
      (response) => {
        resolve(response.statusCode ?? 0)
        response.destroy()
      },
    )
    request.on('error', (error) => reject(new DeliveryError(failure(error, signal.aborted))))
    request.end(body)
  })
}

const CONNECTION_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ECONNABORTED: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  EHOSTDOWN: 'host unreachable',
  ENETDOWN: 'host unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EAI_NONAME: 'host not found',
  EAI_FAIL: 'host not found',
  EAI_NODATA: 'host not found',
  // OpenSSL's failures of the handshake (a peer that does not speak TLS, a protocol it refuses).
  EPROTO: 'TLS handshake failed',
}

/**
 * A failure in our words, from a short closed list: never the peer's (an error text, a TLS alert, a
 * body), so the delivery log tells an admin what to fix without reporting what answers inside a network.
 */
function failure(error: unknown, timedOut: boolean): string {
  if (timedOut) return `webhook timed out after ${WEBHOOK_TIMEOUT_MS} ms`
  if (error instanceof RefusedTarget) return `webhook refused: ${error.message}`
  const code = String(propertyOf(error, 'code') ?? '')
  const known = CONNECTION_FAILURES[code]
  if (known) return `webhook request failed: ${known}`
  if (/CERT|ALTNAME|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return 'webhook request failed: TLS certificate not accepted'
  if (/^ERR_(TLS|SSL)/.test(code)) return 'webhook request failed: TLS handshake failed'
  if (code.startsWith('HPE_')) return 'webhook request failed: invalid HTTP response'
  return 'webhook request failed'
}
