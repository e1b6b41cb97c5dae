import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import type { DeliveryStatus } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { ApiError, notFound, validationError } from '../errors.js'
import { idCursor } from '../http/cursor.js'
import { deleteWebhook, findWebhook, saveWebhook } from './repository.js'
import { DeliveryError, generateWebhookSecret, isWebhookUrl, sendTestEvent } from './webhook.js'
import { targetRefusal, type WebhookNetwork } from './webhook-network.js'

/**
 * The organization's webhook settings: the one write path of the CLI (`webhook set|show|clear`) and
 * the admin API (`GET|PUT|DELETE .../webhook`, the test delivery and the delivery log). The secret
 * leaves only once, in the answer of the write that generated it.
 */

export interface WebhookSettings {
  url: string | null
  configured: boolean
  /** Unix milliseconds of the last change; null without a webhook. */
  updated_at: number | null
}

export async function readWebhook(db: Queryable, orgId: number): Promise<WebhookSettings> {
  const row = await findWebhook(db, orgId)
  return row
    ? { url: row.url, configured: true, updated_at: Number(row.updated_at) }
    : { url: null, configured: false, updated_at: null }
}

const URL_RULE = 'must be an http:// or https:// URL without user name or password'

/**
 * Sets the URL with a new signing secret (returned, once), or keeps the current secret
 * (`keepSecret`: then none is returned; 409 when there is none to keep). A URL whose host the
 * network policy refuses (a private address, `localhost`, a name resolving to one) is a 400.
 */
export async function setWebhook(
  { db, orgId, now, trail }: WriteContext,
  input: { url: string; keepSecret?: boolean | undefined },
  network: WebhookNetwork,
): Promise<{ url: string; secret?: string }> {
  const url = input.url.trim()
  if (!isWebhookUrl(url) || url.length > 2048) throw validationError([{ field: 'url', message: URL_RULE }])
  const refused = await targetRefusal(network, new URL(url))
  if (refused) {
    throw validationError([
      {
        field: 'url',
        message: `must point to a public address: ${refused} (the operator may allow private networks with EXPERTDIR_WEBHOOK_ALLOW_PRIVATE or EXPERTDIR_WEBHOOK_ALLOW_NETWORKS)`,
      },
    ])
  }
  return writeTransaction(db, async (trx) => {
    const current = await findWebhook(trx, orgId)
    if (input.keepSecret && !current) {
      throw new ApiError(
        'conflict',
        'There is no signing secret to keep: set the webhook without keep_secret.',
        {
          details: [{ field: 'keep_secret', message: 'the organization has no webhook yet' }],
        },
      )
    }
    const secret = input.keepSecret && current ? current.secret : generateWebhookSecret()
    await saveWebhook(trx, orgId, url, secret, now)
    await recordAudit(trx, orgId, trail, { kind: 'webhook', id: orgId }, now)
    return input.keepSecret ? { url } : { url, secret }
  })
}

/** Removes the webhook; returns whether there was one (nothing is recorded when there was not). */
export async function clearWebhook({ db, orgId, now, trail }: WriteContext): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    const removed = await deleteWebhook(trx, orgId)
    if (removed) await recordAudit(trx, orgId, trail, { kind: 'webhook', id: orgId }, now)
    return removed
  })
}

/**
 * Sends the signed test event now and says how it went; 404 without a webhook. Nothing of the webhook
 * changes, but the server spoke to an outside address with the organization's secret on someone's behalf:
 * the audit log records who, whether or not the receiver answered.
 */
export async function testWebhook(
  { db, orgId, now, trail }: WriteContext,
  network: WebhookNetwork,
): Promise<{ delivered: boolean; error: string | null }> {
  const webhook = await findWebhook(db, orgId)
  if (!webhook) throw notFound('The webhook of this organization')
  const outcome = await sendTestEvent(network, webhook, now).then(
    () => ({ delivered: true, error: null }),
    (error: unknown) => {
      if (error instanceof DeliveryError) return { delivered: false, error: error.message }
      throw error
    },
  )
  await recordAudit(db, orgId, trail, { kind: 'webhook', id: orgId }, now)
  return outcome
}

export interface WebhookDelivery {
  id: number
  inquiry_id: number
  status: DeliveryStatus
  attempts: number
  last_error: string | null
  /** Unix milliseconds. */
  created_at: number
  delivered_at: number | null
  next_attempt_at: number | null
}

const deliveryCursor = idCursor('whd1.', 'this delivery log')

/** One page of the webhook channel's deliveries, newest first, and the cursor of the next (null on the last). */
export async function listWebhookDeliveries(
  db: Queryable,
  orgId: number,
  page: { pageSize: number; cursor?: string | undefined },
): Promise<{ deliveries: WebhookDelivery[]; next_cursor: string | null }> {
  const before = deliveryCursor.parameter(page.cursor)
  let query = db
    .selectFrom('inquiry_deliveries')
    .select([
      'id',
      'inquiry_id',
      'status',
      'attempts',
      'last_error',
      'created_at',
      'delivered_at',
      'next_attempt_at',
    ])
    .where('org_id', '=', orgId)
    .where('channel', '=', 'webhook')
    .orderBy('id', 'desc')
    .limit(page.pageSize + 1)
  if (before !== undefined) query = query.where('id', '<', before)
  const rows = await query.execute()
  const shown = rows.slice(0, page.pageSize)
  const last = shown.at(-1)
  return {
    next_cursor: rows.length > page.pageSize && last ? deliveryCursor.encode(Number(last.id)) : null,
    deliveries: shown.map((row) => ({
      id: Number(row.id),
      inquiry_id: Number(row.inquiry_id),
      status: row.status,
      attempts: Number(row.attempts),
      last_error: row.last_error,
      created_at: Number(row.created_at),
      delivered_at: row.delivered_at === null ? null : Number(row.delivered_at),
      next_attempt_at: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
    })),
  }
}
