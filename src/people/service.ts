import type { Kysely } from 'kysely'
import type { Actor } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { isRole, ROLES, type Role } from '../auth/roles.js'
import type { Queryable } from '../db/database.js'
import { isUniqueViolation } from '../db/database.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { ApiError, notFound, validationError } from '../errors.js'
import { findExpert } from '../experts/repository.js'
import { consumeLink, issueLink, type LinkPurpose } from './links.js'
import { hashPassword, passwordProblem } from './passwords.js'
import {
  countOwners,
  deletePersonRow,
  deleteSessionsOf,
  emailTaken,
  findPerson,
  findPersonById,
  insertPerson,
  lockOwnerCount,
  type PersonView,
  updatePersonRow,
} from './repository.js'

/**
 * The one write path for people (CONTRACT §14): the CLI and the API call these. Every rule lives here:
 * a valid email unique across the service, a known role, an expert person linked to an expert of its
 * organization, a password that passes the policy, and an organization that always keeps an owner.
 */

/** The person as the CLI and the API show them: never a hash. */
export interface PersonSummary {
  id: number
  email: string
  name: string
  role: Role
  expert: string | null
  /** Whether the person has set a password (an invitation not yet accepted has not). */
  has_password: boolean
  /** When the person's invitation link ends (past: expired), while they have one. */
  invitation_expires_at: string | null
  created_at: string
}

export function summarize(person: PersonView): PersonSummary {
  return {
    id: Number(person.id),
    email: person.email,
    name: person.name,
    role: isRole(person.role) ? person.role : 'expert',
    expert: person.expert_username,
    has_password: person.password_hash !== null,
    invitation_expires_at:
      person.invitation_expires_at === null
        ? null
        : new Date(Number(person.invitation_expires_at)).toISOString(),
    created_at: new Date(Number(person.created_at)).toISOString(),
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export function emailKey(email: string): string {
  return email.trim().toLowerCase()
}

export interface NewPerson {
  email: string
  role: string
  name?: string | undefined
  /** Username of the expert an `expert` person is linked to (required for that role, refused for others). */
  expert?: string | undefined
  /** Sets the password at once; without it an invitation link is issued. */
  password?: string | undefined
  /** The password was generated (the demo owner's): it must be changed before the person does anything else. */
  mustChange?: boolean
  /** false: no invitation link either (a person created by single sign-on signs in through it). */
  invite?: boolean
}

export interface AddedPerson {
  person: PersonSummary
  /** The invitation token (valid 7 days) when no password was given. */
  invitation?: string
}

async function expertIdFor(db: Queryable, orgId: number, role: Role, username: string | undefined) {
  if (role !== 'expert') {
    if (username !== undefined) {
      throw validationError([{ field: 'expert', message: 'applies only to the expert role' }])
    }
    return null
  }
  if (username === undefined) {
    throw validationError([
      { field: 'expert', message: 'is required for the expert role: the username of its expert' },
    ])
  }
  const expert = await findExpert(db, orgId, username)
  if (!expert) throw validationError([{ field: 'expert', message: `names no expert of this organization` }])
  return Number(expert.id)
}

function checkRole(role: string): Role {
  if (!isRole(role))
    throw validationError([{ field: 'role', message: `must be one of: ${ROLES.join(', ')}` }])
  return role
}

export async function addPerson(
  { db, orgId, now, trail }: WriteContext,
  input: NewPerson,
): Promise<AddedPerson> {
  const email = input.email.trim()
  const details = []
  if (!EMAIL.test(email) || email.length > 254)
    details.push({ field: 'email', message: 'must be a valid email address' })
  if (!isRole(input.role)) details.push({ field: 'role', message: `must be one of: ${ROLES.join(', ')}` })
  const problem = input.password === undefined ? undefined : passwordProblem(input.password, email)
  if (problem) details.push({ field: 'password', message: problem })
  if (details.length > 0) throw validationError(details)
  const role = checkRole(input.role)
  if (role === 'owner' && !mayTouchOwner(trail.actor)) throw ownersOnly('Only an owner may add an owner.')
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password)
  try {
    return await writeTransaction(db, async (trx) => {
      const key = emailKey(email)
      if (await emailTaken(trx, key)) throw emailConflict()
      const id = await insertPerson(trx, {
        org_id: orgId,
        email,
        email_key: key,
        name: input.name?.trim() || email.split('@')[0] || email,
        role,
        expert_id: await expertIdFor(trx, orgId, role, input.expert),
        password_hash: passwordHash,
        password_must_change: input.mustChange ? 1 : 0,
        created_at: now,
        updated_at: now,
      })
      const invitation =
        passwordHash === null && input.invite !== false
          ? await issueLink(trx, id, 'invitation', now)
          : undefined
      const person = await findPerson(trx, orgId, id)
      if (!person) throw new Error('the person just added was not found')
      await recordAudit(trx, orgId, trail, { kind: 'person', id }, now)
      return { person: summarize(person), ...(invitation ? { invitation } : {}) }
    })
  } catch (error) {
    if (isUniqueViolation(error)) throw emailConflict()
    throw error
  }
}

function emailConflict(): ApiError {
  return new ApiError('conflict', 'A person with this email address already exists.', {
    details: [{ field: 'email', message: 'is already used by another person' }],
  })
}

/**
 * Whether `actor` may make, demote or remove an owner: the operator (CLI), the service itself (single
 * sign-on's group mapping) and owners may; admins and machine clients with the `admin` scope may do
 * everything else (least privilege: a client is no owner).
 */
function mayTouchOwner(actor: Actor): boolean {
  return (
    actor.kind === 'cli' || actor.kind === 'system' || (actor.kind === 'person' && actor.role === 'owner')
  )
}

function ownersOnly(message: string): ApiError {
  return new ApiError('forbidden', message)
}

export interface PersonChanges {
  name?: string | undefined
  role?: string | undefined
  expert?: string | null | undefined
}

export async function updatePerson(
  { db, orgId, now, trail }: WriteContext,
  id: number,
  changes: PersonChanges,
): Promise<PersonSummary> {
  return writeTransaction(db, async (trx) => {
    await lockOwnerCount(trx, orgId)
    const person = await findPerson(trx, orgId, id)
    if (!person) throw notFound('The person')
    const role = changes.role === undefined ? checkRole(person.role) : checkRole(changes.role)
    const touchesOwner = person.role === 'owner' || role === 'owner'
    if (
      touchesOwner &&
      changes.role !== undefined &&
      changes.role !== person.role &&
      !mayTouchOwner(trail.actor)
    ) {
      throw ownersOnly('Only an owner may make someone an owner or change an owner’s role.')
    }
    if (person.role === 'owner' && role !== 'owner' && (await countOwners(trx, orgId)) <= 1) {
      throw new ApiError('conflict', 'The organization must keep an owner: make someone else owner first.')
    }
    const username =
      role === 'expert'
        ? changes.expert === null
          ? undefined
          : (changes.expert ?? person.expert_username ?? undefined)
        : (changes.expert ?? undefined)
    const expertId = await expertIdFor(trx, orgId, role, username)
    await updatePersonRow(trx, orgId, id, {
      ...(changes.name !== undefined ? { name: changes.name.trim() } : {}),
      role,
      expert_id: expertId,
      updated_at: now,
    })
    const updated = await findPerson(trx, orgId, id)
    if (!updated) throw notFound('The person')
    await recordAudit(trx, orgId, trail, { kind: 'person', id }, now)
    return summarize(updated)
  })
}

/**
 * Issues a new invitation link for a person who has not set a password yet (the earlier link stops
 * working): for an invitation that expired, or whose email went astray.
 */
export async function reinvitePerson(
  { db, orgId, now, trail }: WriteContext,
  id: number,
): Promise<Required<AddedPerson>> {
  return writeTransaction(db, async (trx) => {
    const person = await findPerson(trx, orgId, id)
    if (!person) throw notFound('The person')
    if (person.password_hash !== null) {
      throw new ApiError(
        'conflict',
        'This person has already set a password: they can reset it from the sign-in page.',
      )
    }
    const invitation = await issueLink(trx, id, 'invitation', now)
    const invited = await findPerson(trx, orgId, id)
    if (!invited) throw notFound('The person')
    await recordAudit(trx, orgId, trail, { kind: 'person', id }, now)
    return { person: summarize(invited), invitation }
  })
}

/**
 * Issues a password-reset link for a person who has a password (the earlier reset link stops working),
 * for the operator to hand over when no email can reach them (`expertdir people invite --reset`).
 */
export async function issueResetLink(
  { db, orgId, now, trail }: WriteContext,
  id: number,
): Promise<{ person: PersonSummary; reset: string }> {
  return writeTransaction(db, async (trx) => {
    const person = await findPerson(trx, orgId, id)
    if (!person) throw notFound('The person')
    if (person.password_hash === null) {
      throw new ApiError('conflict', 'This person has not set a password yet: send an invitation instead.')
    }
    const reset = await issueLink(trx, id, 'reset', now)
    await recordAudit(trx, orgId, trail, { kind: 'person', id }, now)
    return { person: summarize(person), reset }
  })
}

/** Removes a person; their sessions and tokens end at once. The last owner cannot be removed. */
export async function removePerson(
  { db, orgId, now, trail }: WriteContext,
  id: number,
): Promise<PersonSummary> {
  return writeTransaction(db, async (trx) => {
    await lockOwnerCount(trx, orgId)
    const person = await findPerson(trx, orgId, id)
    if (!person) throw notFound('The person')
    if (person.role === 'owner') {
      if (!mayTouchOwner(trail.actor)) throw ownersOnly('Only an owner may remove an owner.')
      if ((await countOwners(trx, orgId)) <= 1) {
        throw new ApiError('conflict', 'The organization must keep an owner: make someone else owner first.')
      }
    }
    await deletePersonRow(trx, orgId, id)
    await recordAudit(trx, orgId, trail, { kind: 'person', id }, now)
    return summarize(person)
  })
}

/** Sets a new password (its policy checked) and ends every session of the person but `keepSession`. */
export async function setPassword(
  db: Kysely<DB>,
  person: Pick<PersonView, 'id' | 'org_id' | 'email'>,
  password: string,
  now: number,
  keepSession?: number,
): Promise<void> {
  const problem = passwordProblem(password, person.email)
  if (problem) throw validationError([{ field: 'password', message: problem }])
  const hash = await hashPassword(password)
  await writeTransaction(db, async (trx) => {
    await updatePersonRow(trx, Number(person.org_id), Number(person.id), {
      password_hash: hash,
      password_must_change: 0,
      updated_at: now,
    })
    await deleteSessionsOf(trx, Number(person.id), keepSession)
    await trx.deleteFrom('person_links').where('person_id', '=', Number(person.id)).execute()
  })
}

/**
 * Sets a password with a single-use link (invitation or reset): in one transaction the link is used
 * up, the password set and every session of the person ended. A refused password leaves the link
 * usable. Returns the person's id, or undefined when the link is unknown, used or expired.
 */
export async function setPasswordWithLink(
  db: Kysely<DB>,
  token: string,
  purpose: LinkPurpose,
  password: string,
  now: number,
): Promise<number | undefined> {
  const problem = passwordProblem(password)
  if (problem) throw validationError([{ field: 'password', message: problem }])
  const hash = await hashPassword(password)
  return writeTransaction(db, async (trx) => {
    const personId = await consumeLink(trx, token, purpose, now)
    const person = personId === undefined ? undefined : await findPersonById(trx, personId)
    if (!person) return undefined
    const sameAsEmail = passwordProblem(password, person.email)
    if (sameAsEmail) throw validationError([{ field: 'password', message: sameAsEmail }])
    await updatePersonRow(trx, Number(person.org_id), Number(person.id), {
      password_hash: hash,
      password_must_change: 0,
      updated_at: now,
    })
    await deleteSessionsOf(trx, Number(person.id))
    return Number(person.id)
  })
}
