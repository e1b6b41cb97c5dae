import { type AuditTrail, actorId } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { Queryable } from '../db/database.js'
import type { ExpertRow } from '../db/schema.js'
import type { CandidateReason, CandidateState, WorkCandidateRow, WorkRow } from '../db/works-schema.js'
import { profileChanged } from '../derived/changes.js'
import { putKeyedElement, recordSectionVersion } from '../profiles/sections.js'
import type { Outcome } from './claims.js'
import { strongerReason } from './claims.js'
import { parseWorkFields } from './fields.js'
import { storedKeys } from './merge.js'

/**
 * Candidates: a work offered to an expert, and the decision about it. Decisions are sticky: a refresh
 * raises a score or names a stronger reason, and settles a candidate nobody has decided on yet, but never
 * changes a decision a person (or a policy) made; a rejection is kept against every identifier the work
 * had, so the work found again through a new identifier stays rejected. A claimed work is an element of
 * the expert's `article` section, kept under `work:<id>`.
 */

type Expert = Pick<ExpertRow, 'id' | 'username'>

/** Who decided, as stored in `decided_by`: `person:12`, `client:cl_x`, `cli` or `system`. */
export function decidedBy(trail: AuditTrail): string {
  const id = actorId(trail.actor)
  return id === null ? trail.actor.kind : `${trail.actor.kind}:${id}`
}

const articleKey = (workId: number) => `work:${workId}`

const clip = (text: string, max: number) => {
  // Control characters are not allowed in section text; code points, not UTF-16 units, are counted.
  const clean = text.replace(/[\p{Cc}\p{Cs}]/gu, ' ').trim()
  const points = [...clean]
  return points.length > max ? `${points.slice(0, max - 1).join('')}…` : clean
}

/** The `article` element of a work (CONTRACT §5): null while the work has no title yet. */
export function articleOf(work: WorkRow): Record<string, unknown> | null {
  const fields = parseWorkFields(work.fields)
  const title = fields.title?.value
  if (!title) return null
  const year = fields.year?.value
  const date = fields.date?.value ?? (year ? Date.UTC(year, 0, 1) / 1000 : undefined)
  const sourceUrl = fields.url?.value
  const url = work.doi_norm
    ? `https://doi.org/${work.doi_norm}`
    : sourceUrl && /^https?:\/\/[^/?#@\s]+(?:[/?#]\S*)?$/.test(sourceUrl)
      ? sourceUrl
      : undefined
  const authors = fields.authors?.value.join(', ')
  return {
    title: clip(title, 500),
    publisher: fields.container ? clip(fields.container.value, 255) : null,
    authors: authors ? clip(authors, 1000) : null,
    details: fields.abstract ? clip(fields.abstract.value, 20_000) : null,
    date: date ?? null,
    url: url && url.length <= 2048 ? url : null,
  }
}

/**
 * Makes the expert's `article` section show the work when its candidate is claimed, and not otherwise;
 * reports the profile change and its audit entry when something changed.
 */
export async function syncArticle(
  trx: Queryable,
  orgId: number,
  expert: Expert,
  work: WorkRow,
  state: CandidateState,
  { now, trail }: { now: number; trail: AuditTrail },
): Promise<boolean> {
  const element = state === 'claimed' ? articleOf(work) : null
  const changed = await putKeyedElement(trx, orgId, expert.id, {
    section: 'article',
    key: articleKey(work.id),
    element,
  })
  if (!changed) return false
  await profileChanged(trx, orgId, expert.id, now)
  await recordAudit(
    trx,
    orgId,
    trail,
    { kind: 'section', id: `${expert.username}/article/${changed.id}` },
    now,
  )
  await recordSectionVersion(trx, { orgId, trail, now }, expert.id, 'article', changed.items)
  return true
}

async function findCandidate(trx: Queryable, expertId: number, workId: number) {
  return trx
    .selectFrom('work_candidates')
    .selectAll()
    .where('expert_id', '=', expertId)
    .where('work_id', '=', workId)
    .executeTakeFirst()
}

/** Whether the expert rejected this work before, under any identifier it has now. */
async function rejectedBefore(trx: Queryable, expertId: number, work: WorkRow): Promise<boolean> {
  const keys = storedKeys(work)
  if (keys.length === 0) return false
  const row = await trx
    .selectFrom('work_rejections')
    .select('work_id')
    .where('expert_id', '=', expertId)
    .where((eb) =>
      eb.or(keys.map(({ kind, value }) => eb.and([eb('kind', '=', kind), eb('value', '=', value)]))),
    )
    .executeTakeFirst()
  return row !== undefined
}

/** Keeps the rejection against every identifier the work has now. */
async function keepRejection(trx: Queryable, orgId: number, expertId: number, work: WorkRow): Promise<void> {
  for (const { kind, value } of storedKeys(work))
    await trx
      .insertInto('work_rejections')
      .values({ org_id: orgId, expert_id: expertId, kind, value, work_id: work.id })
      .onConflict((conflict) => conflict.columns(['expert_id', 'kind', 'value']).doNothing())
      .execute()
}

export type Offered = 'new' | 'settled' | 'refreshed' | null

/**
 * Offers a merged work to the expert with the outcome of its signal. Returns what happened to the
 * candidate: `new`, `settled` (an undecided one decided by a stronger signal), `refreshed` (a higher
 * score or a stronger reason) or null (nothing: the same refresh again).
 */
export async function offerWork(
  trx: Queryable,
  orgId: number,
  expert: Expert,
  work: WorkRow,
  {
    outcome,
    reason,
    now,
    trail,
  }: { outcome: Outcome; reason: CandidateReason; now: number; trail: AuditTrail },
): Promise<{ offered: Offered; candidate: WorkCandidateRow }> {
  const existing = await findCandidate(trx, expert.id, work.id)
  let offered: Offered = null
  let candidate: WorkCandidateRow
  if (!existing) {
    const sticky = outcome.state !== 'rejected' && (await rejectedBefore(trx, expert.id, work))
    const state = sticky ? 'rejected' : outcome.state
    candidate = {
      org_id: orgId,
      expert_id: expert.id,
      work_id: work.id,
      state,
      reason,
      score: outcome.score,
      first_seen: now,
      decided_by: state === 'pending' ? null : 'system',
      decided_at: state === 'pending' ? null : now,
      note: sticky
        ? 'rejected before under another identifier'
        : state === 'rejected'
          ? 'the policy of the identifier it was found by rejects it'
          : null,
    }
    await trx.insertInto('work_candidates').values(candidate).execute()
    offered = 'new'
  } else {
    const changes: Partial<WorkCandidateRow> = {}
    const score = Math.max(existing.score, outcome.score)
    if (score !== existing.score) changes.score = score
    const strongest = strongerReason(existing.reason, reason)
    if (strongest !== existing.reason) changes.reason = strongest
    if (existing.state === 'pending' && existing.decided_by === null && outcome.state !== 'pending') {
      changes.state = outcome.state
      changes.decided_by = 'system'
      changes.decided_at = now
    }
    candidate = { ...existing, ...changes }
    if (Object.keys(changes).length > 0) {
      await trx
        .updateTable('work_candidates')
        .set(changes)
        .where('expert_id', '=', expert.id)
        .where('work_id', '=', work.id)
        .execute()
      offered = changes.state ? 'settled' : 'refreshed'
    }
  }
  if (candidate.state === 'rejected') await keepRejection(trx, orgId, expert.id, work)
  await syncArticle(trx, orgId, expert, work, candidate.state, { now, trail })
  return { offered, candidate }
}

/**
 * A person's decision about one candidate: the new state, who and when. Leaving `rejected` forgets the
 * rejection's identifiers (only the expert or a delegate undoes it). Returns whether anything changed.
 */
export async function decide(
  trx: Queryable,
  orgId: number,
  expert: Expert,
  candidate: WorkCandidateRow,
  work: WorkRow,
  { state, now, trail }: { state: CandidateState; now: number; trail: AuditTrail },
): Promise<boolean> {
  if (candidate.state === state) return false
  await trx
    .updateTable('work_candidates')
    .set({ state, decided_by: decidedBy(trail), decided_at: now, note: null })
    .where('expert_id', '=', expert.id)
    .where('work_id', '=', work.id)
    .execute()
  if (state === 'rejected') await keepRejection(trx, orgId, expert.id, work)
  else if (candidate.state === 'rejected')
    await trx
      .deleteFrom('work_rejections')
      .where('expert_id', '=', expert.id)
      .where('work_id', '=', work.id)
      .execute()
  const articleChanged = await syncArticle(trx, orgId, expert, work, state, { now, trail })
  if (!articleChanged)
    await recordAudit(trx, orgId, trail, { kind: 'section', id: `${expert.username}/article` }, now)
  return true
}
