import { inChunks } from '../../db/chunks.js'
import type { Queryable } from '../../db/database.js'
import { type WorkContribution, workContribution } from './fingerprint.js'

/**
 * Which words go with which concepts (migration 0033), learned from the organization's claimed works: a
 * work counts once, however many experts claimed it, when at least one expert claimed it and it has a
 * concept; it adds one to `term_works` for each of its terms and one to `term_concepts` for each of its
 * (term, concept) pairs. `meaning_works` keeps what each work added, so taking it out (its last claim
 * gone, its fields changed, its expert deleted) subtracts exactly that. A work is looked at only when
 * an expert holding a candidacy for it is recomputed, so a write costs in proportion to that expert's
 * works, and a work whose contribution did not change writes nothing.
 */

const ROWS_PER_INSERT = 2000

interface Stored {
  terms: string
  concepts: string
}

const joined = (contribution: WorkContribution): Stored => ({
  terms: contribution.terms.join(' '),
  concepts: contribution.concepts.join(' '),
})

const split = (text: string) => (text === '' ? [] : text.split(' '))

const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

async function insertBatches<R>(rows: R[], insert: (batch: R[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT)
    await insert(rows.slice(start, start + ROWS_PER_INSERT))
}

/** The works among `workIds` that an expert (other than `except`) claimed. */
async function claimedWorks(
  db: Queryable,
  orgId: number,
  workIds: readonly number[],
  except: number | undefined,
): Promise<Set<number>> {
  const rows = await inChunks(workIds, (chunk) =>
    db
      .selectFrom('work_candidates')
      .innerJoin('experts', 'experts.id', 'work_candidates.expert_id')
      .select('work_candidates.work_id')
      .distinct()
      .where('work_candidates.org_id', '=', orgId)
      .where('work_candidates.work_id', 'in', chunk)
      .where('work_candidates.state', '=', 'claimed')
      .where('experts.org_id', '=', orgId)
      .where('experts.type', '=', 'expert')
      .where((eb) => (except === undefined ? eb.lit(true) : eb('work_candidates.expert_id', '!=', except)))
      .execute(),
  )
  return new Set(rows.map((row) => Number(row.work_id)))
}

/** The works an expert holds a candidacy for, whatever its state: those its recompute may have changed. */
export async function candidateWorksOf(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[],
): Promise<number[]> {
  const rows = await inChunks(expertIds, (chunk) =>
    db
      .selectFrom('work_candidates')
      .select('work_id')
      .distinct()
      .where('org_id', '=', orgId)
      .where('expert_id', 'in', chunk)
      .execute(),
  )
  return [...new Set(rows.map((row) => Number(row.work_id)))].sort((a, b) => a - b)
}

/** Adds the deltas to `term_works` and `term_concepts` (pairs keyed `term concept`); drops the rows that reach zero. */
async function moveCounts(
  db: Queryable,
  orgId: number,
  termDeltas: Map<string, number>,
  pairDeltas: Map<string, number>,
): Promise<void> {
  const terms = [...termDeltas].filter(([, delta]) => delta !== 0).sort(([a], [b]) => byCode(a, b))
  await insertBatches(terms, (batch) =>
    db
      .insertInto('term_works')
      .values(batch.map(([term, works]) => ({ org_id: orgId, term, works })))
      .onConflict((conflict) =>
        conflict
          .columns(['org_id', 'term'])
          .doUpdateSet((eb) => ({ works: eb('term_works.works', '+', eb.ref('excluded.works')) })),
      )
      .execute(),
  )
  const pairs = [...pairDeltas].filter(([, delta]) => delta !== 0).sort(([a], [b]) => byCode(a, b))
  await insertBatches(pairs, (batch) =>
    db
      .insertInto('term_concepts')
      .values(
        batch.map(([pair, works]) => {
          const [term = '', concept = ''] = pair.split(' ')
          return { org_id: orgId, term, concept, works }
        }),
      )
      .onConflict((conflict) =>
        conflict
          .columns(['org_id', 'term', 'concept'])
          .doUpdateSet((eb) => ({ works: eb('term_concepts.works', '+', eb.ref('excluded.works')) })),
      )
      .execute(),
  )
  const fallenTerms = terms.filter(([, delta]) => delta < 0).map(([term]) => term)
  await inChunks(fallenTerms, async (chunk) => {
    await db
      .deleteFrom('term_works')
      .where('org_id', '=', orgId)
      .where('term', 'in', chunk)
      .where('works', '<=', 0)
      .execute()
    return []
  })
  const fallenPairTerms = pairs.filter(([, delta]) => delta < 0).map(([pair]) => pair.split(' ')[0] ?? '')
  await inChunks(fallenPairTerms, async (chunk) => {
    await db
      .deleteFrom('term_concepts')
      .where('org_id', '=', orgId)
      .where('term', 'in', chunk)
      .where('works', '<=', 0)
      .execute()
    return []
  })
}

/**
 * Brings the contributions of `workIds` to what they are now (`except`: an expert about to be deleted,
 * whose claims no longer count). Returns the change in the number of counted works.
 */
export async function refreshWorkAssociations(
  db: Queryable,
  orgId: number,
  workIds: readonly number[],
  except?: number,
): Promise<number> {
  if (workIds.length === 0) return 0
  const claimed = await claimedWorks(db, orgId, workIds, except)
  const fields = new Map(
    (
      await inChunks([...claimed], (chunk) =>
        db
          .selectFrom('works')
          .select(['id', 'fields'])
          .where('org_id', '=', orgId)
          .where('id', 'in', chunk)
          .execute(),
      )
    ).map((row) => [Number(row.id), row.fields] as const),
  )
  const stored = new Map(
    (
      await inChunks(workIds, (chunk) =>
        db
          .selectFrom('meaning_works')
          .select(['work_id', 'terms', 'concepts'])
          .where('org_id', '=', orgId)
          .where('work_id', 'in', chunk)
          .execute(),
      )
    ).map((row) => [Number(row.work_id), { terms: row.terms, concepts: row.concepts }] as const),
  )
  const termDeltas = new Map<string, number>()
  const pairDeltas = new Map<string, number>()
  let works = 0
  const move = (contribution: Stored, by: number) => {
    const concepts = split(contribution.concepts)
    if (concepts.length === 0) return
    works += by
    for (const term of split(contribution.terms)) {
      termDeltas.set(term, (termDeltas.get(term) ?? 0) + by)
      for (const concept of concepts) {
        const pair = `${term} ${concept}`
        pairDeltas.set(pair, (pairDeltas.get(pair) ?? 0) + by)
      }
    }
  }
  const changed: number[] = []
  const rows: { org_id: number; work_id: number; terms: string; concepts: string }[] = []
  for (const workId of [...new Set(workIds)].sort((a, b) => a - b)) {
    const json = fields.get(workId)
    const now = json === undefined ? undefined : joined(workContribution(json))
    const before = stored.get(workId)
    if (now?.terms === before?.terms && now?.concepts === before?.concepts) continue
    changed.push(workId)
    if (before) move(before, -1)
    if (now) {
      move(now, 1)
      rows.push({ org_id: orgId, work_id: workId, ...now })
    }
  }
  if (changed.length === 0) return 0
  await inChunks(changed, async (chunk) => {
    await db.deleteFrom('meaning_works').where('org_id', '=', orgId).where('work_id', 'in', chunk).execute()
    return []
  })
  await insertBatches(rows, (batch) => db.insertInto('meaning_works').values(batch).execute())
  await moveCounts(db, orgId, termDeltas, pairDeltas)
  return works
}
