import type { Kysely } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import { isUniqueViolation } from '../db/database.js'
import type { DB } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { findExpertByEmail } from '../experts/repository.js'
import { findPerson, findPersonByEmail } from '../people/repository.js'
import { addPerson, emailKey, updatePerson } from '../people/service.js'
import { stringsOf } from '../validation/guards.js'
import { findBinding, findBoundPerson, insertBinding, type Subject } from './bindings.js'
import { highestRole, type SsoRole } from './roles.js'
import type { SsoSettings } from './settings.js'

/** Who the identity provider says signed in, whatever the protocol. */
export interface AssertedIdentity {
  /** Who the provider says this is, for good: the binding's key. */
  subject: Subject
  email: string
  name?: string | undefined
  /** Group claim values (OIDC) or group attribute values (SAML), exactly as sent. */
  groups: string[]
}

/** A claim's or attribute's values: one string, or the strings of a list. */
export function valuesOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  return stringsOf(value)
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

function refused(message: string): ApiError {
  return new ApiError('forbidden', message)
}

/** The highest role the person's groups map to, if any. */
export function mappedRole(settings: SsoSettings, groups: readonly string[]): SsoRole | undefined {
  const held = new Set(groups)
  return highestRole(settings.roleMapping.filter((entry) => held.has(entry.group)).map((entry) => entry.role))
}

/** The username of the organization's expert with this email, for a person given the expert role. */
async function expertUsername(db: Kysely<DB>, orgId: number, email: string): Promise<string> {
  const expert = await findExpertByEmail(db, orgId, emailKey(email))
  if (expert?.type !== 'expert') {
    throw refused(
      'Your group gives the expert role, but no expert of this organization has your email address: ask an administrator.',
    )
  }
  return expert.username
}

/** SSO sign-ins change people by the organization's mapping, as the service itself: audited as `system`. */
const SSO_TRAIL: AuditTrail = { actor: { kind: 'system' }, action: 'sso sign-in' }

/** What a verified sign-in leads to: a session, or a link the person must open first. */
export type SignInOutcome =
  | { kind: 'signed-in'; personId: number }
  /** A first sign-in into an account that existed before: the person confirms it (src/sso/confirmation.ts). */
  | { kind: 'confirm'; personId: number; email: string; subject: Subject }

/** Gives a bound person the role their groups map to (an owner keeps being owner). */
async function applyMappedRole(
  db: Kysely<DB>,
  orgId: number,
  personId: number,
  role: SsoRole | undefined,
  now: number,
): Promise<void> {
  if (role === undefined) return
  const person = await findPerson(db, orgId, personId)
  if (!person || person.role === role || person.role === 'owner') return
  await updatePerson({ db, orgId, now, trail: SSO_TRAIL }, personId, {
    role,
    expert: role === 'expert' ? await expertUsername(db, orgId, person.email) : null,
  })
}

/**
 * The person an identity provider vouched for, in the organization whose SSO it is (CONTRACT §14,
 * docs/security.md): the email's domain must be allowed. The provider's subject decides: a person
 * bound to it is signed in (and given the role their groups map to; an owner keeps being owner).
 * An unbound person whose email matches must confirm the first sign-in (`confirm`), and one bound to
 * another subject is refused. Someone without an account is created and bound when the organization
 * allows it, with the highest mapped role or the default role, and refused otherwise.
 */
export async function resolvePerson(
  db: Kysely<DB>,
  settings: SsoSettings,
  identity: AssertedIdentity,
  now: number,
): Promise<SignInOutcome> {
  const email = identity.email.trim()
  if (!EMAIL.test(email) || email.length > 254) {
    throw refused('The identity provider sent no usable email address for you: ask its administrators.')
  }
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase()
  if (settings.allowedDomains.length > 0 && !settings.allowedDomains.includes(domain)) {
    throw refused(`Addresses at ${domain} may not sign in to this organization.`)
  }
  const { orgId } = settings
  const { subject } = identity
  const role = mappedRole(settings, identity.groups)
  const bound = await findBoundPerson(db, orgId, subject)
  if (bound !== undefined) {
    await applyMappedRole(db, orgId, bound, role, now)
    return { kind: 'signed-in', personId: bound }
  }
  const existing = await findPersonByEmail(db, emailKey(email))
  if (existing) {
    if (Number(existing.org_id) !== orgId) {
      throw refused('Your account belongs to another organization: sign in there.')
    }
    const id = Number(existing.id)
    if (await findBinding(db, orgId, id)) throw anotherSubject()
    return { kind: 'confirm', personId: id, email: existing.email, subject }
  }
  if (!settings.allowCreate) {
    throw refused('You have no account in this organization yet: ask an administrator to invite you.')
  }
  const newRole = role ?? settings.defaultRole
  if (newRole === null) {
    throw refused('None of your groups gives a role in this organization: ask an administrator.')
  }
  const person = {
    email,
    role: newRole,
    name: identity.name,
    expert: newRole === 'expert' ? await expertUsername(db, orgId, email) : undefined,
    invite: false,
  }
  let id: number
  try {
    id = (await addPerson({ db, orgId, now, trail: SSO_TRAIL }, person)).person.id
  } catch (error) {
    // A first sign-in of the same person in another tab or process created the account meanwhile.
    const created = error instanceof ApiError && error.code === 'conflict'
    const raced = created ? await findPersonByEmail(db, emailKey(email)) : undefined
    if (
      raced &&
      Number(raced.org_id) === orgId &&
      (await findBoundPerson(db, orgId, subject)) === Number(raced.id)
    )
      return { kind: 'signed-in', personId: Number(raced.id) }
    throw error
  }
  try {
    await insertBinding(db, orgId, id, subject, now)
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    if ((await findBoundPerson(db, orgId, subject)) !== id) throw anotherSubject()
  }
  return { kind: 'signed-in', personId: id }
}

function anotherSubject(): ApiError {
  return refused(
    'Your account is linked to another identity at this organization’s identity provider: this sign-in is for someone else. ' +
      'Sign in as yourself there, or ask your organization’s owner.',
  )
}
