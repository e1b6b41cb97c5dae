import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

/**
 * People who sign in (CONTRACT §14): accounts, their sessions, the short-lived bearer tokens a session
 * mints for the dashboard, and single-use links (invitations, password resets). Every secret is stored
 * as a hash only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('people')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('email', 'text', (col) => col.notNull())
    // Lower-cased: unique across the service, so that signing in needs no organization.
    .addColumn('email_key', 'text', (col) => col.notNull().unique())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('expert_id', bigint(db), (col) => col.references('experts.id').onDelete('set null'))
    // argon2id PHC string; null until the person sets a password (an invitation not yet accepted).
    .addColumn('password_hash', 'text')
    // 1: the password was generated (the demo owner's): it must be changed before any other use.
    .addColumn('password_must_change', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('people_org').on('people').columns(['org_id', 'id']).execute()

  await db.schema
    .createTable('person_sessions')
    .addColumn('id', ...idColumn(db))
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('person_id', bigint(db), (col) => col.notNull().references('people.id').onDelete('cascade'))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('last_seen_at', bigint(db), (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('person_sessions_person').on('person_sessions').column('person_id').execute()

  await db.schema
    .createTable('person_tokens')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('session_id', bigint(db), (col) =>
      col.notNull().references('person_sessions.id').onDelete('cascade'),
    )
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('person_tokens_session').on('person_tokens').column('session_id').execute()

  await db.schema
    .createTable('person_links')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('person_id', bigint(db), (col) => col.notNull().references('people.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('person_links_person').on('person_links').column('person_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('person_links').execute()
  await db.schema.dropTable('person_tokens').execute()
  await db.schema.dropTable('person_sessions').execute()
  await db.schema.dropTable('people').execute()
}
