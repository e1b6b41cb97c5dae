import type { Kysely } from 'kysely'
import { isUniqueViolation } from '../db/database.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { expertDeleted, profileChanged } from '../derived/changes.js'
import { notFound } from '../errors.js'
import { expertMediaKeys } from '../storage/records.js'
import { createAccount, emailConflict, updateAccount } from './account.js'
import { deleteExpertRow, findExpertByEmail, findExpertForWrite } from './repository.js'
import type { ExpertCreateInput, ExpertUpdateInput } from './schemas.js'

/** A concurrent write took the email between our check and our write: answer 409, not 500. */
async function asEmailConflict<T>(
  db: Kysely<DB>,
  orgId: number,
  email: string | undefined,
  run: () => Promise<T>,
) {
  try {
    return await run()
  } catch (error) {
    const holder =
      isUniqueViolation(error) && email ? await findExpertByEmail(db, orgId, email.toLowerCase()) : undefined
    if (holder) throw emailConflict(holder.username)
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
  return asEmailConflict(db, orgId, input.email, () =>
    writeTransaction(db, async (trx) => {
      const created = await createAccount(trx, orgId, input, now)
      await profileChanged(trx, orgId, created.id, now)
      return created.username
    }),
  )
}

/** Applies a partial update of the account; returns whether anything changed. */
export async function updateExpert(
  db: Kysely<DB>,
  orgId: number,
  username: string,
  input: ExpertUpdateInput,
  now: number,
): Promise<boolean> {
  return asEmailConflict(db, orgId, input.email, () =>
    writeTransaction(db, async (trx) => {
      const expert = await findExpertForWrite(trx, orgId, username)
      if (!expert) throw notFound(`Expert ${username}`)
      const changed = await updateAccount(trx, orgId, expert, input)
      if (changed) await profileChanged(trx, orgId, expert.id, now, { account: true })
      return changed
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
