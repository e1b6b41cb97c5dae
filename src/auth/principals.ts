import type pg from 'pg'
import { type Database, postgresPoolOf } from '../db/database.js'
import type { ReadConnection } from '../db/read-connection.js'
import { SqliteError } from '../db/sqlite.js'
import {
  queryTargetVersion,
  type ReadTarget,
  readTargetVersion,
  targetKey,
} from '../kept-reads/read-targets.js'
import { ValidatedAnswers } from '../kept-reads/validated-answers.js'
import { propertyOf } from '../validation/guards.js'
import { principalBatches } from './principal-batches.js'
import { storedScopes } from './scopes.js'
import { hashToken } from './secrets.js'
import { findPrincipal, type Principal } from './tokens.js'

/** A live token's principal and, when the route named one, its read target's version (null: no such record). */
export interface Resolution {
  principal: Principal
  /** Undefined when no target was asked for or its version is not known here. */
  version?: string | null
}

/** Resolves bearer tokens to principals, with the version of the record the route reads. */
export interface PrincipalResolver {
  /** Synchronous when the answer is kept in the process, a promise when it is read from the database. */
  resolve(token: string, target?: ReadTarget): Resolution | undefined | Promise<Resolution | undefined>
}

/** A token row (token, client, organization) as a principal; undefined when the row is not one. */
function principalOf(row: unknown, tokenHash: string): Principal | undefined {
  const orgId = propertyOf(row, 'org_id')
  const clientId = propertyOf(row, 'client_id')
  const expiresAt = propertyOf(row, 'expires_at')
  const scope = propertyOf(row, 'scope')
  if (typeof clientId !== 'string' || typeof scope !== 'string') return undefined
  return {
    orgId: Number(orgId),
    clientId,
    tokenHash,
    expiresAt: Number(expiresAt),
    scopes: storedScopes(scope),
  }
}

/** The token check of tokens.ts, whatever the time: a kept answer's expiry is checked per request. */
const TOKEN_SQL = `select t.org_id, t.client_id, t.expires_at, t.scope
  from access_tokens t
  join clients c on c.client_id = t.client_id
  join organizations o on o.id = c.org_id
  where t.token_hash = ? and c.revoked_at is null and c.org_id = t.org_id`

const versionOf = (row: unknown): string | null => {
  const version = propertyOf(row, 'version')
  return typeof version === 'string' ? version : null
}

/** Statements of token checks running at once on PostgreSQL: half the pool, the group commit has the other. */
const postgresLookupSlots = (pool: pg.Pool) => Math.max(1, Math.floor((pool.options.max ?? 10) / 2))

/** Bytes of kept answers (tokens and versions) on SQLite; each is a few hundred bytes. */
const ANSWER_BYTES = 8 * 1024 * 1024
const PRINCIPAL_BYTES = 300

/**
 * Resolves client tokens (dashboard tokens: src/sessions/principals.ts) and the route's read target.
 *
 * - SQLite in a file: from answers kept in the process and read on the read-only connection, trusted
 *   while its `data_version` is unchanged (src/kept-reads/validated-answers.ts): a request whose answers
 *   are kept costs one pragma. A revocation, a scope change or any write, by this process or another,
 *   commits, which moves `data_version`: the next request reads again. The expiry is checked against
 *   the clock on every request.
 * - PostgreSQL: the token check and the target's version in one named statement, shared by the
 *   requests that arrive while the statements before it run (src/auth/principal-batches.ts).
 * - Otherwise (`:memory:`, the read connection busy): the token check, then the version.
 */
export function databasePrincipals(context: { database: Database; now: () => number }): PrincipalResolver {
  const { database, now } = context
  const connection = database.readConnection()
  const kept = connection ? keptAnswers(connection) : undefined
  const pool = postgresPoolOf(database.db)
  const batches = pool && principalBatches(pool, postgresLookupSlots(pool))

  async function fromDatabase(tokenHash: string, time: number, target: ReadTarget | undefined) {
    if (batches) {
      const row = await batches({ tokenHash, time, target })
      const principal = principalOf(row, tokenHash)
      return principal && { principal, version: target ? versionOf(row) : undefined }
    }
    const principal = await findPrincipal(database, tokenHash, time)
    if (!principal) return undefined
    const version = target ? await queryTargetVersion(database.db, database.dialect, target) : undefined
    return { principal, version }
  }

  return {
    resolve(token, target) {
      const tokenHash = hashToken(token)
      const time = now()
      const answer = kept?.(tokenHash, target)
      if (answer === undefined) return fromDatabase(tokenHash, time, target)
      if (!answer.principal || answer.principal.expiresAt <= time) return undefined
      return { principal: answer.principal, version: answer.version }
    },
  }
}

/**
 * The kept answers of the read connection; undefined when it could not answer now (SQLITE_BUSY during
 * a WAL recovery, or any other error): the caller then asks through the main connection.
 */
function keptAnswers(connection: ReadConnection) {
  const validated = new ValidatedAnswers(connection)
  const principals = validated.map<Principal>(ANSWER_BYTES / 2, () => PRINCIPAL_BYTES)
  const versions = validated.map<{ version: string }>(ANSWER_BYTES / 2, ({ version }) => 2 * version.length)
  return (
    tokenHash: string,
    target: ReadTarget | undefined,
  ): { principal: Principal | null; version?: string | null } | undefined => {
    try {
      validated.refresh()
      const principal = principals.get(
        tokenHash,
        (read) => principalOf(read.all(TOKEN_SQL, [tokenHash])[0], tokenHash) ?? null,
      )
      if (!principal || !target) return { principal }
      const version = versions.get(targetKey(target), (read) => {
        const found = readTargetVersion(read, target)
        return found === null ? null : { version: found }
      })
      return { principal, version: version?.version ?? null }
    } catch (error) {
      if (error instanceof SqliteError) return undefined
      throw error
    }
  }
}
