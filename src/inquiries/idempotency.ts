import { createHash } from 'node:crypto'
import type { Queryable } from '../db/database.js'
import { ApiError } from '../errors.js'
import { isObject } from '../validation/guards.js'

/** How long a key remembers its first response (24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

/** JSON with sorted keys, so that field order (and JSON versus form) does not change the fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (!isObject(value)) return JSON.stringify(value)
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
}

/**
 * SHA-256 of the route and the validated body (trimmed, form numbers coerced). The route is part of
 * it: keys are scoped to the organization, so one key reused on the other inquiry route is a conflict.
 */
export function fingerprint(route: string, body: unknown): string {
  return createHash('sha256').update(route).update('\n').update(canonical(body)).digest('hex')
}

export function keyConflict(): ApiError {
  return new ApiError(
    'conflict',
    'This Idempotency-Key was already used with a different request: send a new key for a new inquiry.',
    { details: [{ field: 'idempotency-key', message: 'was already used with a different body or route' }] },
  )
}

/** The stored first response of `key`, if it is still live; an expired one is removed. */
export async function findIdempotentResponse(
  db: Queryable,
  orgId: number,
  key: string,
  now: number,
): Promise<{ fingerprint: string; response: unknown } | undefined> {
  await db
    .deleteFrom('idempotency_keys')
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .where('expires_at', '<=', now)
    .execute()
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'response'])
    .where('org_id', '=', orgId)
    .where('key', '=', key)
    .executeTakeFirst()
  return row && { fingerprint: row.fingerprint, response: JSON.parse(row.response) }
}

/** Records the first response; a concurrent request that stored the same key first makes this throw. */
export async function storeIdempotentResponse(
  db: Queryable,
  orgId: number,
  key: string,
  print: string,
  response: unknown,
  now: number,
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      org_id: orgId,
      key,
      fingerprint: print,
      response: JSON.stringify(response),
      created_at: now,
      expires_at: now + IDEMPOTENCY_TTL_MS,
    })
    .execute()
}

/** Removes every expired key (run by the outbox worker now and then). */
export async function purgeExpiredKeys(db: Queryable, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
