import { type RawBuilder, type SqlBool, sql } from 'kysely'
import { CONTENT_KINDS, type ContentKind, type TaggingTable } from '../db/content-kinds.js'
import type { DialectName, Queryable } from '../db/database.js'
import type { ProfileType } from '../db/schema.js'
import { type Audience, profileVisibleSql } from '../derived/audience.js'
import { fuzzyQueryKey, nameLikeness, trigramsOf } from '../derived/name-similarity.js'
import { ofOrganization } from '../derived/search-index.js'
import { fts5Query, tsQuery } from '../derived/search-text.js'
import type { ExpertFacet } from './schemas.js'

/**
 * Search queries. Every statement starts from an index table filtered by the organization, and every
 * subquery that reaches another table filters by the organization too, so another organization's
 * rows can enter neither a result nor a count.
 */

type Condition = RawBuilder<SqlBool>
const and = (conditions: Condition[]) => sql<SqlBool>`${sql.join(conditions, sql` and `)}`

/** A facet key; ties in counts break by it, byte-wise on both databases. */
const keyOf = (dialect: DialectName, expression: RawBuilder<unknown>) =>
  dialect === 'postgres' ? sql`${expression} collate "C"` : expression

export interface Bucket<K = string> {
  key: K
  count: number
}

const toBuckets = <K>(rows: { key: K; count: number | string }[]): Bucket<K>[] =>
  rows.map((row) => ({ key: row.key, count: Number(row.count) }))

const FACET_LIMIT = 50

export interface TextQuery {
  terms: string[]
  /** Restrict to first and last names. */
  namesOnly?: boolean
}

export interface Paging {
  limit: number
  offset: number
}

// ---------------------------------------------------------------------------------------------
// Experts

export interface ExpertCriteria {
  /** The kinds of profile searched: experts for the expert search, staff members or both for the profile lists. */
  types: readonly ProfileType[]
  text?: TextQuery
  access: 'public' | 'private' | 'all'
  status: 'all' | 'published' | 'unpublished'
  /** Lower-cased values per facet; OR within a facet, AND across. */
  facets: Partial<Record<ExpertFacet, string[]>>
  /** Lower-cased company names. */
  companies: string[]
}

export type ExpertSort = 'relevance' | 'name' | 'modified' | 'featured'

const flagConditions = (alias: string, criteria: ExpertCriteria): Condition[] => {
  const conditions: Condition[] = []
  const column = (name: string) => sql.ref(`${alias}.${name}`)
  if (criteria.access !== 'all')
    conditions.push(sql`${column('is_private')} = ${criteria.access === 'private' ? 1 : 0}`)
  if (criteria.status !== 'all')
    conditions.push(sql`${column('is_published')} = ${criteria.status === 'published' ? 1 : 0}`)
  return conditions
}

/** A profile whose name is like the query's words (src/derived/name-similarity.ts), and how alike. */
export interface NameMatch {
  expertId: number
  similarity: number
}

/** The most names matched by likeness in one search: the likeliest, which the statements list by id. */
const MAX_NAME_MATCHES = 500

/**
 * The profiles within the criteria's types, access and status whose first and last name is like the
 * query (typos and accents forgiven), likeliest first. The database finds the names that share a
 * trigram with it (PostgreSQL: pg_trgm's `%`, at its own threshold; SQLite: the trigram FTS table);
 * the similarity computed here decides, so both databases match and order alike. Facets and companies
 * are left to the search statement that takes these ids.
 */
export async function findNamesLike(
  db: Queryable,
  dialect: DialectName,
  orgId: number,
  criteria: ExpertCriteria,
): Promise<NameMatch[]> {
  const key = criteria.text && fuzzyQueryKey(criteria.text.terms.join(' '))
  if (!key) return []
  const trigrams = trigramsOf(key)
  const conditions = and([
    sql`s.org_id = ${orgId}`,
    sql`s.type in (${sql.join(criteria.types)})`,
    ...flagConditions('s', criteria),
  ])
  const match = [...trigrams].map((trigram) => `"${trigram}"`).join(' OR ')
  const query =
    dialect === 'postgres'
      ? sql<{ expert_id: number | string; name_key: string | null }>`select s.expert_id, s.name_key
          from expert_search s where s.name_key % ${key} and ${conditions}`
      : sql<{ expert_id: number | string; name_key: string | null }>`select s.expert_id, s.name_key
          from expert_name_trigrams t join expert_search s on s.expert_id = t.rowid
          where expert_name_trigrams match ${match} and ${conditions}`
  const { rows } = await query.execute(db)
  const matches: NameMatch[] = []
  for (const row of rows) {
    const similarity = nameLikeness(key, row.name_key ?? '')
    if (similarity !== undefined) matches.push({ expertId: Number(row.expert_id), similarity })
  }
  matches.sort((a, b) => b.similarity - a.similarity || a.expertId - b.expertId)
  return matches.slice(0, MAX_NAME_MATCHES)
}

/** The text match alone (the words, as the full-text index finds them). */
function expertTextMatch(dialect: DialectName, text: TextQuery): Condition {
  if (dialect === 'postgres') return sql`s.document @@ (${tsQuery(text.terms, text.namesOnly ? 'A' : '')})`
  const match = fts5Query(text.terms, text.namesOnly ? 'names' : undefined)
  return sql`s.expert_id in (select rowid from expert_search_fts where expert_search_fts match ${match})`
}

/** `s` is one of the names matched by likeness. */
const isNameMatch = (names: readonly NameMatch[]) =>
  sql<SqlBool>`s.expert_id in (${sql.join(names.map((name) => name.expertId))})`

function expertTextCondition(dialect: DialectName, text: TextQuery, names: readonly NameMatch[]): Condition {
  const exact = expertTextMatch(dialect, text)
  return names.length === 0 ? exact : sql<SqlBool>`(${exact} or ${isNameMatch(names)})`
}

/** Orders the names matched by likeness: likeliest first, equally alike ones together (the tie-breaks follow). */
function likenessRank(names: readonly NameMatch[]): RawBuilder<number> {
  let rank = 0
  const whens = names.map((name, i) => {
    if (i > 0 && name.similarity !== names[i - 1]?.similarity) rank = i
    // Literals: the ids and ranks are numbers made here, and PostgreSQL would type untyped parameters as text.
    return sql`when ${sql.lit(name.expertId)} then ${sql.lit(rank)}`
  })
  return sql<number>`case s.expert_id ${sql.join(whens, sql` `)} else ${sql.lit(names.length)} end`
}

/**
 * The conditions on `expert_search s` of a search; `omit` leaves out one facet's filter (its own
 * counts); `names` are the names matched by likeness, found by the text as well as its words.
 */
function expertConditions(
  dialect: DialectName,
  orgId: number,
  criteria: ExpertCriteria,
  options: { omit?: ExpertFacet; withText?: boolean; names?: readonly NameMatch[] } = {},
): Condition[] {
  const conditions: Condition[] = [
    sql`s.org_id = ${orgId}`,
    sql`s.type in (${sql.join(criteria.types)})`,
    ...flagConditions('s', criteria),
  ]
  if (criteria.text && options.withText !== false)
    conditions.push(expertTextCondition(dialect, criteria.text, options.names ?? []))
  for (const [facet, values] of Object.entries(criteria.facets)) {
    if (facet === options.omit || !values || values.length === 0) continue
    conditions.push(sql`s.expert_id in (select expert_id from expert_facets
      where org_id = ${orgId} and facet = ${facet} and value_key in (${sql.join(values)}))`)
  }
  if (criteria.companies.length > 0) conditions.push(sql`s.company_key in (${sql.join(criteria.companies)})`)
  return conditions
}

const NAME_ORDER = sql`s.sort_last, s.sort_first, s.username`

/** One page of matching expert ids, in the requested order. */
export async function searchExpertIds(
  db: Queryable,
  dialect: DialectName,
  orgId: number,
  criteria: ExpertCriteria,
  sort: ExpertSort,
  page: Paging,
): Promise<number[]> {
  const limit = sql`limit ${page.limit} offset ${page.offset}`
  const names = await findNamesLike(db, dialect, orgId, criteria)
  let query: RawBuilder<{ expert_id: number }>
  if (sort === 'relevance' && criteria.text && dialect === 'sqlite') {
    // bm25 weights follow the FTS columns: names, title, tagline, keywords, biography.
    const match = fts5Query(criteria.text.terms, criteria.text.namesOnly ? 'names' : undefined)
    const conditions = expertConditions(dialect, orgId, criteria, { withText: false })
    const bm25 = sql`bm25(expert_search_fts, 10.0, 5.0, 3.0, 3.0, 1.0)`
    query =
      names.length === 0
        ? sql`select s.expert_id from expert_search_fts
          join expert_search s on s.expert_id = expert_search_fts.rowid
          where expert_search_fts match ${match} and ${and(conditions)}
          order by ${bm25}, ${NAME_ORDER} ${limit}`
        : // The text's matches first, by bm25, then the names matched only by likeness.
          sql`with f as materialized (select rowid as expert_id, ${bm25} as score
            from expert_search_fts where expert_search_fts match ${match})
          select s.expert_id from expert_search s left join f on f.expert_id = s.expert_id
          where ${and(conditions)} and (f.expert_id is not null or ${isNameMatch(names)})
          order by f.expert_id is null, f.score,
            case when f.expert_id is null then ${likenessRank(names)} else 0 end, ${NAME_ORDER} ${limit}`
  } else {
    const conditions = expertConditions(dialect, orgId, criteria, { names })
    const textOrder = (text: TextQuery) => {
      const words = tsQuery(text.terms, text.namesOnly ? 'A' : '')
      if (names.length === 0) return sql`ts_rank(s.document, ${words}) desc, ${NAME_ORDER}`
      // The text's matches first, by rank, then the names matched only by likeness.
      const exact = sql`s.document @@ (${words})`
      return sql`${exact} desc, case when ${exact} then ts_rank(s.document, ${words}) else 0 end desc,
        case when ${exact} then 0 else ${likenessRank(names)} end, ${NAME_ORDER}`
    }
    const order =
      sort === 'relevance' && criteria.text
        ? textOrder(criteria.text)
        : sort === 'modified'
          ? sql`s.modified desc, s.expert_id desc`
          : sort === 'featured'
            ? sql`s.completeness desc, ${NAME_ORDER}`
            : NAME_ORDER
    query = sql`select s.expert_id from expert_search s where ${and(conditions)} order by ${order} ${limit}`
  }
  const { rows } = await query.execute(db)
  return rows.map((row) => Number(row.expert_id))
}

/** Counts over every value of a facet, from the counter table: for a facet whose matches are narrowed by access and status only. */
async function countFacetFromCounters(
  db: Queryable,
  dialect: DialectName,
  orgId: number,
  criteria: ExpertCriteria,
  facet: ExpertFacet,
): Promise<Bucket[]> {
  const conditions: Condition[] = [
    sql`c.org_id = ${orgId}`,
    sql`c.facet = ${facet}`,
    ...flagConditions('c', criteria),
  ]
  const { rows } = await sql<{ key: string; total_count: number | string }>`
    select c.value_key, min(${keyOf(dialect, sql`c.value`)}) as key, sum(c.count) as total_count
    from expert_facet_counts c where ${and(conditions)}
    group by c.value_key having sum(c.count) > 0
    order by total_count desc, key limit ${FACET_LIMIT}`.execute(db)
  return rows.map((row) => ({ key: row.key, count: Number(row.total_count) }))
}

const byCountThenKey = (a: Bucket, b: Bucket) =>
  b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)

/**
 * The exact total and every facet's counts. Facets narrowed by more than access and status read the
 * match set from one statement whose common table expressions are each evaluated once: `m`, all the
 * filters, serves the total and the unfiltered facets; a filtered facet gets its own set without its
 * filter (the disjunctive rule). The other facets read the counter table.
 */
export async function countExpertMatches(
  db: Queryable,
  dialect: DialectName,
  orgId: number,
  criteria: ExpertCriteria,
  facets: readonly ExpertFacet[],
): Promise<{ total: number; aggregations: Record<ExpertFacet, Bucket[]> }> {
  const filtered = (facet: ExpertFacet) => (criteria.facets[facet]?.length ?? 0) > 0
  const narrowed = (facet: ExpertFacet) =>
    criteria.text !== undefined ||
    criteria.companies.length > 0 ||
    facets.some((other) => other !== facet && filtered(other))
  const names = await findNamesLike(db, dialect, orgId, criteria)
  const matchSet = (omit?: ExpertFacet) =>
    sql`select s.expert_id from expert_search s where ${and(expertConditions(dialect, orgId, criteria, { names, ...(omit ? { omit } : {}) }))}`
  // SQLite's CROSS JOIN keeps the match set as the outer loop (facet rows found by key, not scanned).
  const matchJoin = dialect === 'sqlite' ? sql`cross join` : sql`,`
  const ctes = [sql`m as materialized (${matchSet()})`]
  const branches = [sql`select 'total' as facet, '' as value_key, '' as key, count(*) as n from m`]
  const fromCounters: ExpertFacet[] = []
  for (const facet of facets) {
    if (!narrowed(facet)) {
      fromCounters.push(facet)
      continue
    }
    const source = filtered(facet) ? `m_${facet}` : 'm'
    if (source !== 'm') ctes.push(sql`${sql.id(source)} as materialized (${matchSet(facet)})`)
    branches.push(sql`select * from (select ${sql.lit(facet)} as facet, f.value_key,
      min(${keyOf(dialect, sql`f.value`)}) as key, count(*) as n
      from ${sql.table(source)} x ${matchJoin} expert_facets f
      where f.expert_id = x.expert_id and ${ofOrganization('f.org_id', orgId)} and f.facet = ${facet}
      group by f.value_key order by n desc, key limit ${FACET_LIMIT}) as ${sql.id(`top_${facet}`)}`)
  }
  const [{ rows }, ...counted] = await Promise.all([
    sql<{
      facet: string
      key: string
      n: number | string
    }>`with ${sql.join(ctes)} ${sql.join(branches, sql` union all `)}`.execute(db),
    ...fromCounters.map((facet) => countFacetFromCounters(db, dialect, orgId, criteria, facet)),
  ])
  // Every facet has its list; those not asked for stay empty.
  const aggregations: Record<ExpertFacet, Bucket[]> = {
    countries: [],
    topics: [],
    industries: [],
    categories: [],
    tags: [],
    interview_languages: [],
    media_available: [],
  }
  let total = 0
  for (const row of rows) {
    if (row.facet === 'total') total = Number(row.n)
    else {
      const facet = facets.find((name) => name === row.facet)
      if (facet) aggregations[facet].push({ key: row.key, count: Number(row.n) })
    }
  }
  fromCounters.forEach((facet, i) => {
    aggregations[facet] = counted[i] ?? []
  })
  for (const facet of facets) aggregations[facet].sort(byCountThenKey)
  return { total, aggregations }
}

/** The items a list entry shows: topics, avatar, tagline. */
export async function readListItems(db: Queryable, orgId: number, expertIds: number[]) {
  if (expertIds.length === 0) return []
  return db
    .selectFrom('profile_items')
    .select(['expert_id', 'section', 'data'])
    .where(ofOrganization('org_id', orgId))
    .where('expert_id', 'in', expertIds)
    .where('section', 'in', ['topic', 'avatar', 'tagline'])
    .orderBy('expert_id')
    .orderBy('section')
    .orderBy('position')
    .execute()
}

// ---------------------------------------------------------------------------------------------
// Posts and questions

export interface ContentCriteria {
  text?: TextQuery
  /** Who searches: the people filter and facet reach only the experts it may see. */
  audience: Audience
  status: 'all' | 'published' | 'unpublished'
  /** Lower-cased tag names. */
  tags: string[]
  /** Usernames: tagged experts (posts) or answering experts (questions). */
  people: string[]
  year?: number
  month?: number
}

/** What differs between post search and question search: where each kind is stored, and how it ranks. */
interface ContentIndex {
  table: (typeof CONTENT_KINDS)[ContentKind]['search']['table']
  key: (typeof CONTENT_KINDS)[ContentKind]['search']['key']
  /** bm25 weights of the FTS columns, in column order. */
  bm25: string
  /** PostgreSQL's ts_rank weights of the setweight letters, in its order: D, C, B, A. */
  rankWeights: string
  /**
   * Where the public's words may match, when not everywhere: FTS5 columns (a column filter) and
   * PostgreSQL setweight letters. The other columns hold what only `read` sees.
   */
  publicText?: { columns: string; weights: string }
  tagTable: TaggingTable
  /** The table linking an item to experts and its item column. */
  people: (typeof CONTENT_KINDS)[ContentKind]['people']
}

/** A kind's tables, as src/db/content-kinds.ts names them. */
const storedAs = (kind: ContentKind) => ({
  table: CONTENT_KINDS[kind].search.table,
  key: CONTENT_KINDS[kind].search.key,
  tagTable: CONTENT_KINDS[kind].taggings,
  people: CONTENT_KINDS[kind].people,
})

/** Each content kind's index. */
export const CONTENT_INDEXES: Record<ContentKind, ContentIndex> = {
  spotlight: { ...storedAs('spotlight'), bm25: '10.0, 1.0', rankWeights: '{0.1, 0.2, 0.4, 1.0}' },
  question: {
    ...storedAs('question'),
    // Hidden experts' answers (setweight B) rank as the others' (D).
    bm25: '10.0, 3.0, 1.0, 1.0',
    rankWeights: '{0.1, 0.2, 0.1, 1.0}',
    publicText: { columns: '{question details answers}', weights: 'ACD' },
  },
}

type ContentFacet = 'tags' | 'people' | 'year'

/** The FTS5 match and the PostgreSQL tsquery of a content search's words, within what its audience may search. */
function contentText(index: ContentIndex, criteria: ContentCriteria, text: TextQuery) {
  const within = criteria.audience === 'public' ? index.publicText : undefined
  return { match: fts5Query(text.terms, within?.columns), query: tsQuery(text.terms, within?.weights) }
}

function contentConditions(
  dialect: DialectName,
  index: ContentIndex,
  orgId: number,
  criteria: ContentCriteria,
  omit?: ContentFacet,
): Condition[] {
  const key = sql.ref(`s.${index.key}`)
  const conditions: Condition[] = [sql`s.org_id = ${orgId}`]
  if (criteria.status !== 'all')
    conditions.push(sql`s.published = ${criteria.status === 'published' ? 1 : 0}`)
  if (criteria.text) {
    const fts = `${index.table}_fts`
    const { match, query } = contentText(index, criteria, criteria.text)
    conditions.push(
      dialect === 'postgres'
        ? sql`s.document @@ (${query})`
        : sql`${key} in (select rowid from ${sql.table(fts)} where ${sql.table(fts)} match ${match})`,
    )
  }
  if (omit !== 'tags' && criteria.tags.length > 0)
    conditions.push(sql`${key} in (select g.owner_id from ${sql.table(index.tagTable)} g
      join content_tags t on t.id = g.content_tag_id
      where t.org_id = ${orgId} and t.name_key in (${sql.join(criteria.tags)}))`)
  if (omit !== 'people' && criteria.people.length > 0)
    conditions.push(sql`${key} in (select p.${sql.ref(index.people.owner)} from ${sql.table(index.people.table)} p
      join experts e on e.id = p.expert_id
      where e.org_id = ${orgId} and e.username in (${sql.join(criteria.people)})
      and ${profileVisibleSql('e', criteria.audience)})`)
  if (omit !== 'year' && criteria.year !== undefined) {
    conditions.push(sql`s.year = ${criteria.year}`)
    if (criteria.month !== undefined) conditions.push(sql`s.month = ${criteria.month}`)
  }
  return conditions
}

/** One page of matching ids: by relevance with text, else newest first. */
export async function searchContentIds(
  db: Queryable,
  dialect: DialectName,
  index: ContentIndex,
  orgId: number,
  criteria: ContentCriteria,
  page: Paging,
): Promise<number[]> {
  const key = sql.ref(`s.${index.key}`)
  const newest = sql`s.sort_date desc, ${key} desc`
  const conditions = and(contentConditions(dialect, index, orgId, criteria))
  const limit = sql`limit ${page.limit} offset ${page.offset}`
  let query: RawBuilder<{ id: number }>
  const text = criteria.text && contentText(index, criteria, criteria.text)
  if (text && dialect === 'sqlite') {
    const fts = sql.table(`${index.table}_fts`)
    query = sql`select ${key} as id from ${fts} join ${sql.table(index.table)} s on ${key} = ${fts}.rowid
      where ${fts} match ${text.match} and ${conditions}
      order by bm25(${fts}, ${sql.raw(index.bm25)}), ${newest} ${limit}`
  } else {
    const order = text
      ? sql`ts_rank(${index.rankWeights}::float4[], s.document, ${text.query}) desc, ${newest}`
      : newest
    query = sql`select ${key} as id from ${sql.table(index.table)} s where ${conditions} order by ${order} ${limit}`
  }
  const { rows } = await query.execute(db)
  return rows.map((row) => Number(row.id))
}

export async function countContent(
  db: Queryable,
  dialect: DialectName,
  index: ContentIndex,
  orgId: number,
  criteria: ContentCriteria,
): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(index.table)} s
    where ${and(contentConditions(dialect, index, orgId, criteria))}`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/** Facet counts over the matches, each ignoring its own filter: tags, people (usernames), year. */
export async function countContentFacets(
  db: Queryable,
  dialect: DialectName,
  index: ContentIndex,
  orgId: number,
  criteria: ContentCriteria,
): Promise<{ tags: Bucket[]; people: Bucket[]; year: Bucket<number>[] }> {
  const key = sql.ref(`s.${index.key}`)
  const tail = sql`order by count desc, key limit ${FACET_LIMIT}`
  const where = (omit: ContentFacet) => and(contentConditions(dialect, index, orgId, criteria, omit))
  const [tags, people, year] = await Promise.all([
    sql<{ key: string; count: number }>`select ${keyOf(dialect, sql`t.name`)} as key, count(*) as count
      from ${sql.table(index.tagTable)} g
      join content_tags t on t.id = g.content_tag_id
      join ${sql.table(index.table)} s on ${key} = g.owner_id
      where t.org_id = ${orgId} and ${where('tags')}
      group by t.id, t.name ${tail}`.execute(db),
    sql<{
      key: string
      count: number
    }>`select ${keyOf(dialect, sql`e.username`)} as key, count(distinct ${key}) as count
      from ${sql.table(index.people.table)} p
      join experts e on e.id = p.expert_id
      join ${sql.table(index.table)} s on ${key} = p.${sql.ref(index.people.owner)}
      where e.org_id = ${orgId} and ${profileVisibleSql('e', criteria.audience)} and ${where('people')}
      group by e.username ${tail}`.execute(db),
    sql<{ key: number; count: number }>`select s.year as key, count(*) as count
      from ${sql.table(index.table)} s where ${where('year')}
      group by s.year order by count desc, s.year limit ${FACET_LIMIT}`.execute(db),
  ])
  return {
    tags: toBuckets(tags.rows),
    people: toBuckets(people.rows),
    year: toBuckets(year.rows).map((bucket) => ({ ...bucket, key: Number(bucket.key) })),
  }
}

export async function readSpotlightsByIds(db: Queryable, orgId: number, ids: number[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('spotlights')
    .select(['id', 'title', 'html', 'featured_image', 'published', 'published_at', 'created_at'])
    .where(ofOrganization('org_id', orgId))
    .where('id', 'in', ids)
    .execute()
}

export async function readQuestionsByIds(db: Queryable, orgId: number, ids: number[]) {
  if (ids.length === 0) return []
  return db
    .selectFrom('questions')
    .select(['id', 'question', 'published', 'published_at', 'created_at'])
    .where(ofOrganization('org_id', orgId))
    .where('id', 'in', ids)
    .execute()
}

/** Tags of the listed items, in each item's order. */
export async function readTagsOf(db: Queryable, orgId: number, kind: ContentKind, ownerIds: number[]) {
  if (ownerIds.length === 0) return []
  const table = CONTENT_KINDS[kind].taggings
  return db
    .selectFrom(table)
    .innerJoin('content_tags', 'content_tags.id', `${table}.content_tag_id`)
    .select([`${table}.owner_id as owner_id`, 'content_tags.id as id', 'content_tags.name as tag'])
    .where('content_tags.org_id', '=', orgId)
    .where(`${table}.owner_id`, 'in', ownerIds)
    .orderBy(`${table}.owner_id`)
    .orderBy(`${table}.position`)
    .execute()
}

/** Experts `audience` may see tagged in the listed posts, in each post's order. */
export async function readTaggedExpertsOf(
  db: Queryable,
  orgId: number,
  spotlightIds: number[],
  audience: Audience,
) {
  if (spotlightIds.length === 0) return []
  return db
    .selectFrom('spotlight_experts')
    .innerJoin('experts', 'experts.id', 'spotlight_experts.expert_id')
    .select([
      'spotlight_experts.spotlight_id as owner_id',
      'experts.username',
      'experts.firstname',
      'experts.lastname',
    ])
    .where('experts.org_id', '=', orgId)
    .where(profileVisibleSql('experts', audience))
    .where('spotlight_experts.spotlight_id', 'in', spotlightIds)
    .orderBy('spotlight_experts.spotlight_id')
    .orderBy('spotlight_experts.position')
    .execute()
}

/** Experts `audience` may see who answered the listed questions, each once, in answer order. */
export async function readAnsweringExpertsOf(
  db: Queryable,
  orgId: number,
  questionIds: number[],
  audience: Audience,
) {
  if (questionIds.length === 0) return []
  return db
    .selectFrom('answers')
    .innerJoin('experts', 'experts.id', 'answers.expert_id')
    .select(['answers.question_id as owner_id', 'experts.username', 'experts.firstname', 'experts.lastname'])
    .where('experts.org_id', '=', orgId)
    .where(profileVisibleSql('experts', audience))
    .where('answers.question_id', 'in', questionIds)
    .orderBy('answers.question_id')
    .orderBy('answers.position')
    .execute()
}
