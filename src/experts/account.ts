import { changedColumns } from '../db/columns.js'
import type { Queryable } from '../db/database.js'
import type { ExpertRow, NewExpertRow } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { normalizeLocation } from '../validation/location.js'
import {
  findExpertByEmail,
  insertExpert,
  reserveUsername,
  takenUsernames,
  updateExpertRow,
} from './repository.js'
import type { ExpertCreateInput, ExpertUpdateInput } from './schemas.js'
import { usernameBase, usernameCandidates } from './username.js'

/**
 * The account of an expert (the `account` section): create, update, username. Each function runs in
 * the caller's transaction; the profile services (src/profiles) own the transaction and the
 * bookkeeping that follows a change.
 */

export type ExpertColumns = Omit<NewExpertRow, 'id' | 'org_id' | 'username' | 'created_at' | 'updated_at'>

/** Request fields -> columns: "" clears an optional field, the location is normalized, email gets its key. */
function toColumns(input: ExpertUpdateInput, stored?: ExpertRow): Partial<ExpertColumns> {
  const columns: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue
    columns[key] = value === '' ? null : value
  }
  if (typeof input.email === 'string') columns.email_key = input.email.toLowerCase()
  Object.assign(columns, normalizeLocation(input, stored))
  return columns as Partial<ExpertColumns>
}

export function emailConflict(username: string): ApiError {
  return new ApiError('conflict', 'Another expert of this organization already has this email address.', {
    details: [{ field: 'email', message: 'is already used by another expert', username }],
  })
}

/** Reserves the first free username derived from `base` (`base`, `base-2`, ...). */
async function claimUsername(db: Queryable, base: string, now: number): Promise<string> {
  const candidates = usernameCandidates(base)
  for (;;) {
    const batch = Array.from({ length: 20 }, () => candidates.next().value)
    const taken = await takenUsernames(db, batch)
    for (const candidate of batch) {
      if (!taken.has(candidate) && (await reserveUsername(db, candidate, now))) return candidate
    }
  }
}

/** The account fields of a create, plus the flags an import may set (the API starts experts at 0/0). */
export type NewAccount = Omit<ExpertCreateInput, 'is_published' | 'is_private'> & {
  is_published?: number
  is_private?: number
}

/** Creates an expert; 409 when the email is taken. */
export async function createAccount(
  trx: Queryable,
  orgId: number,
  input: NewAccount,
  now: number,
): Promise<{ id: number; username: string }> {
  const { is_published, is_private, ...fields } = input
  const columns = toColumns(fields) as ExpertColumns
  const existing = await findExpertByEmail(trx, orgId, columns.email_key)
  if (existing) throw emailConflict(existing.username)
  const username = await claimUsername(trx, usernameBase(input.firstname, input.lastname), now)
  const id = await insertExpert(trx, {
    ...columns,
    org_id: orgId,
    username,
    is_published: is_published ?? 0,
    is_private: is_private ?? 0,
    created_at: now,
    updated_at: now,
  })
  return { id, username }
}

/** Applies a partial update; returns whether anything changed (the caller bumps `updated_at`). */
export async function updateAccount(
  trx: Queryable,
  orgId: number,
  expert: ExpertRow,
  input: ExpertUpdateInput,
): Promise<boolean> {
  const columns = toColumns(input, expert)
  const changes = changedColumns(columns, expert)
  if (Object.keys(changes).length === 0) return false
  if (changes.email_key !== undefined) {
    const holder = await findExpertByEmail(trx, orgId, changes.email_key)
    if (holder && holder.id !== expert.id) throw emailConflict(holder.username)
  }
  await updateExpertRow(trx, orgId, expert.id, changes)
  return true
}
