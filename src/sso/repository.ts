import type { Insertable } from 'kysely'
import type { Queryable } from '../db/database.js'
import type { SsoSettingsRow, SsoSettingsTable } from '../db/sso-schema.js'

/** Single sign-on settings queries; each takes the organization but the lookup by email domain. */

export async function findSsoSettings(db: Queryable, orgId: number): Promise<SsoSettingsRow | undefined> {
  return db.selectFrom('sso_settings').selectAll().where('org_id', '=', orgId).executeTakeFirst()
}

export async function findSsoDomains(db: Queryable, orgId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('sso_domains')
    .select('domain')
    .where('org_id', '=', orgId)
    .orderBy('domain')
    .execute()
  return rows.map((row) => row.domain)
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

export async function replaceSsoDomains(db: Queryable, orgId: number, domains: string[]): Promise<void> {
  await db.deleteFrom('sso_domains').where('org_id', '=', orgId).execute()
  if (domains.length === 0) return
  await db
    .insertInto('sso_domains')
    .values(domains.map((domain) => ({ org_id: orgId, domain })))
    .execute()
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

/** The organizations whose single sign-on answers for an email domain (lower-cased). */
export async function ssoForDomain(db: Queryable, domain: string) {
  return db
    .selectFrom('sso_domains as d')
    .innerJoin('sso_settings as s', 's.org_id', 'd.org_id')
    .select(['s.org_id', 's.protocol', 's.passwords_off'])
    .where('d.domain', '=', domain)
    .orderBy('s.org_id')
    .execute()
}
