import { inChunks, insertInChunks } from '../../db/chunks.js'
import type { Queryable } from '../../db/database.js'
import type { SectionName } from '../../db/sections.js'
import { ofOrganization } from '../search-index.js'
import { candidateWorksOf, refreshWorkAssociations } from './associations.js'
import { type ClaimedWork, fingerprintOf, type ProfileItem } from './fingerprint.js'

/**
 * Keeping the meaning tables (migration 0030) current: the change hub calls `refreshMeaning` with the
 * experts a write changed, `removeMeaning` before an expert's delete; the search rebuild calls
 * `rebuildMeaning`. Each recomputes the experts' rows from the tables (it trusts no caller's idea of
 * what changed) and moves the organization's document frequencies and totals by the difference, so a
 * write costs in proportion to the experts it changed, never to the organization. The works an expert
 * holds a candidacy for move the term–concept associations (associations.ts). Rebuilding from empty
 * gives the same rows as any sequence of writes.
 */

const SECTIONS: SectionName[] = ['topic', 'tag', 'industry', 'tagline', 'biography']
const BATCH = 500

function grouped<T extends { expert_id: number }>(rows: readonly T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const row of rows) {
    const id = Number(row.expert_id)
    const group = groups.get(id)
    if (group) group.push(row)
    else groups.set(id, [row])
  }
  return groups
}

/** Adds `deltas` (key → change) to a document-frequency table; drops the keys that reach zero. */
async function moveFrequencies(
  db: Queryable,
  orgId: number,
  table: 'concept_df' | 'term_df',
  deltas: Map<string, number>,
): Promise<void> {
  const changed = [...deltas]
    .filter(([, delta]) => delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  if (changed.length === 0) return
  if (table === 'concept_df') {
    const rows = changed.map(([concept, df]) => ({ org_id: orgId, concept, df }))
    await insertInChunks(db, rows, (batch) =>
      db
        .insertInto('concept_df')
        .values(batch)
        .onConflict((conflict) =>
          conflict
            .columns(['org_id', 'concept'])
            .doUpdateSet((eb) => ({ df: eb('concept_df.df', '+', eb.ref('excluded.df')) })),
        )
        .execute(),
    )
    await inChunks(
      changed.filter(([, delta]) => delta < 0).map(([key]) => key),
      async (keys) => {
        await db
          .deleteFrom('concept_df')
          .where('org_id', '=', orgId)
          .where('concept', 'in', keys)
          .where('df', '<=', 0)
          .execute()
        return []
      },
    )
    return
  }
  const rows = changed.map(([term, df]) => ({ org_id: orgId, term, df }))
  await insertInChunks(db, rows, (batch) =>
    db
      .insertInto('term_df')
      .values(batch)
      .onConflict((conflict) =>
        conflict
          .columns(['org_id', 'term'])
          .doUpdateSet((eb) => ({ df: eb('term_df.df', '+', eb.ref('excluded.df')) })),
      )
      .execute(),
  )
  await inChunks(
    changed.filter(([, delta]) => delta < 0).map(([key]) => key),
    async (keys) => {
      await db
        .deleteFrom('term_df')
        .where('org_id', '=', orgId)
        .where('term', 'in', keys)
        .where('df', '<=', 0)
        .execute()
      return []
    },
  )
}

interface Totals {
  concept_experts: number
  documents: number
  total_length: number
  works: number
}

async function moveTotals(db: Queryable, orgId: number, delta: Totals): Promise<void> {
  await db
    .insertInto('meaning_stats')
    .values({ org_id: orgId, ...delta })
    .onConflict((conflict) =>
      conflict.column('org_id').doUpdateSet((eb) => ({
        concept_experts: eb('meaning_stats.concept_experts', '+', eb.ref('excluded.concept_experts')),
        documents: eb('meaning_stats.documents', '+', eb.ref('excluded.documents')),
        total_length: eb('meaning_stats.total_length', '+', eb.ref('excluded.total_length')),
        works: eb('meaning_stats.works', '+', eb.ref('excluded.works')),
      })),
    )
    .execute()
}

const bump = (map: Map<string, number>, key: string, by: number) => map.set(key, (map.get(key) ?? 0) + by)

/** Takes the experts' rows out, returning what they counted for (to be subtracted). */
async function takeOut(
  db: Queryable,
  orgId: number,
  ids: number[],
  conceptDeltas: Map<string, number>,
  termDeltas: Map<string, number>,
  totals: Totals,
): Promise<void> {
  const documents = await db
    .selectFrom('meaning_documents')
    .select(['concepts', 'length'])
    .where('org_id', '=', orgId)
    .where('expert_id', 'in', ids)
    .execute()
  for (const document of documents) {
    if (document.concepts > 0) totals.concept_experts--
    if (document.length > 0) totals.documents--
    totals.total_length -= Number(document.length)
  }
  for (const row of await db
    .selectFrom('expert_concepts')
    .select('concept')
    .where('org_id', '=', orgId)
    .where('expert_id', 'in', ids)
    .where('hidden', '=', 0)
    .execute())
    bump(conceptDeltas, row.concept, -1)
  for (const row of await db
    .selectFrom('expert_terms')
    .select('term')
    .where('org_id', '=', orgId)
    .where('expert_id', 'in', ids)
    .execute())
    bump(termDeltas, row.term, -1)
  for (const table of ['meaning_documents', 'expert_concepts', 'expert_terms'] as const)
    await db.deleteFrom(table).where('org_id', '=', orgId).where('expert_id', 'in', ids).execute()
}

export interface MeaningInputs {
  /** The experts among the ids asked for (not staff, not gone), by id. */
  experts: { id: number; is_published: number; is_private: number }[]
  items: Map<number, (ProfileItem & { expert_id: number })[]>
  works: Map<number, (ClaimedWork & { expert_id: number })[]>
  hidden: Map<number, { expert_id: number; concept: string }[]>
}

/** What an expert's fingerprint and texts are computed from: its profile items, claimed works and hidden concepts. */
export async function readMeaningInputs(
  db: Queryable,
  orgId: number,
  ids: readonly number[],
): Promise<MeaningInputs> {
  const experts = await db
    .selectFrom('experts')
    .select(['id', 'is_published', 'is_private'])
    .where(ofOrganization('org_id', orgId))
    .where('id', 'in', ids)
    .where('type', '=', 'expert')
    .orderBy('id')
    .execute()
  const present = experts.map((expert) => expert.id)
  if (present.length === 0) return { experts, items: new Map(), works: new Map(), hidden: new Map() }
  const items = grouped<ProfileItem & { expert_id: number }>(
    await db
      .selectFrom('profile_items')
      .select(['expert_id', 'section', 'data'])
      .where(ofOrganization('org_id', orgId))
      .where('expert_id', 'in', present)
      .where('section', 'in', SECTIONS)
      .orderBy('expert_id')
      .orderBy('section')
      .orderBy('position')
      .execute(),
  )
  const works = grouped<ClaimedWork & { expert_id: number }>(
    await db
      .selectFrom('work_candidates')
      .innerJoin('works', 'works.id', 'work_candidates.work_id')
      .select(['work_candidates.expert_id', 'works.fields', 'works.year'])
      .where('work_candidates.org_id', '=', orgId)
      .where('works.org_id', '=', orgId)
      .where('work_candidates.expert_id', 'in', present)
      .where('work_candidates.state', '=', 'claimed')
      .orderBy('work_candidates.expert_id')
      .orderBy('works.id')
      .execute(),
  )
  const hidden = grouped(
    await db
      .selectFrom('hidden_concepts')
      .select(['expert_id', 'concept'])
      .where('org_id', '=', orgId)
      .where('expert_id', 'in', present)
      .execute(),
  )
  return { experts, items, works, hidden }
}

async function refreshBatch(db: Queryable, orgId: number, ids: number[], now: number): Promise<void> {
  const conceptDeltas = new Map<string, number>()
  const termDeltas = new Map<string, number>()
  const totals: Totals = { concept_experts: 0, documents: 0, total_length: 0, works: 0 }
  await takeOut(db, orgId, ids, conceptDeltas, termDeltas, totals)

  const { experts, items, works, hidden } = await readMeaningInputs(db, orgId, ids)
  if (experts.length > 0) {
    const documentRows = []
    const conceptRows = []
    const termRows = []
    for (const expert of experts) {
      const hiddenKeys = new Set((hidden.get(expert.id) ?? []).map((row) => row.concept))
      const fingerprint = fingerprintOf(
        items.get(expert.id) ?? [],
        works.get(expert.id) ?? [],
        hiddenKeys,
        now,
      )
      const flags = { is_published: expert.is_published, is_private: expert.is_private }
      const visible = fingerprint.concepts.filter((concept) => !concept.hidden)
      documentRows.push({
        org_id: orgId,
        expert_id: expert.id,
        ...flags,
        concepts: visible.length,
        length: fingerprint.length,
      })
      if (visible.length > 0) totals.concept_experts++
      if (fingerprint.length > 0) totals.documents++
      totals.total_length += fingerprint.length
      for (const concept of fingerprint.concepts) {
        conceptRows.push({
          org_id: orgId,
          expert_id: expert.id,
          concept: concept.concept,
          label: concept.label,
          weight: concept.weight,
          hidden: concept.hidden ? 1 : 0,
          ...flags,
        })
        if (!concept.hidden) bump(conceptDeltas, concept.concept, 1)
      }
      for (const term of fingerprint.terms) {
        termRows.push({
          org_id: orgId,
          expert_id: expert.id,
          term: term.term,
          word: term.word,
          tf: term.tf,
          length: fingerprint.length,
        })
        bump(termDeltas, term.term, 1)
      }
    }
    await insertInChunks(db, documentRows, (batch) =>
      db.insertInto('meaning_documents').values(batch).execute(),
    )
    await insertInChunks(db, conceptRows, (batch) => db.insertInto('expert_concepts').values(batch).execute())
    await insertInChunks(db, termRows, (batch) => db.insertInto('expert_terms').values(batch).execute())
  }
  await moveFrequencies(db, orgId, 'concept_df', conceptDeltas)
  await moveFrequencies(db, orgId, 'term_df', termDeltas)
  totals.works += await refreshWorkAssociations(db, orgId, await candidateWorksOf(db, orgId, ids))
  await moveTotals(db, orgId, totals)
}

/** Recomputes the meaning rows of `expertIds` (experts gone or turned staff leave the tables). */
export async function refreshMeaning(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[],
  now: number,
): Promise<void> {
  const ids = [...new Set(expertIds)].sort((a, b) => a - b)
  for (let i = 0; i < ids.length; i += BATCH) await refreshBatch(db, orgId, ids.slice(i, i + BATCH), now)
}

/** Takes an expert out of the meaning tables: call it before the expert's delete. */
export async function removeMeaning(db: Queryable, orgId: number, expertId: number): Promise<void> {
  const conceptDeltas = new Map<string, number>()
  const termDeltas = new Map<string, number>()
  const totals: Totals = { concept_experts: 0, documents: 0, total_length: 0, works: 0 }
  await takeOut(db, orgId, [expertId], conceptDeltas, termDeltas, totals)
  await moveFrequencies(db, orgId, 'concept_df', conceptDeltas)
  await moveFrequencies(db, orgId, 'term_df', termDeltas)
  totals.works += await refreshWorkAssociations(
    db,
    orgId,
    await candidateWorksOf(db, orgId, [expertId]),
    expertId,
  )
  await moveTotals(db, orgId, totals)
}

/** Recomputes every meaning row of an organization from empty (the search rebuild). */
export async function rebuildMeaning(db: Queryable, orgId: number, now: number): Promise<void> {
  for (const table of [
    'meaning_documents',
    'expert_concepts',
    'expert_terms',
    'concept_df',
    'term_df',
    'meaning_works',
    'term_concepts',
    'term_works',
    'meaning_stats',
  ] as const)
    await db.deleteFrom(table).where('org_id', '=', orgId).execute()
  for (let after = 0; ; ) {
    const ids = (
      await db
        .selectFrom('experts')
        .select('id')
        .where('org_id', '=', orgId)
        .where('type', '=', 'expert')
        .where('id', '>', after)
        .orderBy('id')
        .limit(BATCH)
        .execute()
    ).map((row) => Number(row.id))
    const last = ids.at(-1)
    if (last === undefined) break
    await refreshBatch(db, orgId, ids, now)
    after = last
  }
}
