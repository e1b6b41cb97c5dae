import { type Kysely, sql } from 'kysely'

/**
 * Staff profiles (CONTRACT §17): a profile is an expert or a staff member, one row in `experts` either
 * way, so that both share one profile engine (sections, read documents, ETags, deletes) and one
 * username space. Every existing row is an expert. The index serves the staff and employee lists.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('experts')
    .addColumn('type', 'text', (col) =>
      col.notNull().defaultTo('expert').check(sql`type in ('expert', 'staff')`),
    )
    .execute()
  await db.schema.createIndex('experts_org_type').on('experts').columns(['org_id', 'type']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('experts_org_type').execute()
  await db.schema.alterTable('experts').dropColumn('type').execute()
}
