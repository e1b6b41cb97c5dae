import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

/**
 * The editorial workflow (CONTRACT §21, docs/editorial.md): each organization's workflow settings (which
 * changes need review, the publish gate) as one JSON row, and the versions of profiles, posts and Q&A
 * items: one row per published change, written in the change's own transaction, holding who made it,
 * through what, when, and the record's part as it was after the change (`snapshot`, JSON).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_workflows')
    .addColumn('org_id', bigint(db), (col) =>
      col.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('settings', 'text', (col) => col.notNull())
    .addColumn('updated_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema
    .createTable('record_versions')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    // profile (an expert's or staff member's), spotlight or question; record_id: its id.
    .addColumn('record_kind', 'text', (col) => col.notNull())
    .addColumn('record_id', bigint(db), (col) => col.notNull())
    // A profile's `account` or one of its sections; `item` for a post or a question.
    .addColumn('part', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addColumn('actor_kind', 'text', (col) => col.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('snapshot', 'text', (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('record_versions_record')
    .on('record_versions')
    .columns(['org_id', 'record_kind', 'record_id', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('record_versions').execute()
  await db.schema.dropTable('organization_workflows').execute()
}
