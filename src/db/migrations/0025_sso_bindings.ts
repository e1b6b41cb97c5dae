import { randomBytes } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { bigint } from './columns.js'

/**
 * Single sign-on binds people to the identity provider's subject, and email domains are verified
 * before they route anyone (docs/security.md, "Single sign-on"):
 *
 * - `sso_identities`: the provider's subject (OIDC issuer + `sub`; SAML IdP entity id + persistent
 *   NameID) each person signs in as; one per person, one person per subject in an organization.
 * - `sso_confirmations`: a first sign-in into an existing account waits for the person to open the
 *   link emailed to them, in the browser that signed in (the SHA-256 of its transaction cookie).
 * - `sso_domains`: one organization per domain across the service, with the TXT value that proves
 *   it and when (and by what) it was verified. Domains listed before this migration start unverified;
 *   a domain listed by several organizations is removed from all of them (none had proven it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_identities')
    .addColumn('person_id', bigint(db), (col) => col.primaryKey().references('people.id').onDelete('cascade'))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('issuer', 'text', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addUniqueConstraint('sso_identities_subject', ['org_id', 'issuer', 'subject'])
    .execute()

  await db.schema
    .createTable('sso_confirmations')
    // SHA-256 of the emailed link's token.
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    // SHA-256 of the transaction cookie of the browser that signed in.
    .addColumn('key_hash', 'text', (col) => col.notNull())
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('person_id', bigint(db), (col) => col.notNull().references('people.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('sso_confirmations_key').on('sso_confirmations').column('key_hash').execute()
  await db.schema
    .createIndex('sso_confirmations_expiry')
    .on('sso_confirmations')
    .column('expires_at')
    .execute()

  await db.schema.alterTable('sso_domains').addColumn('token', 'text').execute()
  await db.schema.alterTable('sso_domains').addColumn('verified_at', bigint(db)).execute()
  // `dns` (the TXT record was found) or `operator` (approved with the CLI).
  await db.schema.alterTable('sso_domains').addColumn('verified_by', 'text').execute()

  await sql`delete from sso_domains where domain in (
    select domain from sso_domains group by domain having count(distinct org_id) > 1)`.execute(db)
  const rows = await sql<{ org_id: number; domain: string }>`select org_id, domain from sso_domains`.execute(
    db,
  )
  for (const row of rows.rows) {
    const token = randomBytes(16).toString('hex')
    await sql`update sso_domains set token = ${token} where org_id = ${row.org_id} and domain = ${row.domain}`.execute(
      db,
    )
  }
  await db.schema.dropIndex('sso_domains_domain').execute()
  await db.schema.createIndex('sso_domains_domain').on('sso_domains').column('domain').unique().execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sso_domains_domain').execute()
  await db.schema.createIndex('sso_domains_domain').on('sso_domains').column('domain').execute()
  await db.schema.alterTable('sso_domains').dropColumn('verified_by').execute()
  await db.schema.alterTable('sso_domains').dropColumn('verified_at').execute()
  await db.schema.alterTable('sso_domains').dropColumn('token').execute()
  await db.schema.dropTable('sso_confirmations').execute()
  await db.schema.dropTable('sso_identities').execute()
}
