import type { Insertable } from 'kysely'
import type { Queryable } from '../db/database.js'
import type { SsoSettingsRow, SsoSettingsTable } from '../db/sso-schema.js'

/** Single sign-on settings queries; each takes the organization but the lookups by email domain. */

export async function findSsoSettings(db: Queryable, orgId: number): Promise<SsoSettingsRow | undefined> {
  return db.selectFrom('sso_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst()
}

export async function findSsoDomains(db: Queryable, orgId: number) {
  return db
    .selectFrom('sso_domains')
    .select(['domain', 'token', 'verified_at', 'verified_by'])
    .where('org_id', '=', orgId)
    .orderBy('domain')
    .execute()
}

/** Which of `domains` another organization lists already. */
export async function domainsClaimedElsewhere(db: Queryable, orgId: number, domains: readonly string[]) {
  if (domains.length === 0) return []
  return db
    .selectFrom('sso_domains')
    .select(['domain', 'org_id', 'verified_at'])
    .where('domain', 'in', domains)
    .where('org_id', '!=', orgId)
    .execute()
}

/** Inserts or replaces the organization's settings row. */
export async function upsertSsoSettings(db: Queryable, row: Insertable<SsoSettingsTable>): Promise<void> {
  const { org_id: _org, created_at: _created, ...changes } = row
  await db
    .insertInto('sso_settings')
    .values(row)
    .onConflict((conflict) => conflict.column('org_id').doUpdateSet(changes))
    .execute()
}

/**
 * Makes `domains` the organization's list: domains it keeps keep their verification, new ones start
 * unverified with a fresh TXT token (`tokenOf`).
 */
export async function replaceSsoDomains(
  db: Queryable,
  orgId: number,
  domains: readonly string[],
  tokenOf: () => string,
): Promise<void> {
  const kept = new Set((await findSsoDomains(db, orgId)).map((row) => row.domain))
  const removed = [...kept].filter((domain) => !domains.includes(domain))
  if (removed.length > 0)
    await db.deleteFrom('sso_domains').where('org_id', '=', orgId).where('domain', 'in', removed).execute()
  const added = domains.filter((domain) => !kept.has(domain))
  if (added.length === 0) return
  await db
    .insertInto('sso_domains')
    .values(added.map((domain) => ({ org_id: orgId, domain, token: tokenOf() })))
    .execute()
}

/** Marks the organization's domain verified; false when it does not list it. */
export async function markDomainVerified(
  db: Queryable,
  orgId: number,
  domain: string,
  by: 'dns' | 'operator',
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('sso_domains')
    .set({ verified_at: now, verified_by: by })
    .where('org_id', '=', orgId)
    .where('domain', '=', domain)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Removes another organization's claim of a domain (the operator gave it to someone else). */
export async function releaseDomain(db: Queryable, domain: string, exceptOrgId: number): Promise<void> {
  await db.deleteFrom('sso_domains').where('domain', '=', domain).where('org_id', '!=', exceptOrgId).execute()
}

/** Deletes the settings (their domains go with them); false when there were none. */
export async function deleteSsoSettings(db: Queryable, orgId: number): Promise<boolean> {
  await db.deleteFrom('sso_domains').where('org_id', '=', orgId).execute()
  const result = await db.deleteFrom('sso_settings').where('org_id', '=', orgId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Whether the organization's people may use passwords (false once its SSO turns them off). */
export async function passwordsAllowed(db: Queryable, orgId: number): Promise<boolean> {
  const row = await db
    .selectFrom('sso_settings')
    .select('passwords_off')
    .where('org_id', '=', orgId)
    .executeTakeFirst()
  return Number(row?.passwords_off ?? 0) === 0
}

/** The organization whose single sign-on answers for an email domain (lower-cased): once verified. */
export async function ssoForDomain(db: Queryable, domain: string) {
  return db
    .selectFrom('sso_domains as d')
    .innerJoin('sso_settings as s', 's.org_id', 'd.org_id')
    .select(['s.org_id', 's.protocol', 's.passwords_off'])
    .where('d.domain', '=', domain)
    .where('d.verified_at', 'is not', null)
    .orderBy('s.org_id')
    .execute()
}
