import { changedColumns } from '../db/columns.js'
import type { Queryable } from '../db/database.js'
import type { ExpertRow, NewExpertRow, ProfileType } from '../db/schema.js'
import { ApiError, validationError } from '../errors.js'
import { normalizeLocation } from '../validation/location.js'
import { canonicalLanguageTags, canonicalTimeZone } from '../validation/media.js'
import { normalizeOrcid } from '../validation/orcid.js'
import { scheduleColumns } from '../validation/schedule.js'
import {
  addUsernameRedirect,
  findExpertByEmail,
  findUsernameHolder,
  insertExpert,
  insertExperts,
  removeUsernameRedirect,
  reserveUsername,
  reserveUsernames,
  takenUsernames,
  updateExpertRow,
} from './repository.js'
import type { ExpertCreateInput, ExpertUpdateInput } from './schemas.js'
import { UsernameAssigner, usernameBase, usernameCandidates } from './username.js'

/**
 * The account of an expert (the `account` section): create, update, username. Each function runs in
 * the caller's transaction; the profile services (src/profiles) own the transaction and the
 * bookkeeping that follows a change.
 */

export type ExpertColumns = Omit<
  NewExpertRow,
  'id' | 'org_id' | 'username' | 'type' | 'created_at' | 'updated_at'
>

/**
 * Request fields -> columns: "" clears an optional field, the location is normalized, email gets its key.
 * The schedule's fields are the caller's (`scheduleColumns`: they need the time and who sets them).
 */
function toColumns(
  { publish_at, unpublish_at, ...input }: Omit<ExpertUpdateInput, 'username'>,
  stored?: ExpertRow,
): Partial<ExpertColumns> {
  const columns: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue
    columns[key] = value === '' ? null : value
  }
  if (typeof input.email === 'string') columns.email_key = input.email.toLowerCase()
  if (input.orcid) columns.orcid = normalizeOrcid(input.orcid) ?? input.orcid
  if (input.openalex_id)
    columns.openalex_id = input.openalex_id.replace(/^https:\/\/openalex\.org\//, '').toUpperCase()
  Object.assign(columns, normalizeLocation(input, stored))
  Object.assign(columns, mediaColumns(input))
  return columns as Partial<ExpertColumns>
}

/** The media fields' columns: the end of availability in milliseconds, canonical language tags and zone name. */
function mediaColumns(input: Omit<ExpertUpdateInput, 'username'>): Record<string, unknown> {
  const columns: Record<string, unknown> = {}
  const until = input.media_available_until
  if (typeof until === 'number') columns.media_available_until = until * 1000
  if (input.interview_languages)
    columns.interview_languages = JSON.stringify(canonicalLanguageTags(input.interview_languages))
  if (input.time_zone) columns.time_zone = canonicalTimeZone(input.time_zone) ?? input.time_zone
  return columns
}

/**
 * A write that makes or keeps an expert available must not end the availability before it starts: an
 * end that has already passed is a 400 naming it. Only writes that give either field are checked, so
 * that an unrelated change never fails on a window the expiry pass has yet to close.
 */
function checkAvailabilityWindow(
  input: Omit<ExpertUpdateInput, 'username'>,
  columns: Partial<ExpertColumns>,
  stored: ExpertRow | undefined,
  now: number,
): void {
  if (input.media_available === undefined && input.media_available_until === undefined) return
  const available = columns.media_available ?? stored?.media_available ?? 0
  const until =
    columns.media_available_until !== undefined
      ? columns.media_available_until
      : (stored?.media_available_until ?? null)
  if (available === 1 && until !== null && Number(until) <= now)
    throw validationError([
      {
        field: 'media_available_until',
        message: 'has passed: give a time in the future, or null for availability without an end',
      },
    ])
}

/** The email is another profile's: experts and staff members share one address space per organization. */
export function emailConflict(holder: { username: string; type: ProfileType }): ApiError {
  const who = holder.type === 'staff' ? 'staff member' : 'expert'
  return new ApiError('conflict', `Another ${who} of this organization already has this email address.`, {
    details: [{ field: 'email', message: `is already used by another ${who}`, username: holder.username }],
  })
}

export function usernameConflict(username: string): ApiError {
  return new ApiError('conflict', `Another profile of this organization is named ${username}.`, {
    details: [
      {
        field: 'username',
        message: 'is already used by another expert or staff member of this organization',
      },
    ],
  })
}

/** Reserves the first username derived from `base` (`base`, `base-2`, ...) never handed out in the organization. */
async function claimUsername(db: Queryable, orgId: number, base: string, now: number): Promise<string> {
  const candidates = usernameCandidates(base)
  for (;;) {
    const batch = Array.from({ length: 20 }, () => candidates.next().value)
    const taken = await takenUsernames(db, orgId, batch)
    for (const candidate of batch) {
      if (!taken.has(candidate) && (await reserveUsername(db, orgId, candidate, now))) return candidate
    }
  }
}

/** The account fields of a create, plus the flags an import may set (the API starts experts at 0/0). */
export type NewAccount = Omit<ExpertCreateInput, 'is_published' | 'is_private'> & {
  is_published?: number
  is_private?: number
}

/** The row of a new expert or staff member named `username`. */
function newExpertRow(
  orgId: number,
  input: NewAccount,
  username: string,
  type: ProfileType,
  now: number,
): NewExpertRow {
  const { is_published, is_private, ...fields } = input
  const columns = toColumns(fields)
  checkAvailabilityWindow(fields, columns, undefined, now)
  if (columns.media_available === 1) columns.media_available_since = now
  return {
    // Written out: a multi-row insert (an import) on SQLite writes null, not the column's default, for a value one row lacks.
    media_available: 0,
    remote_ready: 0,
    studio_ready: 0,
    interview_languages: '[]',
    ...(columns as ExpertColumns),
    org_id: orgId,
    username,
    type,
    is_published: is_published ?? 0,
    is_private: is_private ?? 0,
    created_at: now,
    updated_at: now,
  }
}

/**
 * Creates an expert or a staff member (`type`); 409 when the email is taken by either. A schedule in the
 * input is stored as set by `scheduledBy` (an actor reference, src/audit/actor.ts).
 */
export async function createAccount(
  trx: Queryable,
  orgId: number,
  input: NewAccount,
  now: number,
  type: ProfileType = 'expert',
  scheduledBy: string | null = null,
): Promise<{ id: number; username: string }> {
  const row = { ...newExpertRow(orgId, input, '', type, now), ...scheduleColumns(input, now, scheduledBy) }
  const existing = await findExpertByEmail(trx, orgId, row.email_key)
  if (existing) throw emailConflict(existing)
  const username = await claimUsername(trx, orgId, usernameBase(input.firstname, input.lastname), now)
  const id = await insertExpert(trx, { ...row, username })
  return { id, username }
}

/**
 * Creates many experts at once (an import), in input order, at a constant number of statements per
 * call: usernames come from `usernames` (one per import, so suffixes continue across calls). The
 * caller has checked that no email is taken.
 */
export async function createAccounts(
  trx: Queryable,
  orgId: number,
  inputs: readonly NewAccount[],
  now: number,
  usernames: UsernameAssigner,
): Promise<{ id: number; username: string }[]> {
  const names = await usernames.assign(inputs.map((input) => usernameBase(input.firstname, input.lastname)))
  await reserveUsernames(trx, orgId, names, now)
  const ids = await insertExperts(
    trx,
    inputs.map((input, index) => newExpertRow(orgId, input, names[index] ?? '', 'expert', now)),
  )
  return names.map((username) => {
    const id = ids.get(username)
    if (id === undefined) throw new Error(`The expert ${username} was not inserted.`)
    return { id, username }
  })
}

/** The username assigner of one import in the organization (createAccounts). */
export const usernameAssigner = (trx: Queryable, orgId: number): UsernameAssigner =>
  new UsernameAssigner((candidates) => takenUsernames(trx, orgId, candidates))

/**
 * Applies a partial update; returns the expert's row as it is after the change, or null when nothing
 * changed (the caller bumps `updated_at`). A new `username` renames the expert (409 when another expert
 * of the organization has it): the old one leads to the expert from then on, and the new one, were it an
 * old name of anyone, no longer leads elsewhere. A schedule is stored
 * as set by `scheduledBy` (an actor reference, src/audit/actor.ts).
 */
export async function changeAccount(
  trx: Queryable,
  orgId: number,
  expert: ExpertRow,
  input: ExpertUpdateInput,
  now: number,
  scheduledBy: string | null = null,
): Promise<ExpertRow | null> {
  const { username, ...fields } = input
  const columns = { ...toColumns(fields, expert), ...scheduleColumns(fields, now, scheduledBy) }
  checkAvailabilityWindow(fields, columns, expert, now)
  const changes: Partial<NewExpertRow> = changedColumns(columns, expert)
  if (changes.media_available === 1) changes.media_available_since = now
  if (changes.email_key !== undefined) {
    const holder = await findExpertByEmail(trx, orgId, changes.email_key)
    if (holder && holder.id !== expert.id) throw emailConflict(holder)
  }
  if (username !== undefined && username !== expert.username) {
    if (await findUsernameHolder(trx, orgId, username)) throw usernameConflict(username)
    await reserveUsername(trx, orgId, username, now)
    await removeUsernameRedirect(trx, orgId, username)
    await addUsernameRedirect(trx, orgId, expert.username, expert.id, now)
    changes.username = username
  }
  if (Object.keys(changes).length === 0) return null
  await updateExpertRow(trx, orgId, expert.id, changes)
  return { ...expert, ...changes }
}
