import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

/**
 * Drafts (CONTRACT §21, docs/editorial.md): a change that needs review, kept beside the live record
 * until a reviewer approves it. One row per draft: the record and its part, the author (a person), the
 * state, the change (`changes`, JSON), the live part it was based on (`base`, JSON: what a conflict is
 * measured against), the reviewer's comment and the scheduled publishing time of an approval.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('drafts')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    // profile (an expert's or staff member's), spotlight or question; record_id: its id.
    .addColumn('record_kind', 'text', (col) => col.notNull())
    .addColumn('record_id', bigint(db), (col) => col.notNull())
    // `account` or a section of a profile; `item` for a post or a question.
    .addColumn('part', 'text', (col) => col.notNull())
    .addColumn('author_id', bigint(db), (col) => col.notNull())
    // open, submitted, returned, approved (waiting for publish_at), published
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('changes', 'text', (col) => col.notNull())
    .addColumn('base', 'text', (col) => col.notNull())
    .addColumn('comment', 'text')
    // Who approved or returned it: a person or an API client (the organization's integration).
    .addColumn('reviewer_kind', 'text')
    .addColumn('reviewer_id', 'text')
    .addColumn('publish_at', bigint(db))
    .addColumn('force', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('locked_until', bigint(db))
    .addColumn('lock_token', 'text')
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('drafts_record')
    .on('drafts')
    .columns(['org_id', 'record_kind', 'record_id', 'part', 'author_id', 'state'])
    .execute()
  await db.schema.createIndex('drafts_queue').on('drafts').columns(['org_id', 'state', 'id']).execute()
  await db.schema.createIndex('drafts_due').on('drafts').columns(['state', 'publish_at']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('drafts').execute()
}
