import { inChunks, insertChunks, insertInChunks } from '../db/chunks.js'
import type { Queryable } from '../db/database.js'
import type { ExpertRow, NewExpertRow, ProfileType } from '../db/schema.js'
import { lockedForWrite } from '../db/transactions.js'

/**
 * Profile queries (experts and staff members share the table). Every one takes the organization, and
 * every lookup by username the profile type: a query without the tenant filter cannot be written, and
 * an expert route never finds a staff member (nor the other way round).
 */

export async function findExpert(
  db: Queryable,
  orgId: number,
  username: string,
  type: ProfileType = 'expert',
): Promise<ExpertRow | undefined> {
  return db
    .selectFrom('experts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('username', '=', username)
    .where('type', '=', type)
    .executeTakeFirst()
}

/**
 * The expert, its row locked until the write transaction ends: writers of one expert's profile wait
 * for each other, so what one reads (a name in a set, a list's length, the fields it merges) is what
 * the one before it committed (db/transactions.ts).
 */
export async function findExpertForWrite(
  trx: Queryable,
  orgId: number,
  username: string,
  type: ProfileType,
): Promise<ExpertRow | undefined> {
  return lockedForWrite(
    trx,
    trx
      .selectFrom('experts')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('username', '=', username)
      .where('type', '=', type),
  ).executeTakeFirst()
}

/** The expert or staff member holding an email (one address names one person of the organization). */
export async function findExpertByEmail(
  db: Queryable,
  orgId: number,
  emailKey: string,
): Promise<Pick<ExpertRow, 'id' | 'username' | 'type'> | undefined> {
  return db
    .selectFrom('experts')
    .select(['id', 'username', 'type'])
    .where('org_id', '=', orgId)
    .where('email_key', '=', emailKey)
    .executeTakeFirst()
}

/** Whoever holds `username` in the organization now, expert or staff member (they share one username space). */
export async function findUsernameHolder(
  db: Queryable,
  orgId: number,
  username: string,
): Promise<Pick<ExpertRow, 'id' | 'type'> | undefined> {
  return db
    .selectFrom('experts')
    .select(['id', 'type'])
    .where('org_id', '=', orgId)
    .where('username', '=', username)
    .executeTakeFirst()
}

/** Reserves `username` in the organization for good; false when it was ever handed out there before. */
export async function reserveUsername(
  db: Queryable,
  orgId: number,
  username: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .insertInto('usernames')
    .values({ org_id: orgId, username, created_at: now })
    .onConflict((conflict) => conflict.columns(['org_id', 'username']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

/** Of `candidates`, those already handed out in the organization. */
export async function takenUsernames(
  db: Queryable,
  orgId: number,
  candidates: string[],
): Promise<Set<string>> {
  const rows = await inChunks(candidates, (chunk) =>
    db
      .selectFrom('usernames')
      .select('username')
      .where('org_id', '=', orgId)
      .where('username', 'in', chunk)
      .execute(),
  )
  return new Set(rows.map((row) => row.username))
}

/** The expert named `username` now, or the one an old `username` of a rename leads to. */
export async function findExpertOrRenamed(
  db: Queryable,
  orgId: number,
  username: string,
): Promise<ExpertRow | undefined> {
  const expert = await findExpert(db, orgId, username)
  if (expert) return expert
  const renamed = await findRenamedExpert(db, orgId, username)
  return renamed && findExpert(db, orgId, renamed.username)
}

/**
 * The profile of `type` (an expert unless told) an old username of the organization leads to (its
 * current username and flags).
 */
export async function findRenamedExpert(
  db: Queryable,
  orgId: number,
  oldUsername: string,
  type: ProfileType = 'expert',
): Promise<Pick<ExpertRow, 'id' | 'username' | 'is_published' | 'is_private'> | undefined> {
  return db
    .selectFrom('username_redirects')
    .innerJoin('experts', 'experts.id', 'username_redirects.expert_id')
    .select(['experts.id', 'experts.username', 'experts.is_published', 'experts.is_private'])
    .where('username_redirects.org_id', '=', orgId)
    .where('username_redirects.username', '=', oldUsername)
    .where('experts.org_id', '=', orgId)
    .where('experts.type', '=', type)
    .executeTakeFirst()
}

/** `oldUsername` of the organization leads to the expert from now on (it is no longer anyone's name). */
export async function addUsernameRedirect(
  db: Queryable,
  orgId: number,
  oldUsername: string,
  expertId: number,
  now: number,
): Promise<void> {
  await db
    .insertInto('username_redirects')
    .values({ org_id: orgId, username: oldUsername, expert_id: expertId, created_at: now })
    .onConflict((conflict) =>
      conflict.columns(['org_id', 'username']).doUpdateSet({ expert_id: expertId, created_at: now }),
    )
    .execute()
}

/** `username` is an expert's name again: it leads nowhere else. */
export async function removeUsernameRedirect(db: Queryable, orgId: number, username: string): Promise<void> {
  await db
    .deleteFrom('username_redirects')
    .where('org_id', '=', orgId)
    .where('username', '=', username)
    .execute()
}

export async function insertExpert(db: Queryable, row: NewExpertRow): Promise<number> {
  const { id } = await db.insertInto('experts').values(row).returning('id').executeTakeFirstOrThrow()
  return id
}

/** Inserts many experts, in the statements of `insertChunks`; username -> id. */
export async function insertExperts(
  db: Queryable,
  rows: readonly NewExpertRow[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>()
  for (const chunk of insertChunks(db, rows)) {
    const inserted = await db.insertInto('experts').values(chunk).returning(['id', 'username']).execute()
    for (const row of inserted) ids.set(row.username, row.id)
  }
  return ids
}

/** Records usernames as handed out (they are never handed out again), in the statements of `insertChunks`. */
export async function reserveUsernames(
  db: Queryable,
  orgId: number,
  usernames: readonly string[],
  now: number,
): Promise<void> {
  await insertInChunks(
    db,
    usernames.map((username) => ({ org_id: orgId, username, created_at: now })),
    (chunk) =>
      db
        .insertInto('usernames')
        .values(chunk)
        .onConflict((conflict) => conflict.columns(['org_id', 'username']).doNothing())
        .execute(),
  )
}

export async function updateExpertRow(
  db: Queryable,
  orgId: number,
  id: number,
  changes: Partial<NewExpertRow>,
): Promise<void> {
  await db.updateTable('experts').set(changes).where('org_id', '=', orgId).where('id', '=', id).execute()
}

export async function deleteExpertRow(db: Queryable, orgId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('experts')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Ids of the organization's experts (not staff members) among `usernames`; username -> id. */
export async function findExpertIds(
  db: Queryable,
  orgId: number,
  usernames: readonly string[],
): Promise<Map<string, number>> {
  const rows = await inChunks(usernames, (chunk) =>
    db
      .selectFrom('experts')
      .select(['id', 'username'])
      .where('org_id', '=', orgId)
      .where('type', '=', 'expert')
      .where('username', 'in', chunk)
      .execute(),
  )
  return new Map(rows.map((row) => [row.username, row.id]))
}

/** The experts an import updates, their rows locked in id order until it commits (as `findExpertForWrite`). */
export async function findExpertsForWrite(
  trx: Queryable,
  orgId: number,
  ids: readonly number[],
): Promise<ExpertRow[]> {
  return inChunks(
    [...ids].sort((a, b) => a - b),
    (chunk) =>
      lockedForWrite(
        trx,
        trx
          .selectFrom('experts')
          .selectAll()
          .where('org_id', '=', orgId)
          .where('id', 'in', chunk)
          .orderBy('id'),
      ).execute(),
  )
}

/** The organization's experts and staff members whose email key is among `emailKeys`. */
export async function findExpertsByEmail(db: Queryable, orgId: number, emailKeys: readonly string[]) {
  return inChunks(emailKeys, (chunk) =>
    db
      .selectFrom('experts')
      .select(['id', 'username', 'email_key', 'type'])
      .where('org_id', '=', orgId)
      .where('email_key', 'in', chunk)
      .execute(),
  )
}
