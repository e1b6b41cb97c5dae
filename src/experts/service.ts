import type { Kysely } from 'kysely'
import { actorReference } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { isUniqueViolation, type Queryable } from '../db/database.js'
import type { DB, ExpertRow, ProfileType } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { expertDeleted, profileChanged } from '../derived/changes.js'
import { deleteRecordHistory, recordVersion } from '../history/versions.js'
import { expertMediaKeys } from '../storage/records.js'
import { assertPublishable } from '../workflow/gate.js'
import { changeAccount, createAccount, emailConflict, usernameConflict } from './account.js'
import { accountElement } from './account-shape.js'
import { profileNotFound } from './profile-type.js'
import {
  deleteExpertRow,
  findExpert,
  findExpertByEmail,
  findExpertForWrite,
  findUsernameHolder,
} from './repository.js'
import type { ExpertCreateInput, ExpertUpdateInput } from './schemas.js'

/**
 * The account writes of a profile: an expert or a staff member (`type`), one code path for both.
 * A profile of the other type under the same username is a 404.
 */

/**
 * A condition a profile write checks inside its transaction once the profile's row is locked, before
 * it changes anything: the `If-Match` of the request (src/profiles/preconditions.ts). It throws to refuse.
 */
export type WriteCondition = (trx: Queryable) => Promise<void>

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
    if (holder) throw emailConflict(holder)
    if (input.username && (await findUsernameHolder(db, orgId, input.username)))
      throw usernameConflict(input.username)
    throw error
  }
}

/** The version of a profile's account: the `account` element as it is after the change. */
const accountVersion = (expert: ExpertRow) => ({
  record: { kind: 'profile', id: expert.id } as const,
  part: 'account',
  snapshot: accountElement(expert),
})

/** Creates an expert or a staff member (the API's create; the import calls `createAccount` in its own transaction). */
export async function createExpert(
  { db, orgId, now, trail }: WriteContext,
  input: ExpertCreateInput,
  type: ProfileType = 'expert',
): Promise<string> {
  return asConflict(db, orgId, { email: input.email }, () =>
    writeTransaction(db, async (trx) => {
      const created = await createAccount(trx, orgId, input, now, type, actorReference(trail.actor))
      await profileChanged(trx, orgId, created.id, now)
      await recordAudit(trx, orgId, trail, { kind: type, id: created.username }, now)
      const row = await findExpert(trx, orgId, created.username, type)
      if (row) await recordVersion(trx, orgId, trail, accountVersion(row), now)
      return created.username
    }),
  )
}

/**
 * Applies a partial update of the account (a rename included); returns whether anything changed and
 * the expert's username after it.
 */
export async function updateExpert(
  { db, orgId, now, trail }: WriteContext,
  {
    username,
    input,
    type = 'expert',
    condition,
  }: {
    username: string
    input: ExpertUpdateInput
    type?: ProfileType
    condition?: WriteCondition | undefined
  },
): Promise<{ updated: boolean; username: string }> {
  return asConflict(db, orgId, input, () =>
    writeTransaction(db, async (trx) => {
      const expert = await findExpertForWrite(trx, orgId, username, type)
      if (!expert) throw profileNotFound(type, username)
      await condition?.(trx)
      // The gate is the experts' (staff members have no topics, tagline or biography to meet it with).
      if (type === 'expert' && input.is_published === 1 && expert.is_published !== 1)
        await assertPublishable(trx, orgId, expert)
      const after = await changeAccount(trx, orgId, expert, input, now, actorReference(trail.actor))
      const current = input.username ?? expert.username
      if (after) {
        await profileChanged(trx, orgId, expert.id, now, { account: true })
        await recordAudit(trx, orgId, trail, { kind: type, id: current }, now)
        await recordVersion(trx, orgId, trail, accountVersion(after), now)
      }
      return { updated: after !== null, username: current }
    }),
  )
}

/**
 * Deletes an expert or a staff member and its profile sections (inquiries already received are kept);
 * the posts that tagged an expert and the questions it answered change with it. The stored files of
 * its photo are handed to `discard` once the delete has committed.
 */
export async function deleteExpert(
  { db, orgId, now, trail }: WriteContext,
  {
    username,
    discard,
    type = 'expert',
  }: { username: string; discard: (keys: string[]) => Promise<void>; type?: ProfileType },
): Promise<void> {
  const files = await writeTransaction(db, async (trx) => {
    const expert = await findExpertForWrite(trx, orgId, username, type)
    if (!expert) throw profileNotFound(type, username)
    const keys = await expertMediaKeys(trx, orgId, expert.id)
    const removed = await expertDeleted(trx, orgId, expert.id, now, () =>
      deleteExpertRow(trx, orgId, expert.id),
    )
    if (!removed) throw profileNotFound(type, username)
    await deleteRecordHistory(trx, orgId, { kind: 'profile', id: expert.id })
    await recordAudit(trx, orgId, trail, { kind: type, id: username }, now)
    return keys
  })
  await discard(files)
}
