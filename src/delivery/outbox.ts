import { randomUUID } from 'node:crypto'
import type { Config } from '../config.js'
import type { Database } from '../db/database.js'
import { keepRenewing, pollingLoop } from '../db/leases.js'
import type { DeliveryRow } from '../db/schema.js'
import { parseRecipients } from '../inquiries/handling.js'
import { findInquiry } from '../inquiries/repository.js'
import { composeConfirmation } from './confirmation.js'
import { createEmailChannel, type EmailChannel } from './email.js'
import {
  claimDueDeliveries,
  completeDelivery,
  type DeliveryOutcome,
  findExpertName,
  findWebhook,
  renewLeases,
} from './repository.js'
import { DeliveryError, sendWebhook, WEBHOOK_TIMEOUT_MS } from './webhook.js'
import { type Resolver, webhookNetwork } from './webhook-network.js'

/** The longest wait between two attempts. */
export const MAX_BACKOFF_MS = 60 * 60 * 1000
/**
 * A claimed delivery is another worker's to retry only after this, unless its worker renews the
 * lease (it does, every third of it, while the attempt runs). The default is far above the send timeouts.
 */
export const LEASE_MS = 10 * WEBHOOK_TIMEOUT_MS
const BATCH = 10
const REDACTED = "cancelled: the sender's personal data was removed"
/** The time zone of an email's dates: the organization has no time zone setting, so UTC, which they name. */
const EMAIL_TIME_ZONE = 'UTC'
const NO_RECIPIENTS = 'no one to email: the notification settings name no recipient for this kind'

type Log = {
  info(object: object, message: string): void
  warn(object: object, message: string): void
  error(object: object, message: string): void
}
const silent: Log = { info() {}, warn() {}, error() {} }

export interface OutboxOptions {
  database: Database
  config: Pick<
    Config,
    'smtpUrl' | 'mailFrom' | 'deliveryMaxAttempts' | 'deliveryBackoffMs' | 'deliveryPollMs'
  > &
    Partial<Pick<Config, 'deliveryLeaseMs' | 'webhookAllowPrivate' | 'webhookAllowNetworks' | 'publicUrl'>>
  /** Unix milliseconds; injectable so tests drive retries without waiting. */
  now?: () => number
  log?: Log
  /** Resolves webhook host names instead of the system's resolver (tests). */
  resolve?: Resolver
  /** Told of every pass that claimed deliveries (metrics). */
  onRun?: (run: OutboxRun) => void
}

/** What one pass over the outbox did. */
export interface OutboxRun {
  claimed: number
  delivered: number
  retrying: number
  failed: number
  skipped: number
}

export interface Outbox {
  /** Claims the due deliveries once and attempts each; what tests call instead of waiting. */
  processOnce(): Promise<OutboxRun>
  /** Starts the background loop (server process). */
  start(): void
  /** Stops the loop after the pass in progress, and closes the SMTP connection. */
  stop(): Promise<void>
}

/** Exponential backoff with jitter: about base * 2^(attempt-1), between half and all of it, capped. */
export function backoffMs(baseMs: number, attempts: number, random: number = Math.random()): number {
  const full = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.min(attempts - 1, 30))
  return Math.max(1, Math.round(full / 2 + (full / 2) * random))
}

function errorText(error: unknown): string {
  const text = error instanceof DeliveryError ? error.message : 'unexpected error while delivering'
  return text.slice(0, 500)
}

/** The durable outbox worker: at-least-once delivery of every inquiry to every configured channel. */
export function createOutbox(options: OutboxOptions): Outbox {
  const { database, config } = options
  const { db } = database
  const now = options.now ?? Date.now
  const log = options.log ?? silent
  const leaseMs = config.deliveryLeaseMs ?? LEASE_MS
  const email: EmailChannel | undefined = createEmailChannel(config.smtpUrl, config.mailFrom)
  const network = webhookNetwork(config, options.resolve)

  const skipped = (last_error: string) => ({ status: 'skipped' as const, next_attempt_at: null, last_error })

  async function attempt(row: DeliveryRow): Promise<Omit<DeliveryOutcome, 'delivered_at'>> {
    // The channel's settings first: an unconfigured channel needs no read of the inquiry.
    if (row.channel !== 'webhook' && !email) return skipped('SMTP is not configured (EXPERTDIR_SMTP_URL)')
    const webhook = row.channel === 'webhook' ? await findWebhook(db, row.org_id) : undefined
    if (row.channel === 'webhook' && !webhook)
      return skipped('no webhook is configured for this organization')
    const inquiry = await findInquiry(db, row.org_id, row.inquiry_id)
    if (!inquiry) return skipped('the inquiry no longer exists')
    if (inquiry.redacted_at !== null) return skipped(REDACTED)
    if (webhook) await sendWebhook(network, webhook, inquiry, row.id)
    else if (row.channel === 'confirmation')
      await email?.confirm(inquiry, await composeConfirmation(db, inquiry, config.publicUrl))
    else {
      const recipients = parseRecipients(inquiry.recipients)
      if (recipients.length === 0) return skipped(NO_RECIPIENTS)
      const expertName =
        inquiry.expert_id === null ? null : await findExpertName(db, row.org_id, inquiry.expert_id)
      await email?.send(inquiry, recipients, { expertName, timeZone: EMAIL_TIME_ZONE })
    }
    return { status: 'delivered', next_attempt_at: null, last_error: null }
  }

  /** Attempts one delivery and decides what to record: delivered, skipped, retry later, or failed. */
  async function settle(row: DeliveryRow): Promise<DeliveryOutcome> {
    try {
      const result = await attempt(row)
      return { ...result, delivered_at: result.status === 'delivered' ? now() : null }
    } catch (error) {
      if (!(error instanceof DeliveryError))
        log.error({ err: error, delivery_id: row.id }, 'delivery crashed')
      const last_error = errorText(error)
      return row.attempts >= config.deliveryMaxAttempts
        ? { status: 'failed', next_attempt_at: null, last_error, delivered_at: null }
        : {
            status: 'pending',
            next_attempt_at: now() + backoffMs(config.deliveryBackoffMs, row.attempts),
            last_error,
            delivered_at: null,
          }
    }
  }

  function report(row: DeliveryRow, outcome: DeliveryOutcome, run: OutboxRun): void {
    if (outcome.status === 'delivered') run.delivered++
    else if (outcome.status === 'pending') run.retrying++
    else if (outcome.status === 'failed') run.failed++
    else run.skipped++
    const entry = {
      delivery_id: row.id,
      inquiry_id: row.inquiry_id,
      org_id: row.org_id,
      channel: row.channel,
      status: outcome.status,
      attempts: row.attempts,
      ...(outcome.last_error ? { error: outcome.last_error } : {}),
    }
    if (outcome.status === 'failed') log.error(entry, 'delivery failed for good')
    else if (outcome.status === 'pending') log.warn(entry, 'delivery will be retried')
    else log.info(entry, 'delivery finished')
  }

  /**
   * While a slow attempt runs, keeps the claim alive so that no other process takes it over and
   * delivers twice; a process that dies stops renewing and its claim lapses after one lease.
   */
  function keepLeases(ids: number[], token: string): () => void {
    return keepRenewing(
      () => renewLeases(db, ids, token, now() + leaseMs),
      leaseMs,
      (error: unknown) => log.warn({ err: error }, 'could not renew delivery leases'),
    )
  }

  async function processOnce(): Promise<OutboxRun> {
    const token = randomUUID()
    // Claims and outcomes are small writes: they join the inquiries' group commit (no fsync of their own).
    const rows = await database.commits.run((trx) =>
      claimDueDeliveries(trx, database.dialect, { now: now(), leaseMs, limit: BATCH, token }),
    )
    const run: OutboxRun = { claimed: rows.length, delivered: 0, retrying: 0, failed: 0, skipped: 0 }
    if (rows.length === 0) return run
    const stopRenewing = keepLeases(
      rows.map((row) => row.id),
      token,
    )
    const settled = await Promise.all(rows.map(async (row) => ({ row, outcome: await settle(row) }))).finally(
      stopRenewing,
    )
    // One commit for the whole batch: a commit costs a disk flush. A crash before it means the batch is
    // attempted again after its lease, which at-least-once delivery allows (receivers dedupe by delivery id).
    const recorded = await database.commits.run(async (trx) => {
      const done: boolean[] = []
      for (const { row, outcome } of settled)
        done.push(await completeDelivery(trx, row, token, outcome, now()))
      return done
    })
    for (const [i, { row, outcome }] of settled.entries()) {
      if (recorded[i]) report(row, outcome, run)
      else log.warn({ delivery_id: row.id }, 'delivery lease was lost before the outcome was recorded')
    }
    options.onRun?.(run)
    return run
  }

  const loop = pollingLoop(
    async () => (await processOnce()).claimed === BATCH,
    config.deliveryPollMs,
    (error) => log.warn({ err: error }, 'outbox pass failed; retrying shortly'),
  )

  return {
    processOnce,
    start: loop.start,
    async stop() {
      await loop.stop()
      email?.close()
    },
  }
}
