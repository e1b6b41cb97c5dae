import type { Kysely } from 'kysely'
import { type PollingLoop, pollingLoop } from '../db/leases.js'
import type { DB } from '../db/schema.js'
import { publishDueDrafts } from './service.js'

/** Drafts published in one pass at most; a full pass runs again at once. */
const BATCH = 20
/** How often the loop looks for due drafts: a scheduled publish happens within this of its time. */
export const DRAFT_POLL_MS = 30_000

/**
 * The background step that publishes approved drafts at their `publish_at` (docs/editorial.md). Every
 * process may run it: each draft is claimed in its publishing write's transaction, so it is published
 * once whatever the number of processes, and a time missed while no process ran is caught up at the
 * next pass. (Scheduled publishing of records, `publish_at` in their update bodies, has its own loop in
 * src/schedules/; the two are meant to become one.)
 */
export function createDraftSchedule(options: {
  db: Kysely<DB>
  now: () => number
  onError: (error: unknown) => void
  pollMs?: number
}): PollingLoop {
  const { db, now, onError } = options
  return pollingLoop(
    async () => (await publishDueDrafts(db, now(), BATCH, onError)) >= BATCH,
    options.pollMs ?? DRAFT_POLL_MS,
    onError,
  )
}
