import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

/**
 * The audit log (CONTRACT §14): one row per administrative write, inserted in the write's own
 * transaction. Rows outlive what they name (no foreign key to the record, the person or the client),
 * so a deleted expert's or a removed person's history stays readable.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    // person | client | cli | system; actor_id: the person's id or the client's id, null otherwise.
    .addColumn('actor_kind', 'text', (col) => col.notNull())
    .addColumn('actor_id', 'text')
    // The route (`PUT /v2/organization/:corporation/expert/:username`) or the command (`cli people add`).
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('record_kind', 'text', (col) => col.notNull())
    .addColumn('record_id', 'text')
    .execute()
  await db.schema.createIndex('audit_log_org').on('audit_log').columns(['org_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').execute()
}
