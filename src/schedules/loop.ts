import type { Kysely } from 'kysely'
import type { Config } from '../config.js'
import { pollingLoop } from '../db/leases.js'
import type { DB } from '../db/schema.js'
import { publishDueDrafts } from '../drafts/service.js'
import { carryOut, type DueTime, type ScheduledAction, type ScheduledKind } from './carry-out.js'

/**
 * The publishing schedule (CONTRACT §21): publishes and unpublishes experts (and staff members), posts
 * and Q&A items at the times their `publish_at` / `unpublish_at` say, and approved drafts at theirs
 * (src/drafts/service.ts `publishDueDrafts`), within a poll interval (`EXPERTDIR_SCHEDULE_POLL_SECONDS`,
 * default 30) of each, and at start-up whatever came due while no process ran. It runs in the process that runs background work (`serve`, the primary of `--workers`),
 * on the polling loop of src/db/leases.ts.
 *
 * Exactly once, however many processes run it: each time is carried out by one write transaction that
 * re-reads the time with the record's row locked and clears it in the same commit (carry-out.ts
 * `stillDue`). A second process that reached the same time waits for that lock and then finds nothing
 * due; a process killed mid-write leaves the time set (its transaction rolled back) for the next pass of
 * any process. A draft is claimed the same way, in its publishing write's transaction. No lease is needed, since the carried-out work is a single transaction: a lease would
 * only guard work longer than one, as a works refresh is.
 */

const BATCH = 50

type Log = { warn(object: object, message: string): void }
const silent: Log = { warn() {} }

const SOURCES: { kind: ScheduledKind; table: 'experts' | 'spotlights' | 'questions' }[] = [
  { kind: 'expert', table: 'experts' },
  { kind: 'spotlight', table: 'spotlights' },
  { kind: 'question', table: 'questions' },
]

/** Up to `limit` due times of every kind and organization, earliest first. */
async function findDue(db: Kysely<DB>, now: number, limit: number): Promise<DueTime[]> {
  const found = await Promise.all(
    SOURCES.flatMap(({ kind, table }) =>
      (['publish', 'unpublish'] as const satisfies readonly ScheduledAction[]).map(async (action) => {
        const at = action === 'publish' ? 'publish_at' : 'unpublish_at'
        const by = action === 'publish' ? 'publish_by' : 'unpublish_by'
        const rows = await db
          .selectFrom(table)
          .select(['id', 'org_id', `${at} as at`, `${by} as set_by`])
          .where(at, '<=', now)
          .orderBy(at)
          .orderBy('id')
          .limit(limit)
          .execute()
        return rows.flatMap((row) =>
          row.at === null
            ? []
            : [{ kind, action, orgId: row.org_id, id: row.id, at: row.at, setBy: row.set_by }],
        )
      }),
    ),
  )
  return found
    .flat()
    .sort((a, b) => a.at - b.at || a.id - b.id)
    .slice(0, limit)
}

export interface PublishingScheduleOptions {
  db: Kysely<DB>
  now?: () => number
  pollMs?: number
  log?: Log
}

export interface PublishingSchedule {
  /** Carries out the times due now; how many it carried out. What tests call instead of waiting. */
  runOnce(): Promise<number>
  start(): void
  stop(): Promise<void>
}

/** The poll interval of the schedule from the settings (`EXPERTDIR_SCHEDULE_POLL_SECONDS`). */
export function publishingTiming(config: Pick<Config, 'schedulePollSeconds'>) {
  return { pollMs: config.schedulePollSeconds * 1000 }
}

export function createPublishingSchedule(options: PublishingScheduleOptions): PublishingSchedule {
  const { db } = options
  const now = options.now ?? Date.now
  const log = options.log ?? silent
  let full = false

  async function runOnce(): Promise<number> {
    const time = now()
    const due = await findDue(db, time, BATCH)
    let done = 0
    for (const item of due) {
      try {
        if (await carryOut({ db, now: time }, item)) done++
      } catch (error) {
        // Left due: the next pass tries again (a refused write is logged each time until the time is changed).
        log.warn(
          { err: error, kind: item.kind, id: item.id, org_id: item.orgId, action: item.action },
          'a scheduled publish or unpublish failed; retrying at the next pass',
        )
      }
    }
    const drafts = await publishDueDrafts(db, time, BATCH, (error) =>
      log.warn({ err: error }, 'a scheduled draft could not be published; retrying at the next pass'),
    )
    full = due.length === BATCH || drafts === BATCH
    return done + drafts
  }

  const loop = pollingLoop(
    async () => (await runOnce()) > 0 && full,
    options.pollMs ?? 30_000,
    (error) => log.warn({ err: error }, 'publishing schedule pass failed; retrying shortly'),
  )
  return { runOnce, start: loop.start, stop: loop.stop }
}
