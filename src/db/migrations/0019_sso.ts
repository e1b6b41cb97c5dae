import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

/**
 * Single sign-on per organization (CONTRACT §14): its settings (the OIDC client secret encrypted, never
 * in clear), the email domains it answers for, the browser sign-ins under way, and the SAML assertion
 * ids already used (the replay cache every process shares).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_settings')
    .addColumn('org_id', bigint(db), (col) =>
      col.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('protocol', 'text', (col) => col.notNull())
    .addColumn('issuer', 'text')
    .addColumn('client_id', 'text')
    // AES-256-GCM under EXPERTDIR_SECRET_KEY (src/sso/secret-box.ts); null: a public client.
    .addColumn('client_secret', 'text')
    .addColumn('scope', 'text')
    .addColumn('groups_claim', 'text')
    .addColumn('entry_point', 'text')
    .addColumn('idp_certificate', 'text')
    .addColumn('sp_entity_id', 'text')
    // JSON array of {"group", "role"}.
    .addColumn('role_mapping', 'text', (col) => col.notNull())
    .addColumn('default_role', 'text')
    .addColumn('allow_create', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('passwords_off', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('sso_domains')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('sso_settings.org_id').onDelete('cascade'),
    )
    // Lower-cased.
    .addColumn('domain', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('sso_domains_pk', ['org_id', 'domain'])
    .execute()
  await db.schema.createIndex('sso_domains_domain').on('sso_domains').column('domain').execute()

  await db.schema
    .createTable('sso_transactions')
    .addColumn('id', ...idColumn(db))
    // SHA-256 of the browser's transaction cookie.
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('protocol', 'text', (col) => col.notNull())
    // SAML: the AuthnRequest ID the response must answer (InResponseTo).
    .addColumn('request_id', 'text', (col) => col.unique())
    // SAML: set when the assertion for the request was accepted; the browser then completes the sign-in.
    .addColumn('answered_at', bigint(db))
    .addColumn('person_id', bigint(db), (col) => col.references('people.id').onDelete('cascade'))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('sso_transactions_expiry').on('sso_transactions').column('expires_at').execute()

  await db.schema
    .createTable('sso_assertions')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('assertion_id', 'text', (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('sso_assertions_pk', ['org_id', 'assertion_id'])
    .execute()
  await db.schema.createIndex('sso_assertions_expiry').on('sso_assertions').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sso_assertions').execute()
  await db.schema.dropTable('sso_transactions').execute()
  await db.schema.dropTable('sso_domains').execute()
  await db.schema.dropTable('sso_settings').execute()
}
