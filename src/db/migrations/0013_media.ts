import type { Kysely } from 'kysely'
import { bigint } from './columns.js'

/**
 * Every stored photo rendition and uploaded document: which organization (and expert, for a photo) it
 * belongs to. The bytes live in the media storage (a folder or a bucket) under `key`; a key here is a
 * file some record owns, and `expertdir media gc` removes stored files that no row names.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('media_files')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('expert_id', bigint(db), (col) => col.references('experts.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    .addColumn('bytes', bigint(db), (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('media_files_owner')
    .on('media_files')
    .columns(['org_id', 'expert_id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('media_files').execute()
}
