import type { Kysely } from 'kysely'
import { bigint, isPostgres } from './columns.js'

const VERSIONED = ['experts', 'spotlights', 'questions'] as const

/**
 * Stored read documents (docs/performance.md): the serialized response of each expert profile, post
 * and Q&A item with its ETag, labelled with the versions it was built from. Writes bump a record's
 * `doc_version`; an organization profile change bumps the organization's `profile_version` (one row,
 * whatever the number of experts). A document is served only while its labels equal the current
 * versions; none exists until the first read builds it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of VERSIONED) {
    await db.schema
      .alterTable(table)
      .addColumn('doc_version', bigint(db), (col) => col.notNull().defaultTo(0))
      .execute()
  }
  await db.schema
    .alterTable('organizations')
    .addColumn('profile_version', bigint(db), (col) => col.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createTable('read_documents')
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('record_id', bigint(db), (col) => col.notNull())
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('record_version', bigint(db), (col) => col.notNull())
    .addColumn('org_version', bigint(db), (col) => col.notNull())
    .addColumn('etag', 'text', (col) => col.notNull())
    .addColumn('body', isPostgres(db) ? 'bytea' : 'blob', (col) => col.notNull())
    .addPrimaryKeyConstraint('read_documents_key', ['kind', 'record_id'])
    .execute()
  await db.schema.createIndex('read_documents_org').on('read_documents').column('org_id').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('read_documents').execute()
  await db.schema.alterTable('organizations').dropColumn('profile_version').execute()
  for (const table of VERSIONED) await db.schema.alterTable(table).dropColumn('doc_version').execute()
}
