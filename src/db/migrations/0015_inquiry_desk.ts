import { type Kysely, sql } from 'kysely'
import { bigint, idColumn, isPostgres } from './columns.js'

/**
 * The inquiry desk (CONTRACT §17): inquiries to the organization itself (no expert), the
 * organization's notification settings, handling (status, assignee, notes), the experts' assistant
 * address, and the record of privacy requests. Each inquiry keeps the email recipients it was
 * addressed to when it arrived (`recipients`, JSON), which replaces the single `expert_email`.
 */

/** `[{"role": "expert", "email": expert_email}]` as JSON text. */
function expertRecipient(db: Kysely<unknown>) {
  return isPostgres(db)
    ? sql`json_build_array(json_build_object('role', 'expert', 'email', expert_email))::text`
    : sql`json_array(json_object('role', 'expert', 'email', expert_email))`
}

/** Makes `inquiries.username` nullable: SQLite cannot drop NOT NULL, so the column is rebuilt. */
async function usernameNullable(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table inquiries alter column username drop not null`.execute(db)
    return
  }
  await db.schema.dropIndex('inquiries_org_username').execute()
  await db.schema.alterTable('inquiries').addColumn('recipient_username', 'text').execute()
  await sql`update inquiries set recipient_username = username`.execute(db)
  await db.schema.alterTable('inquiries').dropColumn('username').execute()
  await db.schema.alterTable('inquiries').renameColumn('recipient_username', 'username').execute()
  await db.schema
    .createIndex('inquiries_org_username')
    .on('inquiries')
    .columns(['org_id', 'username', 'id'])
    .execute()
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('experts').addColumn('assistant_email', 'text').execute()
  // Stored profile documents predate the new account field; they are rebuilt on their next read.
  await sql`delete from read_documents where kind = 'expert'`.execute(db)

  await db.schema
    .alterTable('inquiries')
    .addColumn('recipients', 'text', (col) => col.notNull().defaultTo('[]'))
    .execute()
  await sql`update inquiries set recipients = ${expertRecipient(db)}`.execute(db)
  await db.schema.alterTable('inquiries').dropColumn('expert_email').execute()
  await usernameNullable(db)
  await db.schema
    .alterTable('inquiries')
    .addColumn('status', 'text', (col) => col.notNull().defaultTo('new'))
    .execute()
  await db.schema.alterTable('inquiries').addColumn('assignee', 'text').execute()
  await db.schema.alterTable('inquiries').addColumn('notes', 'text').execute()
  await db.schema.alterTable('inquiries').addColumn('redacted_at', bigint(db)).execute()
  await db.schema
    .createIndex('inquiries_org_status')
    .on('inquiries')
    .columns(['org_id', 'status', 'id'])
    .execute()
  await db.schema
    .createIndex('inquiries_org_assignee')
    .on('inquiries')
    .columns(['org_id', 'assignee', 'id'])
    .execute()
  await db.schema
    .createIndex('inquiries_retention')
    .on('inquiries')
    .columns(['redacted_at', 'created_at'])
    .execute()

  await db.schema
    .createTable('inquiry_notifications')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('recipients', 'text', (col) => col.notNull().defaultTo('[]'))
    .addColumn('expert', 'integer', (col) => col.notNull())
    .addColumn('assistant', 'integer', (col) => col.notNull())
    .addColumn('desk', 'integer', (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('inquiry_notifications_pk', ['org_id', 'kind'])
    .execute()

  await db.schema
    .createTable('privacy_requests')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('client_id', 'text', (col) => col.notNull())
    .addColumn('records', 'integer', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('privacy_requests_org')
    .on('privacy_requests')
    .columns(['org_id', 'id'])
    .execute()
}

/**
 * Back to one expert address per inquiry; inquiries to the desk (no expert) cannot be kept there.
 * `username` stays nullable.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('privacy_requests').execute()
  await db.schema.dropTable('inquiry_notifications').execute()
  for (const index of ['inquiries_retention', 'inquiries_org_assignee', 'inquiries_org_status']) {
    await db.schema.dropIndex(index).execute()
  }
  for (const column of ['redacted_at', 'notes', 'assignee', 'status']) {
    await db.schema.alterTable('inquiries').dropColumn(column).execute()
  }
  await sql`delete from inquiries where username is null`.execute(db)
  await db.schema
    .alterTable('inquiries')
    .addColumn('expert_email', 'text', (col) => col.notNull().defaultTo(''))
    .execute()
  const first = isPostgres(db)
    ? sql`coalesce(recipients::json -> 0 ->> 'email', '')`
    : sql`coalesce(json_extract(recipients, '$[0].email'), '')`
  await sql`update inquiries set expert_email = ${first}`.execute(db)
  await db.schema.alterTable('inquiries').dropColumn('recipients').execute()
  await db.schema.alterTable('experts').dropColumn('assistant_email').execute()
}
