import { insufficientScope } from '../auth/bearer.js'
import type { DialectName, Queryable } from '../db/database.js'
import type { Audience } from '../derived/audience.js'
import { readExpertSearchVersion, readProfilesByIds } from '../derived/search-index.js'
import { MAX_TERMS, searchTerms, valueKey } from '../derived/search-text.js'
import { validationError } from '../errors.js'
import { cacheOf } from '../kept-reads/result-cache.js'
import { expertListItem, questionListItem, spotlightListItem } from './mapping.js'
import {
  CONTENT_INDEXES,
  type ContentCriteria,
  countContent,
  countContentFacets,
  countExpertMatches,
  type ExpertCriteria,
  type ExpertSort,
  readAnsweringExpertsOf,
  readListItems,
  readQuestionsByIds,
  readSpotlightsByIds,
  readTaggedExpertsOf,
  readTagsOf,
  searchContentIds,
  searchExpertIds,
  type TextQuery,
} from './repository.js'
import {
  EXPERT_FACETS,
  type ExpertSearchInput,
  type QuestionSearchInput,
  type SpotlightSearchInput,
} from './schemas.js'

/** Where a search runs: the database (or a transaction) and its dialect, which picks the full-text syntax. */
export interface SearchTarget {
  db: Queryable
  dialect: DialectName
}

const DEFAULT_PAGE_SIZE = 10

/** The words of `q` (none: no text filter); more than MAX_TERMS is a 400 naming `q`. */
export function textQuery(q: string | undefined, namesOnly = false): TextQuery | undefined {
  const terms = searchTerms(q ?? '')
  if (terms.length > MAX_TERMS)
    throw validationError([{ field: 'q', message: `must have at most ${MAX_TERMS} words` }])
  return terms.length > 0 ? { terms, namesOnly } : undefined
}

const keys = (values: string[] | undefined) => [...new Set((values ?? []).map(valueKey).filter(Boolean))]

function paging(input: { page_size?: number; page_from?: number }) {
  return { limit: input.page_size ?? DEFAULT_PAGE_SIZE, offset: input.page_from ?? 0 }
}

/** Groups rows by their `owner_id`, dropping it. */
function byOwner<T extends { owner_id: number }>(rows: T[]): Map<number, Omit<T, 'owner_id'>[]> {
  const groups = new Map<number, Omit<T, 'owner_id'>[]>()
  for (const { owner_id, ...rest } of rows)
    groups.set(Number(owner_id), [...(groups.get(Number(owner_id)) ?? []), rest])
  return groups
}

/** `rows` in the order of `ids` (those found). */
export function inOrder<T extends { id: number }>(ids: number[], rows: T[]): T[] {
  const byId = new Map(rows.map((row) => [Number(row.id), row]))
  return ids.map((id) => byId.get(id)).filter((row): row is T => row !== undefined)
}

/**
 * The public (`read:public`) sees published records only, and non-private experts: those filters are
 * its defaults, and asking for more is a 403 naming the scope that allows it (CONTRACT §17).
 */
export function publicFilter<T extends string>(
  audience: Audience,
  given: T | undefined,
  visible: T,
): T | undefined {
  if (audience === 'all') return given
  if (given !== undefined && given !== visible) throw insufficientScope('read')
  return visible
}

/**
 * `GET /v2/organization/:corporation/expert`: a page of experts, the exact total and the facet counts,
 * over the experts `audience` may see. The narrowing is part of the criteria, which key the kept
 * pages and counts: what is kept for a narrowed query is the answer to that query, whoever asked it.
 */
export async function searchExperts(
  target: SearchTarget,
  orgId: number,
  input: ExpertSearchInput,
  audience: Audience,
) {
  const { db, dialect } = target
  const text = textQuery(input.q, input.searchfield === 'fullname')
  const criteria: ExpertCriteria = {
    types: ['expert'],
    ...(text ? { text } : {}),
    access: publicFilter(audience, input.access, 'public') ?? 'public',
    status: publicFilter(audience, input.status, 'published') ?? 'all',
    facets: Object.fromEntries(
      EXPERT_FACETS.map((facet) => [
        facet,
        facet === 'media_available' ? (input.media_available === 1 ? ['1'] : []) : keys(input[facet]),
      ]),
    ),
    companies: keys(input.companies),
  }
  const sort: ExpertSort = input.sort ?? (text ? 'relevance' : 'name')
  const page = paging(input)
  // The page and the counts depend only on the index (the list entries are read fresh below), so
  // they are kept under the index version; every page and sort of a query shares one count.
  const cache = cacheOf(db)
  const matches = `${orgId}:${await readExpertSearchVersion(db, orgId)}:${JSON.stringify(criteria)}`
  const [ids, { total, aggregations }] = await Promise.all([
    cache.get(`${matches}:${sort}:${page.limit}:${page.offset}`, () =>
      searchExpertIds(db, dialect, orgId, criteria, sort, page),
    ),
    cache.get(matches, () => countExpertMatches(db, dialect, orgId, criteria, EXPERT_FACETS)),
  ])
  const [experts, items] = await Promise.all([
    readProfilesByIds(db, orgId, ids, ['expert']),
    readListItems(db, orgId, ids),
  ])
  const itemsOf = new Map<number, typeof items>()
  for (const item of items)
    itemsOf.set(Number(item.expert_id), [...(itemsOf.get(Number(item.expert_id)) ?? []), item])
  return {
    experts: inOrder(ids, experts).map((expert) => expertListItem(expert, itemsOf.get(expert.id) ?? [])),
    total,
    aggregations,
  }
}

function contentCriteria(
  input: { q?: string; status?: ContentCriteria['status']; tags?: string[] },
  people: string[] | undefined,
  audience: Audience,
): ContentCriteria {
  const text = textQuery(input.q)
  return {
    ...(text ? { text } : {}),
    audience,
    status: publicFilter(audience, input.status, 'published') ?? 'all',
    tags: keys(input.tags),
    people: [...new Set(people ?? [])],
  }
}

/** `GET /v2/spotlight/:corporation/search`; for the public, published posts and only the experts it may see. */
export async function searchSpotlights(
  target: SearchTarget,
  orgId: number,
  input: SpotlightSearchInput,
  audience: Audience,
) {
  const { db, dialect } = target
  if (input.month !== undefined && input.year === undefined)
    throw validationError([{ field: 'month', message: 'requires year' }])
  const criteria: ContentCriteria = {
    ...contentCriteria(input, input.tagged, audience),
    ...(input.year !== undefined ? { year: input.year } : {}),
    ...(input.month !== undefined ? { month: input.month } : {}),
  }
  const [ids, total, facets] = await Promise.all([
    searchContentIds(db, dialect, CONTENT_INDEXES.spotlight, orgId, criteria, paging(input)),
    countContent(db, dialect, CONTENT_INDEXES.spotlight, orgId, criteria),
    countContentFacets(db, dialect, CONTENT_INDEXES.spotlight, orgId, criteria),
  ])
  const [posts, tags, experts] = await Promise.all([
    readSpotlightsByIds(db, orgId, ids),
    readTagsOf(db, orgId, 'spotlight', ids),
    readTaggedExpertsOf(db, orgId, ids, audience),
  ])
  const tagsOf = byOwner(tags)
  const expertsOf = byOwner(experts)
  return {
    spotlights: inOrder(ids, posts).map((post) =>
      spotlightListItem(post, tagsOf.get(post.id) ?? [], expertsOf.get(post.id) ?? []),
    ),
    total,
    aggregations: { year: facets.year, tagged_experts: facets.people, tags: facets.tags },
  }
}

/** `GET /v2/qanda/:corporation/search`; for the public, published items and only the experts it may see. */
export async function searchQuestions(
  target: SearchTarget,
  orgId: number,
  input: QuestionSearchInput,
  audience: Audience,
) {
  const { db, dialect } = target
  const criteria = contentCriteria(input, input.answered_by, audience)
  const [ids, total, facets] = await Promise.all([
    searchContentIds(db, dialect, CONTENT_INDEXES.question, orgId, criteria, paging(input)),
    countContent(db, dialect, CONTENT_INDEXES.question, orgId, criteria),
    countContentFacets(db, dialect, CONTENT_INDEXES.question, orgId, criteria),
  ])
  const [questions, tags, experts] = await Promise.all([
    readQuestionsByIds(db, orgId, ids),
    readTagsOf(db, orgId, 'question', ids),
    readAnsweringExpertsOf(db, orgId, ids, audience),
  ])
  const tagsOf = byOwner(tags)
  const expertsOf = byOwner(experts)
  return {
    questions: inOrder(ids, questions).map((question) =>
      questionListItem(question, tagsOf.get(question.id) ?? [], expertsOf.get(question.id) ?? []),
    ),
    total,
    aggregations: { tags: facets.tags, answered_by: facets.people },
  }
}
