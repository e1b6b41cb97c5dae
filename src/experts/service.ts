import type { Kysely } from 'kysely'
import { isUniqueViolation } from '../db/database.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { expertDeleted, profileChanged } from '../derived/changes.js'
import { notFound } from '../errors.js'
import { expertMediaKeys } from '../storage/records.js'
import { createAccount, emailConflict, updateAccount, usernameConflict } from './account.js'
import { deleteExpertRow, findExpert, findExpertByEmail, findExpertForWrite } from './repository.js'
import type { ExpertCreateInput, ExpertUpdateInput } from './schemas.js'

/** A concurrent write took the email or the username between our check and our write: answer 409, not 500. */
async function asConflict<T>(
  db: Kysely<DB>,
  orgId: number,
  input: { email?: string | undefined; username?: string | undefined },
  run: () => Promise<T>,
) {
  try {
    return await run()
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    const holder = input.email ? await findExpertByEmail(db, orgId, input.email.toLowerCase()) : undefined
    if (holder) throw emailConflict(holder.username)
    if (input.username && (await findExpert(db, orgId, input.username)))
      throw usernameConflict(input.username)
    throw error
  }
}

/** Creates an expert (the API's create; the import calls `createAccount` in its own transaction). */
export async function createExpert(
  db: Kysely<DB>,
  orgId: number,
  input: ExpertCreateInput,
  now: number,
): Promise<string> {
  return asConflict(db, orgId, { email: input.email }, () =>
    writeTransaction(db, async (trx) => {
      const created = await createAccount(trx, orgId, input, now)
      await profileChanged(trx, orgId, created.id, now)
      return created.username
    }),
  )
}

/**
 * Applies a partial update of the account (a rename included); returns whether anything changed and
 * the expert's username after it.
 */
export async function updateExpert(
  db: Kysely<DB>,
  orgId: number,
  username: string,
  input: ExpertUpdateInput,
  now: number,
): Promise<{ updated: boolean; username: string }> {
  return asConflict(db, orgId, input, () =>
    writeTransaction(db, async (trx) => {
      const expert = await findExpertForWrite(trx, orgId, username)
      if (!expert) throw notFound(`Expert ${username}`)
      const updated = await updateAccount(trx, orgId, expert, input, now)
      if (updated) await profileChanged(trx, orgId, expert.id, now, { account: true })
      return { updated, username: input.username ?? expert.username }
    }),
  )
}

/**
 * Deletes an expert and its profile sections (inquiries already received are kept); the posts that
 * tagged it and the questions it answered change with it. The stored files of its photo are handed to
 * `discard` once the delete has committed.
 */
export async function deleteExpert(
  db: Kysely<DB>,
  orgId: number,
  username: string,
  now: number,
  discard: (keys: string[]) => Promise<void>,
): Promise<void> {
  const files = await writeTransaction(db, async (trx) => {
    const expert = await findExpertForWrite(trx, orgId, username)
    if (!expert) throw notFound(`Expert ${username}`)
    const keys = await expertMediaKeys(trx, orgId, expert.id)
    const removed = await expertDeleted(trx, orgId, expert.id, now, () =>
      deleteExpertRow(trx, orgId, expert.id),
    )
    if (!removed) throw notFound(`Expert ${username}`)
    return keys
  })
  await discard(files)
}
