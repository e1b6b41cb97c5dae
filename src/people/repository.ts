import type { Insertable, Transaction } from 'kysely'
import type { Queryable } from '../db/database.js'
import type { PeopleTable, PersonRow } from '../db/people-schema.js'
import type { DB } from '../db/schema.js'
import { lockedForWrite } from '../db/transactions.js'

/** People queries. Each takes the organization, except the sign-in lookup by email (unique across the service). */

export interface PersonView extends PersonRow {
  /** Username of the linked expert, when there is one. */
  expert_username: string | null
  /** When the person's invitation link ends (ms), while there is one (only the newest is kept). */
  invitation_expires_at: number | string | bigint | null
}

function people(db: Queryable) {
  return db
    .selectFrom('people as p')
    .leftJoin('experts as e', (join) =>
      join.onRef('e.id', '=', 'p.expert_id').onRef('e.org_id', '=', 'p.org_id'),
    )
    .selectAll('p')
    .select('e.username as expert_username')
    .select((eb) =>
      eb
        .selectFrom('person_links as l')
        .select((link) => link.fn.max('l.expires_at').as('expires_at'))
        .whereRef('l.person_id', '=', 'p.id')
        .where('l.purpose', '=', 'invitation')
        .as('invitation_expires_at'),
    )
}

export async function listPeople(db: Queryable, orgId: number): Promise<PersonView[]> {
  return people(db).where('p.org_id', '=', orgId).orderBy('p.id').execute()
}

export async function findPerson(db: Queryable, orgId: number, id: number): Promise<PersonView | undefined> {
  return people(db).where('p.org_id', '=', orgId).where('p.id', '=', id).executeTakeFirst()
}

export async function findPersonByEmailInOrg(
  db: Queryable,
  orgId: number,
  emailKey: string,
): Promise<PersonView | undefined> {
  return people(db).where('p.org_id', '=', orgId).where('p.email_key', '=', emailKey).executeTakeFirst()
}

/** Sign-in and password resets: the email alone names the person and so the organization. */
export async function findPersonByEmail(db: Queryable, emailKey: string): Promise<PersonView | undefined> {
  return people(db).where('p.email_key', '=', emailKey).executeTakeFirst()
}

export async function findPersonById(db: Queryable, id: number): Promise<PersonView | undefined> {
  return people(db).where('p.id', '=', id).executeTakeFirst()
}

export async function emailTaken(db: Queryable, emailKey: string): Promise<boolean> {
  const row = await db.selectFrom('people').select('id').where('email_key', '=', emailKey).executeTakeFirst()
  return row !== undefined
}

/**
 * Holds the organization's row until the transaction ends (PostgreSQL; SQLite's write transactions run
 * one at a time already), so that writes deciding on the owner count run one after the other: two
 * owners demoting each other at once cannot both see the other one still there.
 */
export async function lockOwnerCount(trx: Transaction<DB>, orgId: number): Promise<void> {
  await lockedForWrite(
    trx,
    trx.selectFrom('organizations').select('id').where('id', '=', orgId),
  ).executeTakeFirst()
}

export async function countOwners(db: Queryable, orgId: number): Promise<number> {
  const row = await db
    .selectFrom('people')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('org_id', '=', orgId)
    .where('role', '=', 'owner')
    .executeTakeFirst()
  return Number(row?.count ?? 0)
}

export async function insertPerson(db: Queryable, row: Insertable<PeopleTable>): Promise<number> {
  const inserted = await db.insertInto('people').values(row).returning('id').executeTakeFirstOrThrow()
  return Number(inserted.id)
}

export async function updatePersonRow(
  db: Queryable,
  orgId: number,
  id: number,
  changes: Partial<
    Pick<PersonRow, 'name' | 'role' | 'expert_id' | 'password_hash' | 'password_must_change' | 'updated_at'>
  >,
): Promise<void> {
  await db.updateTable('people').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute()
}

/** Deletes the person; their sessions, tokens and links go with them (foreign keys). */
export async function deletePersonRow(db: Queryable, orgId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('people')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Ends every session of the person (and so every bearer token those sessions minted), at once. */
export async function deleteSessionsOf(db: Queryable, personId: number, except?: number): Promise<void> {
  let query = db.deleteFrom('person_sessions').where('person_id', '=', personId)
  if (except !== undefined) query = query.where('id', '!=', except)
  await query.execute()
}
