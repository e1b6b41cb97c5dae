import { hashToken, randomToken } from '../auth/secrets.js'
import type { Queryable } from '../db/database.js'

/**
 * Who a person is at the organization's identity provider (docs/security.md, "Single sign-on"): the
 * provider's subject, not the email it asserts, decides whom a sign-in is for once a person is bound.
 * A person is bound when single sign-on creates them, or when they confirm their first sign-in into
 * an account that existed before (the link emailed to them, opened in the browser that signed in).
 * Every binding of an organization is forgotten when its identity provider changes.
 */

/** The provider's subject: OIDC issuer and `sub`, or the SAML IdP's entity id and persistent NameID. */
export interface Subject {
  issuer: string
  subject: string
}

/** How long the emailed confirmation link (and the browser's cookie it needs) stays valid. */
export const CONFIRMATION_TTL_MS = 30 * 60_000

export async function findBoundPerson(db: Queryable, orgId: number, subject: Subject) {
  const row = await db
    .selectFrom('sso_identities')
    .select('person_id')
    .where('org_id', '=', orgId)
    .where('issuer', '=', subject.issuer)
    .where('subject', '=', subject.subject)
    .executeTakeFirst()
  return row ? Number(row.person_id) : undefined
}

export async function findBinding(db: Queryable, orgId: number, personId: number) {
  return db
    .selectFrom('sso_identities')
    .select(['issuer', 'subject'])
    .where('org_id', '=', orgId)
    .where('person_id', '=', personId)
    .executeTakeFirst()
}

/** Binds the person; a unique violation means the person or the subject is bound already. */
export async function insertBinding(
  db: Queryable,
  orgId: number,
  personId: number,
  subject: Subject,
  now: number,
): Promise<void> {
  await db
    .insertInto('sso_identities')
    .values({ person_id: personId, org_id: orgId, ...subject, created_at: now })
    .execute()
}

/** Forgets every binding and pending confirmation of the organization (its provider changed). */
export async function forgetBindings(db: Queryable, orgId: number): Promise<number> {
  const bound = await db.deleteFrom('sso_identities').where('org_id', '=', orgId).executeTakeFirst()
  await db.deleteFrom('sso_confirmations').where('org_id', '=', orgId).execute()
  return Number(bound.numDeletedRows)
}

/**
 * Records a first sign-in into an existing account, to be confirmed by the person: returns the
 * link's token (stored only as its SHA-256). `keyHash` is the SHA-256 of the browser's transaction
 * cookie: the link works only where that cookie is. An earlier pending confirmation of the person is
 * replaced.
 */
export async function insertConfirmation(
  db: Queryable,
  orgId: number,
  personId: number,
  subject: Subject,
  keyHash: string,
  now: number,
): Promise<string> {
  const token = randomToken(32)
  await db.deleteFrom('sso_confirmations').where('person_id', '=', personId).execute()
  await db
    .insertInto('sso_confirmations')
    .values({
      token_hash: hashToken(token),
      key_hash: keyHash,
      org_id: orgId,
      person_id: personId,
      ...subject,
      created_at: now,
      expires_at: now + CONFIRMATION_TTL_MS,
    })
    .execute()
  return token
}

/**
 * Uses up a confirmation: only with the link's token and the cookie of the browser that signed in,
 * within its lifetime. A request without the right cookie (a mail scanner's, another browser's)
 * leaves it in place.
 */
export async function takeConfirmation(db: Queryable, token: string, key: string, now: number) {
  const row = await db
    .deleteFrom('sso_confirmations')
    .where('token_hash', '=', hashToken(token))
    .where('key_hash', '=', hashToken(key))
    .returning(['org_id', 'person_id', 'issuer', 'subject', 'expires_at'])
    .executeTakeFirst()
  if (!row || Number(row.expires_at) <= now) return undefined
  return {
    orgId: Number(row.org_id),
    personId: Number(row.person_id),
    subject: { issuer: row.issuer, subject: row.subject },
  }
}

/** Whether a confirmation waits for the browser whose transaction cookie is `key`. */
export async function confirmationPending(db: Queryable, key: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('sso_confirmations')
    .select('person_id')
    .where('key_hash', '=', hashToken(key))
    .where('expires_at', '>', now)
    .executeTakeFirst()
  return row !== undefined
}

/** Housekeeping: deletes confirmations past their end; returns how many. */
export async function purgeExpiredConfirmations(db: Queryable, now: number): Promise<number> {
  const result = await db.deleteFrom('sso_confirmations').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
