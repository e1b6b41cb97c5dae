import type { Kysely } from 'kysely'
import { isUniqueViolation, type Queryable } from '../db/database.js'
import type { DB, ExpertRow, NewExpertRow } from '../db/schema.js'
import { ApiError, notFound, validationError } from '../http/errors.js'
import { refreshExpertSearch, removeExpertSearch } from '../search/maintenance.js'
import { subdivisionCode } from '../validation/geo.js'
import {
  deleteExpertRow,
  findExpert,
  findExpertByEmail,
  insertExpert,
  reserveUsername,
  takenUsernames,
  updateExpertRow,
} from './repository.js'
import type { ExpertCreateInput, ExpertUpdateInput } from './schemas.js'
import { usernameBase, usernameCandidates } from './username.js'

export type ExpertColumns = Omit<NewExpertRow, 'id' | 'org_id' | 'username' | 'created_at' | 'updated_at'>

/** Request fields -> columns: "" clears an optional field, codes are upper-cased, email gets its key. */
export function toColumns(input: ExpertUpdateInput): Partial<ExpertColumns> {
  const columns: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue
    columns[key] = value === '' ? null : value
  }
  if (typeof input.email === 'string') columns.email_key = input.email.toLowerCase()
  if (typeof columns.location_country === 'string')
    columns.location_country = columns.location_country.toUpperCase()
  return columns as Partial<ExpertColumns>
}

/** Stores the state as its short code, checked against the country the expert will have. */
export function resolveState(columns: Partial<ExpertColumns>, stored?: ExpertRow): void {
  const country = columns.location_country !== undefined ? columns.location_country : stored?.location_country
  const state = columns.location_state !== undefined ? columns.location_state : stored?.location_state
  if (!state) return
  const code = country ? subdivisionCode(country, state) : undefined
  if (code) {
    if (columns.location_state !== undefined) columns.location_state = code
    return
  }
  const message = country
    ? `${state} is not an ISO 3166-2 subdivision of ${country}: send a location_state of that country, or ""`
    : 'requires location_country'
  throw validationError([{ field: 'location_state', message }])
}

function emailConflict(username: string): ApiError {
  return new ApiError('conflict', 'Another expert of this organization already has this email address.', [
    { field: 'email', message: 'is already used by another expert', username },
  ])
}

/** Reserves the first free username derived from `base` (`base`, `base-2`, ...). */
export async function claimUsername(db: Queryable, base: string, now: number): Promise<string> {
  const candidates = usernameCandidates(base)
  for (;;) {
    const batch = Array.from({ length: 20 }, () => candidates.next().value as string)
    const taken = await takenUsernames(db, batch)
    for (const candidate of batch) {
      if (!taken.has(candidate) && (await reserveUsername(db, candidate, now))) return candidate
    }
  }
}

/** Creates an expert; returns the new username. */
export async function createExpert(
  db: Kysely<DB>,
  orgId: number,
  input: ExpertCreateInput,
  now: number,
): Promise<string> {
  const columns = toColumns(input) as ExpertColumns
  resolveState(columns)
  const existing = await findExpertByEmail(db, orgId, columns.email_key)
  if (existing) throw emailConflict(existing.username)
  try {
    return await db.transaction().execute(async (trx) => {
      const username = await claimUsername(trx, usernameBase(input.firstname, input.lastname), now)
      const id = await insertExpert(trx, {
        ...columns,
        org_id: orgId,
        username,
        is_published: 0,
        is_private: 0,
        created_at: now,
        updated_at: now,
      })
      await refreshExpertSearch(trx, orgId, id)
      return username
    })
  } catch (error) {
    // A concurrent create took the email between our check and our insert.
    const winner = isUniqueViolation(error)
      ? await findExpertByEmail(db, orgId, columns.email_key)
      : undefined
    if (winner) throw emailConflict(winner.username)
    throw error
  }
}

/** Applies a partial update; returns whether anything changed. */
export async function updateExpert(
  db: Kysely<DB>,
  orgId: number,
  username: string,
  input: ExpertUpdateInput,
  now: number,
): Promise<boolean> {
  const expert = await findExpert(db, orgId, username)
  if (!expert) throw notFound(`Expert ${username}`)
  const columns = toColumns(input)
  resolveState(columns, expert)
  const changes = Object.fromEntries(
    Object.entries(columns).filter(([key, value]) => expert[key as keyof ExpertRow] !== value),
  ) as Partial<ExpertColumns>
  if (Object.keys(changes).length === 0) return false
  if (changes.email_key !== undefined) {
    const holder = await findExpertByEmail(db, orgId, changes.email_key)
    if (holder && holder.id !== expert.id) throw emailConflict(holder.username)
  }
  try {
    await db.transaction().execute(async (trx) => {
      await updateExpertRow(trx, orgId, expert.id, { ...changes, updated_at: now })
      await refreshExpertSearch(trx, orgId, expert.id)
    })
  } catch (error) {
    const holder =
      isUniqueViolation(error) && changes.email_key
        ? await findExpertByEmail(db, orgId, changes.email_key)
        : undefined
    if (holder) throw emailConflict(holder.username)
    throw error
  }
  return true
}

export async function deleteExpert(db: Kysely<DB>, orgId: number, username: string): Promise<void> {
  const expert = await findExpert(db, orgId, username)
  const deleted =
    expert !== undefined &&
    (await db.transaction().execute(async (trx) => {
      await removeExpertSearch(trx, orgId, expert.id)
      return deleteExpertRow(trx, orgId, expert.id)
    }))
  if (!deleted) throw notFound(`Expert ${username}`)
}
