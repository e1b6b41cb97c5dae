import { sql } from 'kysely'
import type { DialectName, Queryable } from '../db/database.js'
import type { DeliveryRow, DeliveryStatus, WebhookRow } from '../db/schema.js'

/**
 * Outbox and webhook-settings queries. The outbox worker serves every organization, so the claim is
 * the one query here without a tenant filter; everything it loads afterwards filters by the row's
 * organization.
 */

/**
 * Takes a lease on up to `limit` due deliveries and counts the attempt. One statement, so that two
 * workers never take the same row: on PostgreSQL the candidate rows are locked with
 * `FOR UPDATE SKIP LOCKED` (a concurrent claimer skips them instead of waiting); on SQLite the
 * statement runs under the database's single write lock.
 */
export async function claimDueDeliveries(
  db: Queryable,
  dialect: DialectName,
  options: { now: number; leaseMs: number; limit: number; token: string },
): Promise<DeliveryRow[]> {
  const { now, leaseMs, limit, token } = options
  let due = db
    .selectFrom('inquiry_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
  if (dialect === 'postgres') due = due.forUpdate().skipLocked()
  return db
    .updateTable('inquiry_deliveries')
    .set({
      locked_until: now + leaseMs,
      lock_token: token,
      attempts: sql<number>`attempts + 1`,
      updated_at: now,
    })
    .where('id', 'in', due)
    .returningAll()
    .execute()
}

/** Extends this worker's lease on `ids` while it is still attempting them; returns how many it still holds. */
export async function renewLeases(
  db: Queryable,
  ids: number[],
  token: string,
  lockedUntil: number,
): Promise<number> {
  if (ids.length === 0) return 0
  const result = await db
    .updateTable('inquiry_deliveries')
    .set({ locked_until: lockedUntil })
    .where('id', 'in', ids)
    .where('lock_token', '=', token)
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/** How many deliveries wait for their first or next attempt (the outbox depth, for metrics). */
export async function countPendingDeliveries(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('inquiry_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

export interface DeliveryOutcome {
  status: DeliveryStatus
  next_attempt_at: number | null
  last_error: string | null
  delivered_at: number | null
}

/** Records the outcome and releases the lease; false when the lease was lost to another worker. */
export async function completeDelivery(
  db: Queryable,
  row: Pick<DeliveryRow, 'id' | 'org_id'>,
  token: string,
  outcome: DeliveryOutcome,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('inquiry_deliveries')
    .set({ ...outcome, locked_until: null, lock_token: null, updated_at: now })
    .where('org_id', '=', row.org_id)
    .where('id', '=', row.id)
    .where('lock_token', '=', token)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function findWebhook(db: Queryable, orgId: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('org_id', '=', orgId).executeTakeFirst()
}

/** Creates or replaces the organization's webhook. */
export async function saveWebhook(
  db: Queryable,
  orgId: number,
  url: string,
  secret: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('webhooks')
    .values({ org_id: orgId, url, secret, created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.column('org_id').doUpdateSet({ url, secret, updated_at: now }))
    .execute()
}

export async function deleteWebhook(db: Queryable, orgId: number): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where('org_id', '=', orgId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/**
 * Queues the email confirming to the sender of inquiry `inquiryId` that it arrived (the
 * `confirmation` channel); a second call for the same inquiry queues nothing, so a replayed form
 * confirms once.
 */
export async function queueConfirmation(
  db: Queryable,
  orgId: number,
  inquiryId: number,
  now: number,
): Promise<void> {
  await db
    .insertInto('inquiry_deliveries')
    .values({
      inquiry_id: inquiryId,
      org_id: orgId,
      channel: 'confirmation',
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    })
    .onConflict((conflict) => conflict.columns(['inquiry_id', 'channel']).doNothing())
    .execute()
}

/** The expert's name ("Grace Hopper") for an inquiry's email; null when the expert is gone. */
export async function findExpertName(db: Queryable, orgId: number, expertId: number): Promise<string | null> {
  const expert = await db
    .selectFrom('experts')
    .select(['firstname', 'lastname'])
    .where('org_id', '=', orgId)
    .where('id', '=', expertId)
    .executeTakeFirst()
  return expert ? [expert.firstname, expert.lastname].filter(Boolean).join(' ') : null
}
