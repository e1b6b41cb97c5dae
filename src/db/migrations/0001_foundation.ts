import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', bigint(db), (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('clients')
    .addColumn('client_id', 'text', (col) => col.primaryKey())
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('label', 'text')
    .addColumn('secret_hash', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('revoked_at', bigint(db))
    .execute()
  await db.schema.createIndex('clients_org').on('clients').column('org_id').execute()

  await db.schema
    .createTable('access_tokens')
    .addColumn('token_hash', 'text', (col) => col.primaryKey())
    .addColumn('client_id', 'text', (col) =>
      col.notNull().references('clients.client_id').onDelete('cascade'),
    )
    .addColumn('org_id', bigint(db), (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('access_tokens_client').on('access_tokens').column('client_id').execute()
  await db.schema.createIndex('access_tokens_expiry').on('access_tokens').column('expires_at').execute()

  await db.schema
    .createTable('usernames')
    .addColumn('username', 'text', (col) => col.primaryKey())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('experts')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('username', 'text', (col) => col.notNull().unique().references('usernames.username'))
    .addColumn('firstname', 'text', (col) => col.notNull())
    .addColumn('lastname', 'text', (col) => col.notNull())
    .addColumn('job_title', 'text', (col) => col.notNull())
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('email_key', 'text', (col) => col.notNull())
    .addColumn('company', 'text', (col) => col.notNull())
    .addColumn('department', 'text')
    .addColumn('phone_number', 'text')
    .addColumn('phone_number_extension', 'text')
    .addColumn('location_city', 'text')
    .addColumn('location_state', 'text')
    .addColumn('location_country', 'text')
    .addColumn('location_postal', 'text')
    .addColumn('location_address', 'text')
    .addColumn('location_building', 'text')
    .addColumn('location_room', 'text')
    .addColumn('is_published', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('is_private', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('experts_org_email')
    .on('experts')
    .columns(['org_id', 'email_key'])
    .unique()
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['experts', 'usernames', 'access_tokens', 'clients', 'organizations']) {
    await db.schema.dropTable(table).execute()
  }
}
