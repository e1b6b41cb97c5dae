import { createHmac } from 'node:crypto'
import type { CacheItem, CacheProvider } from '@node-saml/node-saml'
import type { Kysely } from 'kysely'
import { hashToken, randomToken } from '../auth/secrets.js'
import { isUniqueViolation, type Queryable } from '../db/database.js'
import type { DB } from '../db/schema.js'
import { purgeExpiredConfirmations } from './bindings.js'
import type { Protocol } from './schemas.js'

/**
 * Browser sign-ins under way (docs/security.md, "Single sign-on"). Starting one sets a short-lived
 * HttpOnly cookie holding a random value; the database keeps only its SHA-256 with the organization,
 * so the sign-in completes only in the browser that started it, once, within `TRANSACTION_TTL_MS`,
 * whichever process receives the answer. OIDC's state, nonce and PKCE verifier are derived from the
 * cookie's value, so they are stored nowhere. A SAML request's id is stored to be matched with the
 * response's InResponseTo.
 */

export const TRANSACTION_TTL_MS = 10 * 60_000

/** A new transaction's cookie value. */
export function newTransactionKey(): string {
  return randomToken(32)
}

function derive(key: string, purpose: string): string {
  return createHmac('sha256', key).update(purpose).digest('base64url')
}

/** The OIDC values of a transaction, from its cookie's value. */
export function oidcValues(key: string) {
  return { state: derive(key, 'state'), nonce: derive(key, 'nonce'), codeVerifier: derive(key, 'pkce') }
}

export async function insertTransaction(
  db: Queryable,
  key: string,
  orgId: number,
  protocol: Protocol,
  now: number,
  requestId: string | null = null,
): Promise<void> {
  await db
    .insertInto('sso_transactions')
    .values({
      key_hash: hashToken(key),
      org_id: orgId,
      protocol,
      request_id: requestId,
      created_at: now,
      expires_at: now + TRANSACTION_TTL_MS,
    })
    .execute()
}

/** Uses up an OIDC transaction: its organization when it was live. Only one of two concurrent uses finds it. */
export async function takeOidcTransaction(
  db: Queryable,
  key: string,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .deleteFrom('sso_transactions')
    .where('key_hash', '=', hashToken(key))
    .where('protocol', '=', 'oidc')
    .returning(['org_id', 'expires_at'])
    .executeTakeFirst()
  return row && Number(row.expires_at) > now ? Number(row.org_id) : undefined
}

/**
 * node-saml's store of the AuthnRequest ids it issued, kept in the database so that the process that
 * receives the response need not be the one that sent the request. `removeAsync` is the atomic claim of
 * a request: of two responses to one request, only one claims it (`claimed`).
 */
export interface SamlRequestStore extends CacheProvider {
  claimed(requestId: string): boolean
}

export function samlRequestStore(
  db: Kysely<DB>,
  orgId: number,
  now: () => number,
  /** The cookie value of the transaction a new request starts (only when starting one). */
  key?: string,
): SamlRequestStore {
  const won = new Set<string>()
  return {
    async saveAsync(requestId: string, value: string): Promise<CacheItem | null> {
      if (key === undefined) throw new Error('a SAML request can only be stored when a sign-in starts')
      await insertTransaction(db, key, orgId, 'saml', now(), requestId)
      return { value, createdAt: now() }
    },
    async getAsync(requestId: string): Promise<string | null> {
      const row = await db
        .selectFrom('sso_transactions')
        .select('created_at')
        .where('request_id', '=', requestId)
        .where('org_id', '=', orgId)
        .where('protocol', '=', 'saml')
        .where('answered_at', 'is', null)
        .where('expires_at', '>', now())
        .executeTakeFirst()
      return row ? new Date(Number(row.created_at)).toISOString() : null
    },
    async removeAsync(requestId: string | null): Promise<string | null> {
      if (requestId === null) return null
      const result = await db
        .updateTable('sso_transactions')
        .set({ answered_at: now() })
        .where('request_id', '=', requestId)
        .where('org_id', '=', orgId)
        .where('answered_at', 'is', null)
        .executeTakeFirst()
      if (Number(result.numUpdatedRows) !== 1) return null
      won.add(requestId)
      return requestId
    },
    claimed: (requestId) => won.has(requestId),
  }
}

/** The SHA-256 of the cookie of the browser that started the SAML request (the ACS arrives without it). */
export async function samlTransactionKeyHash(
  db: Queryable,
  orgId: number,
  requestId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('sso_transactions')
    .select('key_hash')
    .where('request_id', '=', requestId)
    .where('org_id', '=', orgId)
    .executeTakeFirst()
  return row?.key_hash
}

/** Records who the answered SAML request signed in, for the browser to complete the sign-in. */
export async function recordSamlPerson(
  db: Queryable,
  orgId: number,
  requestId: string,
  personId: number,
): Promise<void> {
  await db
    .updateTable('sso_transactions')
    .set({ person_id: personId })
    .where('request_id', '=', requestId)
    .where('org_id', '=', orgId)
    .where('answered_at', 'is not', null)
    .execute()
}

/** Uses up an answered SAML transaction: the person it signs in, when it was live and answered. */
export async function takeSamlTransaction(
  db: Queryable,
  key: string,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .deleteFrom('sso_transactions')
    .where('key_hash', '=', hashToken(key))
    .where('protocol', '=', 'saml')
    .returning(['person_id', 'expires_at'])
    .executeTakeFirst()
  if (!row || row.person_id === null || Number(row.expires_at) <= now) return undefined
  return Number(row.person_id)
}

/**
 * The replay cache: records a SAML assertion's id until its end of validity. False when the id was
 * seen before (by any process: the primary key decides, atomically).
 */
export async function recordAssertion(
  db: Queryable,
  orgId: number,
  assertionId: string,
  expiresAt: number,
): Promise<boolean> {
  try {
    await db
      .insertInto('sso_assertions')
      .values({ org_id: orgId, assertion_id: assertionId, expires_at: expiresAt })
      .execute()
    return true
  } catch (error) {
    if (isUniqueViolation(error)) return false
    throw error
  }
}

/** Housekeeping: deletes transactions, remembered assertion ids and confirmations past their end; returns how many. */
export async function purgeExpiredSso(db: Queryable, now: number): Promise<number> {
  const transactions = await db
    .deleteFrom('sso_transactions')
    .where('expires_at', '<=', now)
    .executeTakeFirst()
  const assertions = await db.deleteFrom('sso_assertions').where('expires_at', '<=', now).executeTakeFirst()
  const confirmations = await purgeExpiredConfirmations(db, now)
  return Number(transactions.numDeletedRows) + Number(assertions.numDeletedRows) + confirmations
}
