import type { Kysely } from 'kysely'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { type InquiryWithDeliveries, withDeliveries } from './repository.js'

/**
 * Senders' personal data (CONTRACT §17, docs/privacy.md): removal after the retention period, and
 * export or erasure of everything sent from one address. Removal keeps the record (its kind, expert,
 * date, status, assignee and recipients), so counts stay; it empties every field the sender wrote,
 * the internal notes (they may quote the sender), the delivery log's error texts, and forgets the
 * idempotency keys of those inquiries. A pending delivery is cancelled, so nothing removed is sent later.
 */

const DAY_MS = 24 * 60 * 60 * 1000

/** What a removed inquiry keeps in its sender columns: the NOT NULL ones become "". */
const REMOVED = {
  firstname: '',
  lastname: null,
  email: '',
  phone: null,
  website: null,
  organization: null,
  message: '',
  location_city: null,
  location_state: null,
  location_country: null,
  kind_fields: '{}',
  notes: null,
}

const CANCELLED = "cancelled: the sender's personal data was removed"

/** Removes the personal data of the inquiries `ids` (all of one organization, or of the retention sweep). */
async function removePersonalData(trx: Queryable, ids: readonly number[], now: number): Promise<number> {
  if (ids.length === 0) return 0
  const result = await trx
    .updateTable('inquiries')
    .set({ ...REMOVED, redacted_at: now })
    .where('id', 'in', ids)
    .executeTakeFirst()
  await trx
    .updateTable('inquiry_deliveries')
    .set({ status: 'skipped', next_attempt_at: null, last_error: CANCELLED, updated_at: now })
    .where('inquiry_id', 'in', ids)
    .where('status', '=', 'pending')
    .execute()
  await trx
    .updateTable('inquiry_deliveries')
    .set({ last_error: null })
    .where('inquiry_id', 'in', ids)
    .where('last_error', '<>', CANCELLED)
    .execute()
  // A key's stored response is the inquiry's id; its fingerprint is a hash of what the sender wrote.
  await trx
    .deleteFrom('idempotency_keys')
    .where(
      'response',
      'in',
      ids.map((id) => JSON.stringify({ id })),
    )
    .execute()
  return Number(result.numUpdatedRows)
}

/** The organization's inquiries sent from `email` (case-insensitive) whose data is still kept. */
async function idsFromSender(db: Queryable, orgId: number, email: string): Promise<number[]> {
  const rows = await db
    .selectFrom('inquiries')
    .select('id')
    .where('org_id', '=', orgId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('redacted_at', 'is', null)
    .orderBy('id', 'desc')
    .execute()
  return rows.map((row) => row.id)
}

/** Who asked for an export or erasure, when, and how many records: never the address. */
async function recordRequest(
  { db, orgId, now, trail }: WriteContext,
  action: 'export' | 'erase',
  clientId: string,
  records: number,
): Promise<void> {
  const { id } = await db
    .insertInto('privacy_requests')
    .values({ org_id: orgId, action, client_id: clientId, records, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  await recordAudit(db, orgId, trail, { kind: 'privacy_request', id }, now)
}

/** Every inquiry sent from `email` with its deliveries, newest first; the export is recorded. */
export async function exportSenderData(
  { db, orgId, now, trail }: WriteContext,
  email: string,
  clientId: string,
): Promise<InquiryWithDeliveries[]> {
  return writeTransaction(db, async (trx) => {
    const ids = await idsFromSender(trx, orgId, email)
    const inquiries =
      ids.length === 0
        ? []
        : await trx
            .selectFrom('inquiries')
            .selectAll()
            .where('org_id', '=', orgId)
            .where('id', 'in', ids)
            .orderBy('id', 'desc')
            .execute()
    await recordRequest({ db: trx, orgId, now, trail }, 'export', clientId, inquiries.length)
    return withDeliveries(trx, orgId, inquiries)
  })
}

/** Removes the personal data of every inquiry sent from `email`; returns how many; the erasure is recorded. */
export async function eraseSenderData(
  { db, orgId, now, trail }: WriteContext,
  email: string,
  clientId: string,
): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const erased = await removePersonalData(trx, await idsFromSender(trx, orgId, email), now)
    await recordRequest({ db: trx, orgId, now, trail }, 'erase', clientId, erased)
    return erased
  })
}

/** At most this many inquiries per transaction of the retention sweep. */
const RETENTION_BATCH = 500

/**
 * Removes the personal data of every inquiry received more than `days` days ago (all
 * organizations: housekeeping). Returns how many inquiries it changed.
 */
export async function applyRetention(db: Kysely<DB>, now: number, days: number): Promise<number> {
  const cutoff = now - days * DAY_MS
  let total = 0
  for (;;) {
    const changed = await writeTransaction(db, async (trx) => {
      const rows = await trx
        .selectFrom('inquiries')
        .select('id')
        .where('redacted_at', 'is', null)
        .where('created_at', '<', cutoff)
        .limit(RETENTION_BATCH)
        .execute()
      return removePersonalData(
        trx,
        rows.map((row) => row.id),
        now,
      )
    })
    total += changed
    if (changed < RETENTION_BATCH) return total
  }
}
