import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

/** Inquiries, their delivery outbox, idempotency keys and the organizations' webhook settings. */
export async function up(db: Kysely<unknown>): Promise<void> {
  // No foreign key to experts: deleting an expert keeps the inquiries already received.
  await db.schema
    .createTable('inquiries')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('username', 'text', (col) => col.notNull())
    .addColumn('expert_email', 'text', (col) => col.notNull())
    .addColumn('firstname', 'text', (col) => col.notNull())
    .addColumn('lastname', 'text')
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('phone', 'text')
    .addColumn('website', 'text')
    .addColumn('organization', 'text')
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('location_city', 'text')
    .addColumn('location_state', 'text')
    .addColumn('location_country', 'text')
    .addColumn('donor_type', 'text')
    .addColumn('donor_focus', 'text')
    .addColumn('event_name', 'text')
    .addColumn('event_location', 'text')
    .addColumn('event_date', bigint(db))
    .addColumn('event_description', 'text')
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema.createIndex('inquiries_org').on('inquiries').columns(['org_id', 'id']).execute()

  await db.schema
    .createTable('inquiry_deliveries')
    .addColumn('id', ...idColumn(db))
    .addColumn('inquiry_id', bigint(db), (col) =>
      col.notNull().references('inquiries.id').onDelete('cascade'),
    )
    .addColumn('org_id', bigint(db), (col) => col.notNull())
    .addColumn('channel', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', bigint(db))
    .addColumn('locked_until', bigint(db))
    .addColumn('lock_token', 'text')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', bigint(db))
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('inquiry_deliveries_channel')
    .on('inquiry_deliveries')
    .columns(['inquiry_id', 'channel'])
    .unique()
    .execute()
  await db.schema
    .createIndex('inquiry_deliveries_due')
    .on('inquiry_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('response', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('expires_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['org_id', 'key'])
    .execute()
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute()

  await db.schema
    .createTable('webhooks')
    .addColumn('org_id', bigint(db), (col) =>
      col.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['webhooks', 'idempotency_keys', 'inquiry_deliveries', 'inquiries']) {
    await db.schema.dropTable(table).execute()
  }
}
