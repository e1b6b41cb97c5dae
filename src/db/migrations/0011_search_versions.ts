import type { Kysely } from 'kysely'
import { bigint } from './columns.js'

/**
 * A counter per organization, raised in the same transaction as every change to the organization's
 * expert index: search results computed at one value stay exact for as long as the value is current,
 * in any process sharing the database (docs/performance.md, "Search").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('expert_search_versions')
    .addColumn('org_id', bigint(db), (col) =>
      col.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('version', bigint(db), (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('expert_search_versions').execute()
}
