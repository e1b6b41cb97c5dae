import { type Kysely, sql } from 'kysely'

/**
 * Staff members in the search index (CONTRACT §10, §17): `expert_search.type` says whether a row is an
 * expert's or a staff member's, so the staff and employee lists search and order by the same index
 * rows, ranking and text as the expert search, which keeps to `type = 'expert'`. The flags index
 * (the counts' covering index) leads with the type after the organization, so that each list counts
 * only its own rows. Staff members have no facet rows.
 *
 * Schema only: the rows of existing staff members are added by the step after the migrations
 * (src/derived/search-rebuild.ts), which finds every profile without an index row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('expert_search')
    .addColumn('type', 'text', (col) =>
      col.notNull().defaultTo('expert').check(sql`type in ('expert', 'staff')`),
    )
    .execute()
  await db.schema.dropIndex('expert_search_flags').execute()
  await db.schema
    .createIndex('expert_search_flags')
    .on('expert_search')
    .columns(['org_id', 'type', 'is_private', 'is_published'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from expert_search where type = 'staff'`.execute(db)
  await db.schema.dropIndex('expert_search_flags').execute()
  await db.schema
    .createIndex('expert_search_flags')
    .on('expert_search')
    .columns(['org_id', 'is_private', 'is_published'])
    .execute()
  await db.schema.alterTable('expert_search').dropColumn('type').execute()
}
