import { inChunks } from '../db/chunks.js'
import type { Queryable } from '../db/database.js'
import type { ExpertRow } from '../db/schema.js'
import { type Audience, profileVisibleSql } from '../derived/audience.js'
import { ofOrganization } from '../derived/search-index.js'

/**
 * The reads of finding by meaning, over the tables of migration 0030. Each takes the organization and
 * reads by an index that starts with it: postings by (org_id, concept | term), an expert's rows by
 * (org_id, expert_id), frequencies by (org_id, key). None reads a whole organization.
 */

export interface Totals {
  conceptExperts: number
  documents: number
  totalLength: number
  /** Claimed works with a concept: those the term–concept associations are learned from. */
  works: number
}

export async function readTotals(db: Queryable, orgId: number): Promise<Totals> {
  const row = await db
    .selectFrom('meaning_stats')
    .select(['concept_experts', 'documents', 'total_length', 'works'])
    .where('org_id', '=', orgId)
    .executeTakeFirst()
  return {
    conceptExperts: Number(row?.concept_experts ?? 0),
    documents: Number(row?.documents ?? 0),
    totalLength: Number(row?.total_length ?? 0),
    works: Number(row?.works ?? 0),
  }
}

export interface ConceptRow {
  expert_id: number
  concept: string
  label: string
  weight: number
  hidden: number
}

/** The concepts of `expertIds` (visible ones only unless `withHidden`). */
export async function readConceptsOf(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[],
  { withHidden = false }: { withHidden?: boolean } = {},
): Promise<ConceptRow[]> {
  const rows = await inChunks(expertIds, (ids) =>
    db
      .selectFrom('expert_concepts')
      .select(['expert_id', 'concept', 'label', 'weight', 'hidden'])
      .where('org_id', '=', orgId)
      .where('expert_id', 'in', ids)
      .where((eb) => (withHidden ? eb.lit(true) : eb('hidden', '=', 0)))
      .execute(),
  )
  // Fields named one by one: spreading the driver's rows costs more than the query on large candidate sets.
  return rows.map((row) => ({
    expert_id: Number(row.expert_id),
    concept: row.concept,
    label: row.label,
    weight: Number(row.weight),
    hidden: row.hidden,
  }))
}

/**
 * The visible concepts of `expertIds`, each with how many experts hold it visibly: one statement where
 * readConceptsOf and readConceptFrequencies take two, the second with every key of the first.
 */
export async function readConceptsWithFrequencies(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[],
): Promise<(ConceptRow & { df: number })[]> {
  const rows = await inChunks(expertIds, (ids) =>
    db
      .selectFrom('expert_concepts')
      .innerJoin('concept_df', (join) =>
        join
          .onRef('concept_df.org_id', '=', 'expert_concepts.org_id')
          .onRef('concept_df.concept', '=', 'expert_concepts.concept'),
      )
      .select([
        'expert_concepts.expert_id',
        'expert_concepts.concept',
        'expert_concepts.label',
        'expert_concepts.weight',
        'expert_concepts.hidden',
        'concept_df.df',
      ])
      .where('expert_concepts.org_id', '=', orgId)
      .where('expert_concepts.expert_id', 'in', ids)
      .where('expert_concepts.hidden', '=', 0)
      .execute(),
  )
  return rows.map((row) => ({
    expert_id: Number(row.expert_id),
    concept: row.concept,
    label: row.label,
    weight: Number(row.weight),
    hidden: row.hidden,
    df: Number(row.df),
  }))
}

/** How many experts have each of `keys` visibly (keys nobody has are absent). */
export async function readConceptFrequencies(
  db: Queryable,
  orgId: number,
  keys: readonly string[],
): Promise<Map<string, number>> {
  const rows = await inChunks(keys, (chunk) =>
    db
      .selectFrom('concept_df')
      .select(['concept', 'df'])
      .where('org_id', '=', orgId)
      .where('concept', 'in', chunk)
      .execute(),
  )
  return new Map(rows.map((row) => [row.concept, Number(row.df)]))
}

/** Every expert holding one of `keys` visibly, with its weight (one row per expert and key). */
export async function readConceptPostings(db: Queryable, orgId: number, keys: readonly string[]) {
  const rows = await inChunks(keys, (chunk) =>
    db
      .selectFrom('expert_concepts')
      .select(['expert_id', 'concept', 'weight'])
      .where('org_id', '=', orgId)
      .where('concept', 'in', chunk)
      .where('hidden', '=', 0)
      .execute(),
  )
  return rows.map((row) => ({
    expert_id: Number(row.expert_id),
    concept: row.concept,
    weight: Number(row.weight),
  }))
}

/** As readConceptPostings for one key, among the experts visible to `audience` (related topics). */
export async function readConceptHolders(
  db: Queryable,
  orgId: number,
  key: string,
  audience: Audience,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('expert_concepts')
    .select('expert_id')
    .where('org_id', '=', orgId)
    .where('concept', '=', key)
    .where('hidden', '=', 0)
    .where(profileVisibleSql('expert_concepts', audience))
    .orderBy('expert_id')
    .limit(limit)
    .execute()
  return rows.map((row) => Number(row.expert_id))
}

/** How many experts visible to `audience` hold each of `keys` visibly; and how many have any concept. */
export async function readVisibleConceptCounts(
  db: Queryable,
  orgId: number,
  keys: readonly string[],
  audience: Audience,
): Promise<{ counts: Map<string, number>; experts: number }> {
  const rows = await inChunks(keys, (chunk) =>
    db
      .selectFrom('expert_concepts')
      .select(['concept', (eb) => eb.fn.countAll().as('n')])
      .where('org_id', '=', orgId)
      .where('concept', 'in', chunk)
      .where('hidden', '=', 0)
      .where(profileVisibleSql('expert_concepts', audience))
      .groupBy('concept')
      .execute(),
  )
  const experts = await db
    .selectFrom('meaning_documents')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('org_id', '=', orgId)
    .where('concepts', '>', 0)
    .where(profileVisibleSql('meaning_documents', audience))
    .executeTakeFirst()
  return {
    counts: new Map(rows.map((row) => [row.concept, Number(row.n)])),
    experts: Number(experts?.n ?? 0),
  }
}

export interface TermRow {
  term: string
  word: string
  tf: number
}

export async function readTermsOf(db: Queryable, orgId: number, expertId: number): Promise<TermRow[]> {
  const rows = await db
    .selectFrom('expert_terms')
    .select(['term', 'word', 'tf'])
    .where('org_id', '=', orgId)
    .where('expert_id', '=', expertId)
    .execute()
  return rows.map((row) => ({ term: row.term, word: row.word, tf: Number(row.tf) }))
}

export async function readTermFrequencies(
  db: Queryable,
  orgId: number,
  terms: readonly string[],
): Promise<Map<string, number>> {
  const rows = await inChunks(terms, (chunk) =>
    db
      .selectFrom('term_df')
      .select(['term', 'df'])
      .where('org_id', '=', orgId)
      .where('term', 'in', chunk)
      .execute(),
  )
  return new Map(rows.map((row) => [row.term, Number(row.df)]))
}

export async function readTermPostings(db: Queryable, orgId: number, terms: readonly string[]) {
  const rows = await inChunks(terms, (chunk) =>
    db
      .selectFrom('expert_terms')
      .select(['expert_id', 'term', 'tf', 'length'])
      .where('org_id', '=', orgId)
      .where('term', 'in', chunk)
      .execute(),
  )
  return rows.map((row) => ({
    expert_id: Number(row.expert_id),
    term: row.term,
    tf: Number(row.tf),
    length: Number(row.length),
  }))
}

/**
 * How many counted works (claimed, with a concept) hold each of `terms`, and how many works its most
 * frequent (term, concept) pair has (0 when none): one seek in term_concepts_by_works (migration 0037).
 */
export async function readTermWorks(
  db: Queryable,
  orgId: number,
  terms: readonly string[],
): Promise<Map<string, { works: number; top: number }>> {
  const rows = await inChunks(terms, (chunk) =>
    db
      .selectFrom('term_works')
      .select((eb) => [
        'term_works.term',
        'term_works.works',
        eb
          .selectFrom('term_concepts')
          .select((inner) => inner.fn.max('term_concepts.works').as('top'))
          .where('term_concepts.org_id', '=', orgId)
          .whereRef('term_concepts.term', '=', 'term_works.term')
          .as('top'),
      ])
      .where('term_works.org_id', '=', orgId)
      .where('term_works.term', 'in', chunk)
      .execute(),
  )
  return new Map(rows.map((row) => [row.term, { works: Number(row.works), top: Number(row.top ?? 0) }]))
}

/**
 * The concepts that counted works holding each term have, with how many such works: for each term of
 * `least`, the pairs of at least that many works (a range of term_concepts_by_works, migration 0037).
 */
export async function readTermConcepts(db: Queryable, orgId: number, least: ReadonlyMap<string, number>) {
  const rows = await inChunks([...least.keys()], (chunk) =>
    db
      .selectFrom('term_concepts')
      .select(['term', 'concept', 'works'])
      .where('org_id', '=', orgId)
      .where((eb) =>
        eb.or(chunk.map((term) => eb.and([eb('term', '=', term), eb('works', '>=', least.get(term) ?? 0)]))),
      )
      .execute(),
  )
  return rows.map((row) => ({ term: row.term, concept: row.concept, works: Number(row.works) }))
}

/** The works `expertId` claimed that other experts claimed too: one row per other expert and work. */
export async function readCoauthoredWorks(db: Queryable, orgId: number, expertId: number) {
  const rows = await db
    .selectFrom('work_candidates as mine')
    .innerJoin('work_candidates as theirs', (join) =>
      join
        .onRef('theirs.work_id', '=', 'mine.work_id')
        .on('theirs.org_id', '=', orgId)
        .on('theirs.state', '=', 'claimed')
        .on('theirs.expert_id', '!=', expertId),
    )
    .innerJoin('works', 'works.id', 'mine.work_id')
    .select(['theirs.expert_id', 'works.id as work_id', 'works.fields', 'works.year'])
    .where('mine.org_id', '=', orgId)
    .where('mine.expert_id', '=', expertId)
    .where('mine.state', '=', 'claimed')
    .where('works.org_id', '=', orgId)
    .execute()
  return rows.map((row) => ({
    expert_id: Number(row.expert_id),
    work_id: Number(row.work_id),
    fields: row.fields,
    year: row.year === null ? null : Number(row.year),
  }))
}

/** The organization's works named by these DOIs (normalised) or PMIDs. */
export async function readWorksByIdentifiers(
  db: Queryable,
  orgId: number,
  dois: readonly string[],
  pmids: readonly string[],
) {
  if (dois.length === 0 && pmids.length === 0) return []
  return db
    .selectFrom('works')
    .select(['id', 'fields'])
    .where('org_id', '=', orgId)
    .where((eb) =>
      eb.or([
        ...(dois.length > 0 ? [eb('doi_norm', 'in', dois)] : []),
        ...(pmids.length > 0 ? [eb('pmid', 'in', pmids)] : []),
      ]),
    )
    .orderBy('id')
    .execute()
}

export interface ExpertCard {
  expert: ExpertRow
  avatar: string | null
}

/** Which of the experts `ids` `audience` may see, with their department: the narrowing before ranks are fused. */
export async function readVisibleDepartments(
  db: Queryable,
  orgId: number,
  ids: readonly number[],
  audience: Audience,
): Promise<Map<number, string | null>> {
  const rows = await inChunks(ids, (chunk) =>
    db
      .selectFrom('experts')
      .select(['id', 'department'])
      .where(ofOrganization('org_id', orgId))
      .where('id', 'in', chunk)
      .where('type', '=', 'expert')
      .where(profileVisibleSql('experts', audience))
      .execute(),
  )
  return new Map(rows.map((row) => [Number(row.id), row.department] as const))
}

/** The experts `ids` of the organization that `audience` may see, with their avatar item's data. */
export async function readVisibleExperts(
  db: Queryable,
  orgId: number,
  ids: readonly number[],
  audience: Audience,
): Promise<Map<number, ExpertCard>> {
  const experts = await inChunks(ids, (chunk) =>
    db
      .selectFrom('experts')
      .selectAll()
      .where(ofOrganization('org_id', orgId))
      .where('id', 'in', chunk)
      .where('type', '=', 'expert')
      .where(profileVisibleSql('experts', audience))
      .execute(),
  )
  const avatars = await inChunks(
    experts.map((expert) => expert.id),
    (chunk) =>
      db
        .selectFrom('profile_items')
        .select(['expert_id', 'data'])
        .where(ofOrganization('org_id', orgId))
        .where('expert_id', 'in', chunk)
        .where('section', '=', 'avatar')
        .execute(),
  )
  const avatarOf = new Map(avatars.map((row) => [Number(row.expert_id), row.data]))
  return new Map(
    experts.map((expert) => [expert.id, { expert, avatar: avatarOf.get(expert.id) ?? null }] as const),
  )
}
