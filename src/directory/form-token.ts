import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Queryable } from '../db/database.js'

/**
 * Signed contact-form tokens: `<issued at, unix ms>.<HMAC-SHA256>` over the organization, the expert,
 * the inquiry kind and the time, with a secret per organization kept in the database (so that every
 * server process checks what another issued). A token proves the form came from our page and when:
 * sent sooner than a person can fill the form, or long after, it is refused.
 */

/** A person takes longer than this to fill the form; a script that posts at once does not. */
export const MIN_FILL_MS = 3_000
/** A form older than this is refused (the person gets a fresh one with their text kept). */
export const MAX_AGE_MS = 2 * 60 * 60 * 1000

export type TokenCheck = 'valid' | 'missing' | 'invalid' | 'too_fast' | 'expired'

/** What a token is bound to. */
export interface FormScope {
  orgId: number
  username: string
  kind: string
}

const secrets = new WeakMap<object, Map<number, Buffer>>()

/** The organization's form secret, made on first use and kept in the process (it never changes). */
export async function formSecret(db: Queryable, orgId: number, now: number): Promise<Buffer> {
  const known = secrets.get(db) ?? new Map<number, Buffer>()
  secrets.set(db, known)
  const kept = known.get(orgId)
  if (kept) return kept
  await db
    .insertInto('directory_form_keys')
    .values({ org_id: orgId, secret: randomBytes(32).toString('base64url'), created_at: now })
    .onConflict((conflict) => conflict.column('org_id').doNothing())
    .execute()
  const row = await db
    .selectFrom('directory_form_keys')
    .select('secret')
    .where('org_id', '=', orgId)
    .executeTakeFirstOrThrow()
  const secret = Buffer.from(row.secret, 'base64url')
  known.set(orgId, secret)
  return secret
}

function signature(secret: Buffer, scope: FormScope, issuedAt: number): Buffer {
  return createHmac('sha256', secret)
    .update(`${scope.orgId}\n${scope.username}\n${scope.kind}\n${issuedAt}`)
    .digest()
}

export function issueToken(secret: Buffer, scope: FormScope, now: number): string {
  return `${now}.${signature(secret, scope, now).toString('base64url')}`
}

const TOKEN = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/

export function checkToken(secret: Buffer, token: unknown, scope: FormScope, now: number): TokenCheck {
  if (typeof token !== 'string' || token === '') return 'missing'
  const match = TOKEN.exec(token)
  if (!match?.[1] || !match[2]) return 'invalid'
  const issuedAt = Number(match[1])
  const given = Buffer.from(match[2], 'base64url')
  if (!timingSafeEqual(given, signature(secret, scope, issuedAt))) return 'invalid'
  if (now - issuedAt < MIN_FILL_MS) return 'too_fast'
  if (now - issuedAt > MAX_AGE_MS) return 'expired'
  return 'valid'
}
