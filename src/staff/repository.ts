import { sql } from 'kysely'
import type { DialectName, Queryable } from '../db/database.js'
import type { ExpertRow, ProfileType } from '../db/schema.js'

/** The profile lists' queries: one organization, some profile types, the flag filters, a page. */

export interface ProfileFilter {
  types: readonly ProfileType[]
  access: 'public' | 'private' | 'all'
  status: 'all' | 'published' | 'unpublished'
}

function filtered(db: Queryable, orgId: number, filter: ProfileFilter) {
  let query = db.selectFrom('experts').where('org_id', '=', orgId).where('type', 'in', filter.types)
  if (filter.access !== 'all') query = query.where('is_private', '=', filter.access === 'private' ? 1 : 0)
  if (filter.status !== 'all') query = query.where('is_published', '=', filter.status === 'published' ? 1 : 0)
  return query
}

/** One page of profiles by name (last name, first name, username), byte-wise on both databases. */
export async function listProfiles(
  db: Queryable,
  dialect: DialectName,
  orgId: number,
  filter: ProfileFilter,
  page: { limit: number; offset: number },
): Promise<ExpertRow[]> {
  const folded = (column: 'lastname' | 'firstname') =>
    dialect === 'postgres' ? sql`lower(${sql.ref(column)}) collate "C"` : sql`lower(${sql.ref(column)})`
  return filtered(db, orgId, filter)
    .selectAll()
    .orderBy(folded('lastname'))
    .orderBy(folded('firstname'))
    .orderBy('username')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
}

export async function countProfiles(db: Queryable, orgId: number, filter: ProfileFilter): Promise<number> {
  const row = await filtered(db, orgId, filter)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
