import type { DialectName, Queryable } from '../db/database.js'
import type { ProfileType } from '../db/schema.js'
import type { Audience } from '../derived/audience.js'
import { readExpertSearchVersion, readProfilesByIds } from '../derived/search-index.js'
import { cacheOf } from '../kept-reads/result-cache.js'
import { expertListItem } from '../search/mapping.js'
import {
  countExpertMatches,
  type ExpertCriteria,
  readListItems,
  searchExpertIds,
} from '../search/repository.js'
import { inOrder, publicFilter, textQuery } from '../search/service.js'
import type { ProfileListInput } from './schemas.js'

const DEFAULT_PAGE_SIZE = 10

/**
 * A page of the organization's profiles of `types` in the expert list's entry shape, each with its
 * type, and the exact total, over the profiles `audience` may see (the public's filters are fixed to
 * what it may see, as in the expert search). The page is read from the search index, which holds
 * experts and staff members alike: with `q` it matches as the expert search's `q` does and is
 * ordered by relevance, else by name (last name, first name, username, unaccented).
 */
export async function listPeople(
  target: { db: Queryable; dialect: DialectName },
  orgId: number,
  types: readonly ProfileType[],
  input: ProfileListInput,
  audience: Audience,
) {
  const { db, dialect } = target
  const text = textQuery(input.q)
  const criteria: ExpertCriteria = {
    types,
    ...(text ? { text } : {}),
    access: publicFilter(audience, input.access, 'public') ?? 'public',
    status: publicFilter(audience, input.status, 'published') ?? 'all',
    facets: {},
    companies: [],
  }
  const page = { limit: input.page_size ?? DEFAULT_PAGE_SIZE, offset: input.page_from ?? 0 }
  const sort = text ? 'relevance' : 'name'
  // Kept under the index version, as the expert search's pages and counts are (staff writes raise it too).
  const cache = cacheOf(db)
  const matches = `${orgId}:${await readExpertSearchVersion(db, orgId)}:${JSON.stringify(criteria)}`
  const [ids, { total }] = await Promise.all([
    cache.get(`${matches}:${sort}:${page.limit}:${page.offset}`, () =>
      searchExpertIds(db, dialect, orgId, criteria, sort, page),
    ),
    cache.get(matches, () => countExpertMatches(db, dialect, orgId, criteria, [])),
  ])
  const [rows, items] = await Promise.all([
    readProfilesByIds(db, orgId, ids, types),
    readListItems(db, orgId, ids),
  ])
  const itemsOf = new Map<number, typeof items>()
  for (const item of items)
    itemsOf.set(Number(item.expert_id), [...(itemsOf.get(Number(item.expert_id)) ?? []), item])
  return {
    people: inOrder(ids, rows).map((row) => ({
      ...expertListItem(row, itemsOf.get(row.id) ?? []),
      type: row.type,
    })),
    total,
  }
}
