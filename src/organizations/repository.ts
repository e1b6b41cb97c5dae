import type { Queryable } from '../db/database.js'
import type { OrganizationRow } from '../db/schema.js'

export async function createOrganization(
  db: Queryable,
  input: { id?: number; name: string },
  now: number,
): Promise<OrganizationRow> {
  const id =
    input.id ??
    Number(
      (
        await db
          .selectFrom('organizations')
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirst()
      )?.max ?? 0,
    ) + 1
  const row = { id, name: input.name, created_at: now }
  await db.insertInto('organizations').values(row).execute()
  return { ...row, profile_version: 0 }
}

export async function findOrganization(db: Queryable, id: number): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function listOrganizations(db: Queryable): Promise<OrganizationRow[]> {
  return db.selectFrom('organizations').selectAll().orderBy('id').execute()
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}
