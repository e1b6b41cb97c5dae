import { type Kysely, sql } from 'kysely'
import { isPostgres } from './columns.js'

/**
 * All inquiry kinds in one table without a column per field per kind: the fields a kind adds move
 * into `kind_fields`, a JSON object (text on both databases), and the donor and event columns go.
 * Indexes for the inbox: newest first within an organization, by kind and by recipient.
 */

const DONOR = ['donor_type', 'donor_focus']
const EVENT = ['event_name', 'event_location', 'event_date', 'event_description']

/** `json_object('a', a, ...)` on SQLite, `json_build_object(...)::text` on PostgreSQL. */
function jsonOf(db: Kysely<unknown>, columns: string[]) {
  const pairs = sql.join(columns.map((column) => sql`${sql.lit(column)}, ${sql.ref(column)}`))
  return isPostgres(db) ? sql`json_build_object(${pairs})::text` : sql`json_object(${pairs})`
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('inquiries')
    .addColumn('kind_fields', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute()
  await sql`update inquiries set kind_fields = ${jsonOf(db, DONOR)} where kind = 'donor'`.execute(db)
  await sql`update inquiries set kind_fields = ${jsonOf(db, EVENT)} where kind = 'event'`.execute(db)
  // One statement per column: SQLite drops one column per ALTER TABLE.
  for (const column of [...DONOR, ...EVENT]) {
    await db.schema.alterTable('inquiries').dropColumn(column).execute()
  }
  await db.schema
    .createIndex('inquiries_org_kind')
    .on('inquiries')
    .columns(['org_id', 'kind', 'id'])
    .execute()
  await db.schema
    .createIndex('inquiries_org_username')
    .on('inquiries')
    .columns(['org_id', 'username', 'id'])
    .execute()
}

/** Back to donor and event columns; inquiries of the other kinds keep only their common fields. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('inquiries_org_username').execute()
  await db.schema.dropIndex('inquiries_org_kind').execute()
  const bigint = isPostgres(db) ? 'bigint' : 'integer'
  for (const column of [...DONOR, ...EVENT]) {
    await db.schema
      .alterTable('inquiries')
      .addColumn(column, column === 'event_date' ? bigint : 'text')
      .execute()
    const value = isPostgres(db)
      ? sql`(kind_fields::json ->> ${sql.lit(column)})${column === 'event_date' ? sql`::bigint` : sql``}`
      : sql`json_extract(kind_fields, ${sql.lit(`$.${column}`)})`
    await sql`update inquiries set ${sql.ref(column)} = ${value}`.execute(db)
  }
  await db.schema.alterTable('inquiries').dropColumn('kind_fields').execute()
}
