import { hashToken, randomToken } from '../auth/secrets.js'
import type { Queryable } from '../db/database.js'

/** Session and dashboard-token queries. Secrets are looked up by their SHA-256 only. */

/** Bearer tokens minted for people start with this, so the bearer check knows which table to ask. */
export const PERSON_TOKEN_PREFIX = 'p.'

export interface Lifetimes {
  /** A session unused this long ends. */
  idleMs: number
  /** A session ends this long after sign-in, however used. */
  maxMs: number
}

export interface LiveSession {
  id: number
  person_id: number
  org_id: number
  email: string
  name: string
  role: string
  expert_username: string | null
  password_must_change: number
  created_at: number
  expires_at: number
}

/** Starts a session for the person; returns the cookie value (stored only as its hash). */
export async function createSession(
  db: Queryable,
  personId: number,
  now: number,
  lifetimes: Lifetimes,
): Promise<string> {
  const token = randomToken(32)
  await db
    .insertInto('person_sessions')
    .values({
      token_hash: hashToken(token),
      person_id: personId,
      created_at: now,
      last_seen_at: now,
      expires_at: now + lifetimes.maxMs,
    })
    .execute()
  return token
}

/**
 * The live session of a cookie value, read from the table on every request (no cache: a sign-out,
 * password change or removal in any process ends it for the very next request), and marks it used.
 */
export async function useSession(
  db: Queryable,
  token: string,
  now: number,
  lifetimes: Lifetimes,
): Promise<LiveSession | undefined> {
  const row = await db
    .selectFrom('person_sessions as s')
    .innerJoin('people as p', 'p.id', 's.person_id')
    .leftJoin('experts as e', (join) =>
      join.onRef('e.id', '=', 'p.expert_id').onRef('e.org_id', '=', 'p.org_id'),
    )
    .select([
      's.id',
      's.person_id',
      'p.org_id',
      'p.email',
      'p.name',
      'p.role',
      'e.username as expert_username',
      'p.password_must_change',
      's.created_at',
      's.expires_at',
    ])
    .where('s.token_hash', '=', hashToken(token))
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', now - lifetimes.idleMs)
    .executeTakeFirst()
  if (!row) return undefined
  await db.updateTable('person_sessions').set({ last_seen_at: now }).where('id', '=', row.id).execute()
  return {
    ...row,
    id: Number(row.id),
    person_id: Number(row.person_id),
    org_id: Number(row.org_id),
    password_must_change: Number(row.password_must_change),
    created_at: Number(row.created_at),
    expires_at: Number(row.expires_at),
  }
}

export async function endSession(db: Queryable, sessionId: number): Promise<void> {
  await db.deleteFrom('person_sessions').where('id', '=', sessionId).execute()
}

/** Mints a dashboard bearer token bound to the session: it dies with it. */
export async function issuePersonToken(
  db: Queryable,
  sessionId: number,
  now: number,
  ttlMs: number,
): Promise<{ token: string; expiresAt: number }> {
  const token = `${PERSON_TOKEN_PREFIX}${randomToken(32)}`
  const expiresAt = now + ttlMs
  await db
    .insertInto('person_tokens')
    .values({ token_hash: hashToken(token), session_id: sessionId, created_at: now, expires_at: expiresAt })
    .execute()
  return { token, expiresAt }
}

/**
 * A live dashboard token with its person: token, session (unexpired, not idle) and person in one
 * statement. A token whose session ended, or whose person was removed, finds no row.
 */
export async function findPersonToken(db: Queryable, tokenHash: string, now: number, lifetimes: Lifetimes) {
  const row = await db
    .selectFrom('person_tokens as t')
    .innerJoin('person_sessions as s', 's.id', 't.session_id')
    .innerJoin('people as p', 'p.id', 's.person_id')
    .leftJoin('experts as e', (join) =>
      join.onRef('e.id', '=', 'p.expert_id').onRef('e.org_id', '=', 'p.org_id'),
    )
    .select([
      'p.id',
      'p.org_id',
      'p.role',
      'p.password_must_change',
      'e.username as expert_username',
      't.expires_at',
    ])
    .where('t.token_hash', '=', tokenHash)
    .where('t.expires_at', '>', now)
    .where('s.expires_at', '>', now)
    .where('s.last_seen_at', '>', now - lifetimes.idleMs)
    .executeTakeFirst()
  if (!row || Number(row.password_must_change) === 1) return undefined
  return {
    personId: Number(row.id),
    orgId: Number(row.org_id),
    role: row.role,
    expertUsername: row.expert_username,
    expiresAt: Number(row.expires_at),
  }
}

/**
 * Deletes dashboard tokens and sessions past their absolute end; returns how many rows went. (A session
 * that went idle is refused at once and deleted here when its absolute end comes.)
 */
export async function purgeExpiredSessions(db: Queryable, now: number): Promise<number> {
  const tokens = await db.deleteFrom('person_tokens').where('expires_at', '<=', now).executeTakeFirst()
  const sessions = await db.deleteFrom('person_sessions').where('expires_at', '<=', now).executeTakeFirst()
  return Number(tokens.numDeletedRows) + Number(sessions.numDeletedRows)
}
