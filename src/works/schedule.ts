import { randomUUID } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import type { Config } from '../config.js'
import { keepRenewing, pollingLoop } from '../db/leases.js'
import type { DB, ExpertRow } from '../db/schema.js'
import type { RunTrigger, WorkRunRow } from '../db/works-schema.js'
import { hasSearchableIdentifier, refreshExpert, startRefresh } from './refresh.js'
import type { RunView } from './runs.js'
import type { Source } from './sources/source.js'

/**
 * The refresh schedule (CONTRACT §19): every expert with an identifier is refreshed at least once every
 * seven days, by exactly one process however many processes (`--workers`, several machines) share the
 * database. Each expert has a row in `work_schedule` with the time it is due; a process takes due rows
 * by setting a lease (`locked_until`, `lock_token`) in one statement (PostgreSQL: `FOR UPDATE SKIP
 * LOCKED`; SQLite: one writer at a time), the way the inquiry outbox claims deliveries. The lease is
 * renewed while the refresh runs; a process that dies stops renewing, and after the lease another takes
 * the expert over and refreshes it again from the start, which merging makes harmless.
 */

export const REFRESH_INTERVAL_MS = 7 * 24 * 60 * 60 * 1000
/** A refresh's lease by default: far above a refresh's time, renewed every third of it while it runs. */
export const REFRESH_LEASE_MS = 10 * 60 * 1000
/** What a run left `running` by a process that died says once another process takes the expert over. */
export const INTERRUPTED_MESSAGE =
  'The process running this refresh stopped before it finished; the refresh was started again from the start.'
const BATCH = 5

type Log = { warn(object: object, message: string): void; info(object: object, message: string): void }
const silent: Log = { warn() {}, info() {} }

const SYSTEM_TRAIL: AuditTrail = { actor: { kind: 'system' }, action: 'works refresh (schedule)' }

export interface WorksScheduleOptions {
  db: Kysely<DB>
  dialect: 'sqlite' | 'postgres'
  sources: readonly Source[]
  now?: () => number
  leaseMs?: number
  pollMs?: number
  log?: Log
}

/** The lease and poll interval of the schedule from the settings (`EXPERTDIR_WORKS_LEASE_SECONDS`, `_POLL_SECONDS`). */
export function scheduleTiming(config: Pick<Config, 'worksLeaseSeconds' | 'worksPollSeconds'>) {
  return { leaseMs: config.worksLeaseSeconds * 1000, pollMs: config.worksPollSeconds * 1000 }
}

/** Puts every expert with an identifier and no schedule row on the schedule, due now. */
async function enrollExperts(db: Kysely<DB>, now: number): Promise<void> {
  await db
    .insertInto('work_schedule')
    .columns(['expert_id', 'org_id', 'due_at'])
    .expression((eb) =>
      eb
        .selectFrom('experts')
        .select(['experts.id', 'experts.org_id', sql<number>`${now}`.as('due_at')])
        .where((w) =>
          w.or([
            w.and([w('orcid', 'is not', null), w('orcid_policy', '!=', 'ignore')]),
            w.and([w('openalex_id', 'is not', null), w('openalex_policy', '!=', 'ignore')]),
            w.and([w('scopus_id', 'is not', null), w('scopus_policy', '!=', 'ignore')]),
          ]),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(selectFrom('work_schedule').select('expert_id').whereRef('expert_id', '=', 'experts.id')),
          ),
        ),
    )
    .onConflict((conflict) => conflict.column('expert_id').doNothing())
    .execute()
}

/** Takes up to `limit` due experts under a lease of `token`; none that another process holds. */
async function claimDue(
  db: Kysely<DB>,
  dialect: 'sqlite' | 'postgres',
  {
    now,
    leaseMs,
    limit,
    token,
    expertId,
  }: { now: number; leaseMs: number; limit: number; token: string; expertId?: number },
): Promise<{ expert_id: number; org_id: number }[]> {
  let due = db
    .selectFrom('work_schedule')
    .select('expert_id')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('due_at')
    .orderBy('expert_id')
    .limit(limit)
  due = expertId === undefined ? due.where('due_at', '<=', now) : due.where('expert_id', '=', expertId)
  if (dialect === 'postgres') due = due.forUpdate().skipLocked()
  return (
    db
      .updateTable('work_schedule')
      // A refresh asked for now is due now: should its process die, the schedule takes it over.
      .set({
        locked_until: now + leaseMs,
        lock_token: token,
        ...(expertId === undefined ? {} : { due_at: now }),
      })
      .where('expert_id', 'in', due)
      .returning(['expert_id', 'org_id'])
      .execute()
  )
}

/**
 * Closes the runs of these experts still marked `running`: called by the lease's new holder, so each is a
 * run whose process died (or lost its lease) before it could finish it.
 */
async function closeInterruptedRuns(db: Kysely<DB>, expertIds: number[], now: number): Promise<void> {
  if (expertIds.length === 0) return
  await db
    .updateTable('work_runs')
    .set({
      status: 'interrupted',
      errors: JSON.stringify([{ source: 'schedule', message: INTERRUPTED_MESSAGE }]),
      finished_at: now,
    })
    .where('expert_id', 'in', expertIds)
    .where('status', '=', 'running')
    .execute()
}

async function release(db: Kysely<DB>, expertId: number, token: string, dueAt: number): Promise<void> {
  await db
    .updateTable('work_schedule')
    .set({ locked_until: null, lock_token: null, due_at: dueAt })
    .where('expert_id', '=', expertId)
    .where('lock_token', '=', token)
    .execute()
}

function keepLease(
  db: Kysely<DB>,
  expertId: number,
  token: string,
  now: () => number,
  leaseMs: number,
  log: Log,
) {
  return keepRenewing(
    () =>
      db
        .updateTable('work_schedule')
        .set({ locked_until: now() + leaseMs })
        .where('expert_id', '=', expertId)
        .where('lock_token', '=', token)
        .execute(),
    leaseMs,
    (error: unknown) => log.warn({ err: error, expert_id: expertId }, 'could not renew a works lease'),
  )
}

export interface WorksSchedule {
  /** Refreshes the experts due now, once each; how many it refreshed. What tests call instead of waiting. */
  runOnce(): Promise<number>
  /**
   * Refresh now: takes the expert's lease and starts its run, or answers undefined when another refresh of
   * the expert holds it. `finished` settles when the refresh is done.
   */
  refreshNow(
    orgId: number,
    expert: ExpertRow,
    { trigger, trail }: { trigger: RunTrigger; trail: AuditTrail },
  ): Promise<{ run: WorkRunRow; finished: Promise<RunView> } | undefined>
  start(): void
  /** Stops the loop and waits for every refresh under way. */
  stop(): Promise<void>
}

export function createWorksSchedule(options: WorksScheduleOptions): WorksSchedule {
  const { db, dialect, sources } = options
  const now = options.now ?? Date.now
  const leaseMs = options.leaseMs ?? REFRESH_LEASE_MS
  const pollMs = options.pollMs ?? 60_000
  const log = options.log ?? silent
  const under = new Set<Promise<unknown>>()
  const track = <T>(promise: Promise<T>): Promise<T> => {
    under.add(promise)
    promise.then(
      () => under.delete(promise),
      () => under.delete(promise),
    )
    return promise
  }

  async function refreshLeased(
    orgId: number,
    expert: ExpertRow,
    token: string,
    input: { trigger: RunTrigger; trail: AuditTrail; run?: WorkRunRow },
  ): Promise<RunView> {
    const stopRenewing = keepLease(db, expert.id, token, now, leaseMs, log)
    try {
      const view = await refreshExpert(db, orgId, expert, { ...input, sources, now })
      await release(db, expert.id, token, now() + REFRESH_INTERVAL_MS)
      return view
    } catch (error) {
      // Tried again after the lease, by whichever process takes it first.
      log.warn({ err: error, expert_id: expert.id }, 'works refresh failed')
      throw error
    } finally {
      stopRenewing()
    }
  }

  async function runOnce(): Promise<number> {
    await enrollExperts(db, now())
    const token = randomUUID()
    const claimed = await claimDue(db, dialect, { now: now(), leaseMs, limit: BATCH, token })
    await closeInterruptedRuns(
      db,
      claimed.map((row) => row.expert_id),
      now(),
    )
    let refreshed = 0
    for (const { expert_id, org_id } of claimed) {
      const expert = await db.selectFrom('experts').selectAll().where('id', '=', expert_id).executeTakeFirst()
      if (!expert || !hasSearchableIdentifier(expert)) {
        await db
          .deleteFrom('work_schedule')
          .where('expert_id', '=', expert_id)
          .where('lock_token', '=', token)
          .execute()
        continue
      }
      try {
        await track(refreshLeased(org_id, expert, token, { trigger: 'schedule', trail: SYSTEM_TRAIL }))
        refreshed++
      } catch {
        // Logged by refreshLeased; the lease lapses and the expert is taken again.
      }
    }
    return refreshed
  }

  async function refreshNow(
    orgId: number,
    expert: ExpertRow,
    { trigger, trail }: { trigger: RunTrigger; trail: AuditTrail },
  ) {
    const token = randomUUID()
    await db
      .insertInto('work_schedule')
      .values({ expert_id: expert.id, org_id: orgId, due_at: now() })
      .onConflict((conflict) => conflict.column('expert_id').doNothing())
      .execute()
    const [claimed] = await claimDue(db, dialect, {
      now: now(),
      leaseMs,
      limit: 1,
      token,
      expertId: expert.id,
    })
    if (!claimed) return undefined
    await closeInterruptedRuns(db, [expert.id], now())
    const run = await startRefresh(db, orgId, expert, { sources, trigger, now })
    const finished = track(refreshLeased(orgId, expert, token, { trigger, trail, run }))
    // The caller may not wait: a failure is logged by refreshLeased and shows in the run log.
    finished.catch(() => {})
    return { run, finished }
  }

  const loop = pollingLoop(
    async () => (await runOnce()) === BATCH,
    pollMs,
    (error) => log.warn({ err: error }, 'works schedule pass failed; retrying shortly'),
  )

  return {
    runOnce,
    refreshNow,
    start: loop.start,
    async stop() {
      await loop.stop()
      await Promise.allSettled([...under])
    },
  }
}

/**
 * Refreshes now every expert of the organization `orgId` (or of every organization) with an identifier,
 * or the one expert `username` of `orgId`: what `expertdir works refresh` runs. An expert whose refresh
 * another process holds is skipped and counted as such.
 */
export async function refreshExpertsNow(
  schedule: WorksSchedule,
  db: Kysely<DB>,
  {
    orgId,
    username,
    trail,
  }: { orgId?: number | undefined; username?: string | undefined; trail: AuditTrail },
): Promise<{ runs: RunView[]; busy: string[] }> {
  let query = db.selectFrom('experts').selectAll().where('type', '=', 'expert')
  if (orgId !== undefined) query = query.where('org_id', '=', orgId)
  if (username !== undefined) query = query.where('username', '=', username)
  const experts = (await query.orderBy('org_id').orderBy('id').execute()).filter(
    (expert) => username !== undefined || hasSearchableIdentifier(expert),
  )
  const runs: RunView[] = []
  const busy: string[] = []
  for (const expert of experts) {
    const started = await schedule.refreshNow(expert.org_id, expert, { trigger: 'cli', trail })
    if (started) runs.push(await started.finished)
    else busy.push(expert.username)
  }
  return { runs, busy }
}
