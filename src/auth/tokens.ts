import type { Database, Queryable } from '../db/database.js'
import { reusableQuery } from '../db/reusable-query.js'
import { formatScopes, type Scope, storedScopes } from './scopes.js'
import { hashToken, randomToken } from './secrets.js'

/** Who a request acts for: resolved once per request by the bearer hook. */
export interface Principal {
  orgId: number
  clientId: string
  /** SHA-256 of the bearer token: a key for per-token limits and caches that never holds the token. */
  tokenHash: string
  /** Unix milliseconds after which the token is dead. */
  expiresAt: number
  /** What the token was granted (CONTRACT §13). */
  scopes: readonly Scope[]
  /** Set for a signed-in person's token (POST /auth/token); absent for a client's. */
  person?: PersonPrincipal
}

/** The person behind a dashboard token. */
export interface PersonPrincipal {
  id: number
  role: string
  /**
   * Set when the token reaches only one expert (the `expert` role): that expert's username, or null
   * when its expert no longer exists (then it reaches nothing).
   */
  reach?: { username: string | null }
  /** Set when the request reaches a profile through the person's grant as its delegate: that profile's username. */
  onBehalfOf?: string
}

export interface IssuedToken {
  accessToken: string
  expiresAt: number
}

export async function issueToken(
  db: Queryable,
  principal: Pick<Principal, 'orgId' | 'clientId' | 'scopes'>,
  now: number,
  ttlSeconds: number,
): Promise<IssuedToken> {
  const accessToken = randomToken(32)
  const expiresAt = now + ttlSeconds * 1000
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: hashToken(accessToken),
      client_id: principal.clientId,
      org_id: principal.orgId,
      created_at: now,
      expires_at: expiresAt,
      scope: formatScopes(principal.scopes),
    })
    .execute()
  return { accessToken, expiresAt }
}

/**
 * The token check: token, client and organization in one statement, by the token's primary key (a
 * named statement on PostgreSQL). A revoked client, an expired or deleted token, or a token whose
 * client belongs elsewhere finds no row.
 */
const principalRow = reusableQuery(
  (db: Queryable, tokenHash: string, now: number) =>
    db
      .selectFrom('access_tokens as t')
      .innerJoin('clients as c', 'c.client_id', 't.client_id')
      .innerJoin('organizations as o', 'o.id', 'c.org_id')
      .select(['t.org_id', 't.client_id', 't.expires_at', 't.scope'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.expires_at', '>', now)
      .where('c.revoked_at', 'is', null)
      .whereRef('c.org_id', '=', 't.org_id'),
  'expertdir_principal',
)

/** The principal of a live token (known, unexpired, client not revoked), by the token's hash: one round trip. */
export async function findPrincipal(
  database: Database,
  tokenHash: string,
  now: number,
): Promise<Principal | undefined> {
  const [row] = await principalRow(database.db, tokenHash, now)
  if (!row) return undefined
  return {
    orgId: Number(row.org_id),
    clientId: row.client_id,
    tokenHash,
    expiresAt: Number(row.expires_at),
    scopes: storedScopes(row.scope),
  }
}

/** Deletes one token of `clientId` (a client can only revoke its own tokens). */
export async function revokeToken(db: Queryable, clientId: string, tokenHash: string): Promise<void> {
  await db
    .deleteFrom('access_tokens')
    .where('token_hash', '=', tokenHash)
    .where('client_id', '=', clientId)
    .execute()
}

/** Deletes tokens that expired before `now`; returns how many. */
export async function purgeExpiredTokens(db: Queryable, now: number): Promise<number> {
  const result = await db.deleteFrom('access_tokens').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
