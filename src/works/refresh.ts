import type { Kysely } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import type { DB, ExpertRow } from '../db/schema.js'
import { lockedForWrite, writeTransaction } from '../db/transactions.js'
import type { RunTrigger, WorkRunRow } from '../db/works-schema.js'
import { offerWork } from './candidates.js'
import { outcomeOf } from './claims.js'
import { hasKeys, keysOf, mergeWork } from './merge.js'
import { emptyCounts, finishRun, type RunView, runView, type SourceMessage, startRun } from './runs.js'
import { type ExpertToSearch, type Source, SourceError, type SourceWork } from './sources/source.js'

/**
 * One refresh of one expert: every configured source is asked for the expert's works, each work is
 * merged into the organization's works and offered to the expert, and the run log says what happened.
 * Each work is merged in its own transaction and merging is idempotent, so a refresh cut short (a crash,
 * a source failing half way) is simply run again later: nothing is duplicated, nothing decided is undone.
 */

export interface RefreshInput {
  sources: readonly Source[]
  trigger: RunTrigger
  trail: AuditTrail
  now: () => number
  signal?: AbortSignal
  /** A run already started (refresh now answers with it before the sources are asked). */
  run?: WorkRunRow
}

/** What the sources are told about the expert: identifiers whose policy is `ignore` are left out. */
export function expertToSearch(expert: ExpertRow, affiliation: string | undefined): ExpertToSearch {
  return {
    ...(expert.orcid && expert.orcid_policy !== 'ignore'
      ? { orcid: expert.orcid, orcidAuthenticated: false }
      : {}),
    ...(expert.openalex_id && expert.openalex_policy !== 'ignore' ? { openalexId: expert.openalex_id } : {}),
    ...(expert.scopus_id && expert.scopus_policy !== 'ignore' ? { scopusId: expert.scopus_id } : {}),
    familyName: expert.lastname,
    givenNames: expert.firstname,
    ...(affiliation ? { affiliation } : {}),
  }
}

/** Whether the expert has an identifier the sources may search by (the schedule refreshes only these). */
export const hasSearchableIdentifier = (expert: ExpertRow): boolean =>
  Boolean(
    (expert.orcid && expert.orcid_policy !== 'ignore') ||
      (expert.openalex_id && expert.openalex_policy !== 'ignore') ||
      (expert.scopus_id && expert.scopus_policy !== 'ignore'),
  )

const errorText = (error: unknown) =>
  (error instanceof SourceError ? error.message : 'unexpected error while reading the source').slice(0, 500)

async function organizationName(db: Kysely<DB>, orgId: number): Promise<string | undefined> {
  const row = await db.selectFrom('organizations').select('name').where('id', '=', orgId).executeTakeFirst()
  return row?.name
}

export function startRefresh(
  db: Kysely<DB>,
  orgId: number,
  expert: ExpertRow,
  { sources, trigger, now }: Pick<RefreshInput, 'sources' | 'trigger' | 'now'>,
): Promise<WorkRunRow> {
  return startRun(db, orgId, expert, { trigger, sources: sources.map((source) => source.name), now: now() })
}

export async function refreshExpert(
  db: Kysely<DB>,
  orgId: number,
  expert: ExpertRow,
  input: RefreshInput,
): Promise<RunView> {
  const { sources, trail, now, signal } = input
  const run = input.run ?? (await startRefresh(db, orgId, expert, input))
  const searched = expertToSearch(expert, await organizationName(db, orgId))
  const counts = emptyCounts()
  const errors: SourceMessage[] = []
  const notes: SourceMessage[] = []
  for (const source of sources) {
    const skip = source.skipReason()
    if (skip !== null) {
      notes.push({ source: source.name, message: skip })
      continue
    }
    // What a person should know although the source runs: a missing key or contact address.
    for (const note of source.notes?.() ?? []) notes.push({ source: note.source, message: note.message })
    const found: SourceWork[] = []
    try {
      for await (const work of source.worksFor(searched, signal)) found.push(work)
    } catch (error) {
      errors.push({ source: source.name, message: errorText(error) })
    }
    for (const work of found) {
      counts.found++
      if (!hasKeys(keysOf(work))) {
        notes.push({
          source: source.name,
          message: `a work without any identifier was left out: ${work.title ?? ''}`.trim(),
        })
        continue
      }
      try {
        await mergeOne(db, orgId, expert, work, { now: now(), trail }, counts)
      } catch (error) {
        errors.push({ source: source.name, message: `could not store a work: ${errorText(error)}` })
      }
    }
  }
  const finished = await finishRun(db, run.id, {
    counts,
    errors,
    notes,
    now: now(),
    failed: errors.length > 0 && counts.found === 0,
  })
  await db
    .updateTable('work_schedule')
    .set({ last_refreshed_at: finished.finished_at })
    .where('expert_id', '=', expert.id)
    .execute()
  return runView(finished)
}

async function mergeOne(
  db: Kysely<DB>,
  orgId: number,
  expert: ExpertRow,
  incoming: SourceWork,
  { now, trail }: { now: number; trail: AuditTrail },
  counts: ReturnType<typeof emptyCounts>,
): Promise<void> {
  const result = await writeTransaction(db, async (trx) => {
    // The expert's row is locked first: the article section it may change is the expert's.
    const current = await lockedForWrite(
      trx,
      trx.selectFrom('experts').selectAll().where('org_id', '=', orgId).where('id', '=', expert.id),
    ).executeTakeFirst()
    if (!current) return undefined
    const merged = await mergeWork(trx, orgId, incoming, now)
    const offered = await offerWork(trx, orgId, current, merged.work, {
      outcome: outcomeOf(current, incoming),
      reason: incoming.foundBecause,
      now,
      trail,
    })
    return { merged, offered }
  })
  if (!result) return
  if (result.merged.change === 'created') counts.created++
  if (result.merged.change === 'updated') counts.updated++
  if (result.offered.offered === 'new' || result.offered.offered === 'settled')
    counts[result.offered.candidate.state === 'hidden' ? 'pending' : result.offered.candidate.state]++
}
