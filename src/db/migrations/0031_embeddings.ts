import type { Kysely } from 'kysely'
import { bigint, isPostgres } from './columns.js'

/**
 * Optional embeddings of experts (CONTRACT §20, SOURCES §7.5), kept by the background embedding loop
 * (src/meaning/embeddings/) when an embeddings API is configured; empty otherwise.
 *
 * - `expert_embeddings`: one row per expert once the loop has enrolled it: the vector (Float32 bytes,
 *   little-endian), the model and the hash of the text it was made from; `version`, which a write of the
 *   expert bumps, and `due_at`, when it is due to be embedded again (null: current); the lease of the
 *   process embedding it (`locked_until`, `lock_token`); the last error and how many attempts failed.
 * - `embedding_stats`: per organization, a counter moved whenever its vectors change, under which a
 *   process keeps the organization's vectors in memory.
 *
 * Every key and index starts with `org_id`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const orgId = bigint(db)
  await db.schema
    .createTable('expert_embeddings')
    .addColumn('org_id', orgId, (col) => col.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('version', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('due_at', bigint(db))
    .addColumn('locked_until', bigint(db))
    .addColumn('lock_token', 'text')
    .addColumn('model', 'text')
    .addColumn('text_hash', 'text')
    .addColumn('dimensions', 'integer')
    .addColumn('vector', isPostgres(db) ? 'bytea' : 'blob')
    .addColumn('embedded_at', bigint(db))
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('expert_embeddings_pk', ['org_id', 'expert_id'])
    .execute()
  await db.schema
    .createIndex('expert_embeddings_due')
    .on('expert_embeddings')
    .columns(['org_id', 'due_at', 'expert_id'])
    .execute()

  await db.schema
    .createTable('embedding_stats')
    .addColumn('org_id', orgId, (col) => col.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('version', bigint(db), (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('embedding_stats').execute()
  await db.schema.dropTable('expert_embeddings').execute()
}
