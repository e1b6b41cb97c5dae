import type { DialectName, Queryable } from '../db/database.js'
import type { ProfileType } from '../db/schema.js'
import type { Audience } from '../derived/audience.js'
import { expertListItem } from '../search/mapping.js'
import { readListItems } from '../search/repository.js'
import { publicFilter } from '../search/service.js'
import { countProfiles, listProfiles, type ProfileFilter } from './repository.js'
import type { ProfileListInput } from './schemas.js'

const DEFAULT_PAGE_SIZE = 10

/**
 * A page of the organization's profiles of `types` in the expert list's entry shape, each with its
 * type, and the exact total, over the profiles `audience` may see (the public's filters are fixed to
 * what it may see, as in the expert search).
 */
export async function listPeople(
  target: { db: Queryable; dialect: DialectName },
  orgId: number,
  types: readonly ProfileType[],
  input: ProfileListInput,
  audience: Audience,
) {
  const { db, dialect } = target
  const filter: ProfileFilter = {
    types,
    access: publicFilter(audience, input.access, 'public') ?? 'public',
    status: publicFilter(audience, input.status, 'published') ?? 'all',
  }
  const page = { limit: input.page_size ?? DEFAULT_PAGE_SIZE, offset: input.page_from ?? 0 }
  const [rows, total] = await Promise.all([
    listProfiles(db, dialect, orgId, filter, page),
    countProfiles(db, orgId, filter),
  ])
  const items = await readListItems(
    db,
    orgId,
    rows.map((row) => row.id),
  )
  const itemsOf = new Map<number, typeof items>()
  for (const item of items)
    itemsOf.set(Number(item.expert_id), [...(itemsOf.get(Number(item.expert_id)) ?? []), item])
  return {
    people: rows.map((row) => ({ ...expertListItem(row, itemsOf.get(row.id) ?? []), type: row.type })),
    total,
  }
}
