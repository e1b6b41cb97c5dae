import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import { MEDIA_AVAILABILITY_ENDED } from '../audit/describe.js'
import { recordAudit } from '../audit/log.js'
import { type PollingLoop, pollingLoop } from '../db/leases.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { profileChanged } from '../derived/changes.js'

/**
 * The end of media availability (CONTRACT §22). Once an expert's `media_available_until` has passed,
 * the expert is no longer available: this pass sets `media_available` to 0 as a write of the profile,
 * through the change hub, so that the read documents, the search index (the `media_available=1`
 * filter) and the directory's kept pages follow, as after any write. Nothing kept by the read path
 * expires by time (src/kept-reads/kept-reads.ts): hence a write rather than a comparison with the
 * clock at read time. The `media_available_until` stays, as the end of the last window.
 *
 * Every process may run the pass at once: its update re-checks each row (`media_available = 1` and
 * the end passed) in the statement that changes it, so each window is closed exactly once, and the
 * one that closes it records it in the audit log (actor `system`).
 */

const TRAIL: AuditTrail = { actor: { kind: 'system' }, action: MEDIA_AVAILABILITY_ENDED }

/** Windows closed per statement. */
const BATCH = 200

/** How often a process looks for windows that have passed: the availability ends within this time. */
export const MEDIA_EXPIRY_POLL_MS = 30_000

/** Closes the windows that ended at or before `now`, up to one batch; answers how many it closed. */
export async function endPastMediaAvailability(db: Kysely<DB>, now: number): Promise<number> {
  const due = await db
    .selectFrom('experts')
    .select(['id', 'org_id'])
    .where('media_available_until', '<=', now)
    .where('media_available', '=', 1)
    .orderBy('media_available_until')
    .limit(BATCH)
    .execute()
  const byOrganization = new Map<number, number[]>()
  for (const row of due)
    byOrganization.set(Number(row.org_id), [
      ...(byOrganization.get(Number(row.org_id)) ?? []),
      Number(row.id),
    ])
  let closed = 0
  for (const [orgId, ids] of byOrganization) {
    closed += await writeTransaction(db, async (trx) => {
      const ended = await trx
        .updateTable('experts')
        .set({ media_available: 0 })
        .where('org_id', '=', orgId)
        .where('id', 'in', ids)
        .where('media_available', '=', 1)
        .where('media_available_until', '<=', now)
        .returning(['id', 'username'])
        .execute()
      if (ended.length === 0) return 0
      await profileChanged(
        trx,
        orgId,
        ended.map((row) => Number(row.id)),
        now,
      )
      for (const row of ended) await recordAudit(trx, orgId, TRAIL, { kind: 'expert', id: row.username }, now)
      return ended.length
    })
  }
  return closed
}

/** The pass, again and again while batches come back full, else every MEDIA_EXPIRY_POLL_MS. */
export function mediaExpiryLoop(
  db: Kysely<DB>,
  now: () => number,
  log: FastifyBaseLogger,
  pollMs = MEDIA_EXPIRY_POLL_MS,
): PollingLoop {
  return pollingLoop(
    async () => {
      const closed = await endPastMediaAvailability(db, now())
      if (closed > 0) log.info({ closed }, 'media availability ended')
      return closed >= BATCH
    },
    pollMs,
    (error) => log.warn({ err: error }, 'media availability expiry failed'),
  )
}
