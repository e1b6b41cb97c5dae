import type { Kysely } from 'kysely'
import { bigint } from './columns.js'

/**
 * The public directory (CONTRACT §18): whether an organization publishes its directory pages, the
 * logo and colours they show, the inquiry kinds their contact form offers (space-separated; null: the
 * default kinds), and the secret that signs each organization's contact form tokens.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organization_profiles')
    .addColumn('public_directory', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
  for (const column of ['logo_url', 'brand_color', 'accent_color', 'directory_inquiry_kinds'])
    await db.schema.alterTable('organization_profiles').addColumn(column, 'text').execute()
  await db.schema
    .createTable('directory_form_keys')
    .addColumn('org_id', bigint(db), (col) =>
      col.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('directory_form_keys').execute()
  for (const column of [
    'directory_inquiry_kinds',
    'accent_color',
    'brand_color',
    'logo_url',
    'public_directory',
  ])
    await db.schema.alterTable('organization_profiles').dropColumn(column).execute()
}
