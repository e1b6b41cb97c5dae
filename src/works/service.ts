import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import type { ExpertRow } from '../db/schema.js'
import { lockedForWrite, writeTransaction } from '../db/transactions.js'
import type { CandidateState, WorkCandidateRow, WorkRow } from '../db/works-schema.js'
import { ApiError, notFound } from '../errors.js'
import { profileNotFound } from '../experts/profile-type.js'
import { findExpert } from '../experts/repository.js'
import { idCursor } from '../http/cursor.js'
import { decide } from './candidates.js'
import { parseWorkFields } from './fields.js'

/** The works of an expert as the API lists them, and the decisions a person makes about them. */

const worksCursor = idCursor('wrk1.', 'this list of works')

export async function expertOrNotFound(db: Queryable, orgId: number, username: string): Promise<ExpertRow> {
  const expert = await findExpert(db, orgId, username, 'expert')
  if (!expert) throw profileNotFound('expert', username)
  return expert
}

async function duplicatesOf(db: Queryable, orgId: number, ids: number[]): Promise<Map<number, number[]>> {
  const found = new Map<number, number[]>()
  if (ids.length === 0) return found
  const rows = await db
    .selectFrom('work_duplicates')
    .select(['work_id', 'other_work_id'])
    .where('org_id', '=', orgId)
    .where((eb) => eb.or([eb('work_id', 'in', ids), eb('other_work_id', 'in', ids)]))
    .execute()
  const add = (id: number, other: number) => found.set(id, [...(found.get(id) ?? []), other])
  for (const row of rows) {
    add(row.work_id, row.other_work_id)
    add(row.other_work_id, row.work_id)
  }
  return found
}

const seconds = (ms: number) => Math.floor(ms / 1000)

export function workView(candidate: WorkCandidateRow, work: WorkRow, duplicates: number[] = []) {
  const fields = parseWorkFields(work.fields)
  const provenance: Record<string, string> = {}
  for (const [name, field] of Object.entries(fields)) if (field) provenance[name] = field.source
  return {
    id: work.id,
    state: candidate.state,
    reason: candidate.reason,
    score: candidate.score,
    note: candidate.note,
    first_seen: seconds(candidate.first_seen),
    decided_by: candidate.decided_by,
    decided_at: candidate.decided_at === null ? null : seconds(candidate.decided_at),
    doi: work.doi_norm,
    pmid: work.pmid,
    openalex_id: work.openalex_id,
    title: fields.title?.value ?? null,
    year: fields.year?.value ?? null,
    container: fields.container?.value ?? null,
    authors: fields.authors?.value ?? [],
    url: work.doi_norm ? `https://doi.org/${work.doi_norm}` : (fields.url?.value ?? null),
    provenance,
    possible_duplicates: [...new Set(duplicates)].sort((a, b) => a - b),
  }
}

export type WorkViewData = ReturnType<typeof workView>

async function candidatesWithWorks(
  db: Queryable,
  orgId: number,
  expertId: number,
  filter: { state?: CandidateState | undefined; before?: number | undefined; ids?: number[]; limit?: number },
) {
  let query = db
    .selectFrom('work_candidates as c')
    .innerJoin('works as w', 'w.id', 'c.work_id')
    .selectAll('w')
    .select([
      'c.state',
      'c.reason',
      'c.score',
      'c.note',
      'c.first_seen',
      'c.decided_by',
      'c.decided_at',
      'c.expert_id',
      'c.work_id',
    ])
    .where('c.org_id', '=', orgId)
    .where('c.expert_id', '=', expertId)
  if (filter.state) query = query.where('c.state', '=', filter.state)
  if (filter.before !== undefined) query = query.where('c.work_id', '<', filter.before)
  if (filter.ids) query = query.where('c.work_id', 'in', filter.ids)
  query = query.orderBy('c.work_id', 'desc')
  if (filter.limit !== undefined) query = query.limit(filter.limit)
  const rows = await query.execute()
  return rows.map((row) => {
    const { state, reason, score, note, first_seen, decided_by, decided_at, expert_id, work_id, ...work } =
      row
    const candidate: WorkCandidateRow = {
      org_id: orgId,
      expert_id,
      work_id,
      state,
      reason,
      score,
      note,
      first_seen,
      decided_by,
      decided_at,
    }
    return { candidate, work }
  })
}

export async function listWorks(
  db: Queryable,
  orgId: number,
  username: string,
  {
    state,
    page_size,
    cursor,
  }: { state?: CandidateState | undefined; page_size: number; cursor?: string | undefined },
): Promise<{ works: WorkViewData[]; next_cursor: string | null }> {
  const before = worksCursor.parameter(cursor)
  const expert = await expertOrNotFound(db, orgId, username)
  const rows = await candidatesWithWorks(db, orgId, expert.id, { state, before, limit: page_size + 1 })
  const page = rows.slice(0, page_size)
  const duplicates = await duplicatesOf(
    db,
    orgId,
    page.map((row) => row.work.id),
  )
  const last = page.at(-1)
  return {
    works: page.map(({ candidate, work }) => workView(candidate, work, duplicates.get(work.id))),
    next_cursor: rows.length > page_size && last ? worksCursor.encode(last.work.id) : null,
  }
}

/**
 * Applies decisions about an expert's works, all in one transaction: an id that is not one of the
 * expert's works refuses the whole request (404 naming it) and nothing is written.
 */
export async function decideWorks(
  { db, orgId, now, trail }: WriteContext,
  username: string,
  decisions: readonly { id: number; state: CandidateState }[],
): Promise<{ works: WorkViewData[]; updated: number }> {
  const ids = [...new Set(decisions.map((decision) => decision.id))]
  return writeTransaction(db, async (trx) => {
    const expert = await lockedForWrite(
      trx,
      trx
        .selectFrom('experts')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('username', '=', username)
        .where('type', '=', 'expert'),
    ).executeTakeFirst()
    if (!expert) throw profileNotFound('expert', username)
    const rows = await candidatesWithWorks(trx, orgId, expert.id, { ids })
    const byId = new Map(rows.map((row) => [row.work.id, row]))
    const unknown = ids.filter((id) => !byId.has(id))
    if (unknown.length === 1 && decisions.length === 1)
      throw notFound(`Work ${unknown[0]} of expert ${username}`)
    if (unknown.length > 0)
      throw new ApiError(
        'not_found',
        `These works are not works of expert ${username}: ${unknown.join(', ')}. Nothing was changed.`,
        {
          details: unknown.map((id) => ({
            field: 'decisions',
            message: `names work ${id}, not one of this expert's works`,
          })),
        },
      )
    let updated = 0
    const settled = new Map<number, WorkCandidateRow>()
    for (const { id, state } of decisions) {
      const row = byId.get(id)
      if (!row) continue
      const candidate = settled.get(id) ?? row.candidate
      if (await decide(trx, orgId, expert, candidate, row.work, { state, now, trail })) updated++
      settled.set(id, { ...candidate, state })
    }
    const after = await candidatesWithWorks(trx, orgId, expert.id, { ids })
    const duplicates = await duplicatesOf(trx, orgId, ids)
    const order = new Map(ids.map((id, index) => [id, index]))
    after.sort((a, b) => (order.get(a.work.id) ?? 0) - (order.get(b.work.id) ?? 0))
    return {
      works: after.map(({ candidate, work }) => workView(candidate, work, duplicates.get(work.id))),
      updated,
    }
  })
}
