import { INQUIRY_HANDLER_ROLES } from '../auth/roles.js'
import type { Queryable } from '../db/database.js'
import { validationError } from '../errors.js'

/**
 * Who handles an inquiry (CONTRACT §22): a person of the organization whose role may handle
 * inquiries (owner, admin, inquiries). The inbox shows the person as `{id, name, email}`.
 */
export interface Assignee {
  id: number
  name: string
  email: string
}

function people(db: Queryable, orgId: number) {
  return db.selectFrom('people').select(['id', 'name', 'email', 'role']).where('org_id', '=', orgId)
}

const asAssignee = (row: { id: number; name: string; email: string }): Assignee => ({
  id: Number(row.id),
  name: row.name,
  email: row.email,
})

/** The people an inquiry may be assigned to, by name. */
export async function listAssignable(db: Queryable, orgId: number): Promise<Assignee[]> {
  const rows = await people(db, orgId)
    .where('role', 'in', [...INQUIRY_HANDLER_ROLES])
    .orderBy('name')
    .orderBy('id')
    .execute()
  return rows.map(asAssignee)
}

/**
 * The person `id` if an inquiry may be assigned to them; otherwise a validation error on `assignee`
 * that says why (no such person, or a role that does not handle inquiries).
 */
export async function requireAssignable(db: Queryable, orgId: number, id: number): Promise<Assignee> {
  const row = await people(db, orgId).where('id', '=', id).executeTakeFirst()
  const roles = INQUIRY_HANDLER_ROLES.join(', ')
  if (!row) {
    throw validationError([
      { field: 'assignee', message: `must be the id of a person of the organization (person ${id} is not)` },
    ])
  }
  if (!INQUIRY_HANDLER_ROLES.some((role) => role === row.role)) {
    throw validationError([
      {
        field: 'assignee',
        message: `must be a person whose role handles inquiries (${roles}); ${row.name} is ${row.role}`,
      },
    ])
  }
  return asAssignee(row)
}

/** The assignees of these inquiries, by person id. */
export async function assigneesById(
  db: Queryable,
  orgId: number,
  ids: readonly (number | null)[],
): Promise<Map<number, Assignee>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null).map(Number))]
  if (wanted.length === 0) return new Map()
  const rows = await people(db, orgId).where('id', 'in', wanted).execute()
  return new Map(rows.map((row) => [Number(row.id), asAssignee(row)]))
}
