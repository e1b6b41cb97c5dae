import { hashToken, randomToken } from '../auth/secrets.js'
import type { Config } from '../config.js'
import type { Queryable } from '../db/database.js'

/** Single-use links sent to a person: an invitation (sets the first password) or a password reset. */
export type LinkPurpose = 'invitation' | 'reset'

/** How long each kind of link stays valid. */
export const LINK_TTL_MS: Record<LinkPurpose, number> = {
  invitation: 7 * 24 * 3600 * 1000,
  reset: 3600 * 1000,
}

/** Where the dashboard takes each link; the token rides in the fragment, which browsers never send to a server. */
const LINK_PATHS: Record<LinkPurpose, string> = { invitation: '/admin/invitation', reset: '/admin/reset' }

/**
 * The base of every link the service sends by email or prints (invitations, resets): the configured
 * public address (`EXPERTDIR_PUBLIC_URL`), else the address the server is configured to listen on.
 * Never the request's `Host` or `X-Forwarded-Host`: a client chooses those, and a reset link pointing
 * at the client's host would hand it the token (docs/security.md, "Emailed links").
 */
export function linkBase(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '')
  const { host, port } = config
  const named =
    host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host
  return `http://${named}:${port}`
}

export function linkUrl(baseUrl: string, purpose: LinkPurpose, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${LINK_PATHS[purpose]}#token=${token}`
}

/**
 * Issues a link for the person, replacing any earlier link of the same purpose (only the newest works).
 * Returns the token, which is stored only as its SHA-256.
 */
export async function issueLink(
  db: Queryable,
  personId: number,
  purpose: LinkPurpose,
  now: number,
): Promise<string> {
  const token = randomToken(32)
  await db
    .deleteFrom('person_links')
    .where('person_id', '=', personId)
    .where('purpose', '=', purpose)
    .execute()
  await db
    .insertInto('person_links')
    .values({
      token_hash: hashToken(token),
      person_id: personId,
      purpose,
      created_at: now,
      expires_at: now + LINK_TTL_MS[purpose],
    })
    .execute()
  return token
}

/**
 * Uses up a link: deletes it and returns its person's id when it was live and of `purpose`. Two
 * concurrent uses of one link cannot both succeed: only one delete finds the row.
 */
export async function consumeLink(
  db: Queryable,
  token: string,
  purpose: LinkPurpose,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .deleteFrom('person_links')
    .where('token_hash', '=', hashToken(token))
    .where('purpose', '=', purpose)
    .returning(['person_id', 'expires_at'])
    .executeTakeFirst()
  if (!row || Number(row.expires_at) <= now) return undefined
  return Number(row.person_id)
}

/** The organization of a link's person, without using the link up; undefined for an unknown link. */
export async function linkOrganization(
  db: Queryable,
  token: string,
  purpose: LinkPurpose,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('person_links as l')
    .innerJoin('people as p', 'p.id', 'l.person_id')
    .select('p.org_id')
    .where('l.token_hash', '=', hashToken(token))
    .where('l.purpose', '=', purpose)
    .executeTakeFirst()
  return row ? Number(row.org_id) : undefined
}

/** Deletes invitation and reset links past their end; returns how many. */
export async function purgeExpiredLinks(db: Queryable, now: number): Promise<number> {
  const result = await db.deleteFrom('person_links').where('expires_at', '<=', now).executeTakeFirst()
  return Number(result.numDeletedRows)
}
