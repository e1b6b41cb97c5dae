import type { Kysely } from 'kysely'

/** Every scope: what clients and tokens that existed before scopes held, and what they keep. */
const ALL = 'read write inquiries:create inquiries:read'

/** Access scopes (CONTRACT §13), space-separated, per client and per token. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('clients')
    .addColumn('scope', 'text', (col) => col.notNull().defaultTo(ALL))
    .execute()
  await db.schema
    .alterTable('access_tokens')
    .addColumn('scope', 'text', (col) => col.notNull().defaultTo(ALL))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('access_tokens').dropColumn('scope').execute()
  await db.schema.alterTable('clients').dropColumn('scope').execute()
}
