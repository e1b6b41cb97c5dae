import type { Kysely } from 'kysely'
import { bigint, idColumn } from './columns.js'

// A literal copy: a migration must not change when the code's column list does.
const PROFILE_COLUMNS = [
  'description',
  'website',
  'location_city',
  'location_state',
  'location_country',
  'location_postal',
  'location_address',
  'location_building',
  'location_room',
  'twitter',
  'facebook',
  'linkedin',
  'instagram',
  'youtube',
]

/** Content: profile sections, import keys, organization profile, posts, questions, answers and tags. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const orgId = (table: string) =>
    db.schema
      .createTable(table)
      .addColumn('org_id', bigint(db), (col) =>
        col.notNull().references('organizations.id').onDelete('cascade'),
      )

  let orgProfile = db.schema
    .createTable('organization_profiles')
    .addColumn('org_id', bigint(db), (col) =>
      col.primaryKey().references('organizations.id').onDelete('cascade'),
    )
  for (const column of PROFILE_COLUMNS) orgProfile = orgProfile.addColumn(column, 'text')
  await orgProfile.execute()

  await db.schema
    .createTable('profile_items')
    .addColumn('id', ...idColumn(db))
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('org_id', bigint(db), (col) => col.notNull())
    .addColumn('section', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('external_key', 'text', (col) => col.notNull())
    .addColumn('data', 'text', (col) => col.notNull())
    .addUniqueConstraint('profile_items_key', ['expert_id', 'section', 'external_key'])
    .execute()

  await orgId('expert_import_keys')
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('expert_import_keys_pk', ['org_id', 'key'])
    .execute()
  await db.schema
    .createIndex('expert_import_keys_expert')
    .on('expert_import_keys')
    .column('expert_id')
    .execute()

  await db.schema
    .createTable('content_tags')
    .addColumn('id', ...idColumn(db))
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('name_key', 'text', (col) => col.notNull())
    .addUniqueConstraint('content_tags_name', ['org_id', 'name_key'])
    .execute()

  for (const table of ['spotlights', 'questions']) {
    let builder = db.schema
      .createTable(table)
      .addColumn('id', ...idColumn(db))
      .addColumn('org_id', bigint(db), (col) =>
        col.notNull().references('organizations.id').onDelete('cascade'),
      )
      .addColumn('external_key', 'text')
    builder =
      table === 'spotlights'
        ? builder
            .addColumn('title', 'text', (col) => col.notNull())
            .addColumn('html', 'text', (col) => col.notNull())
            .addColumn('featured_image', 'text')
        : builder.addColumn('question', 'text', (col) => col.notNull()).addColumn('details', 'text')
    await builder
      .addColumn('published', 'integer', (col) => col.notNull().defaultTo(0))
      .addColumn('published_at', bigint(db))
      .addColumn('seo_title', 'text')
      .addColumn('seo_description', 'text')
      .addColumn('seo_keywords', 'text')
      .addColumn('seo_image', 'text')
      .addColumn('seo_canonical_url', 'text')
      .addColumn('created_at', bigint(db), (col) => col.notNull())
      .addColumn('updated_at', bigint(db), (col) => col.notNull())
      .addUniqueConstraint(`${table}_key`, ['org_id', 'external_key'])
      .execute()
  }

  await db.schema
    .createTable('spotlight_experts')
    .addColumn('spotlight_id', bigint(db), (col) =>
      col.notNull().references('spotlights.id').onDelete('cascade'),
    )
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('position', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('spotlight_experts_pk', ['spotlight_id', 'expert_id'])
    .execute()
  await db.schema
    .createIndex('spotlight_experts_expert')
    .on('spotlight_experts')
    .column('expert_id')
    .execute()

  await db.schema
    .createTable('answers')
    .addColumn('id', ...idColumn(db))
    .addColumn('question_id', bigint(db), (col) =>
      col.notNull().references('questions.id').onDelete('cascade'),
    )
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('external_key', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('answer', 'text', (col) => col.notNull())
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addUniqueConstraint('answers_key', ['question_id', 'external_key'])
    .execute()
  await db.schema.createIndex('answers_expert').on('answers').column('expert_id').execute()

  for (const owner of ['spotlight', 'question']) {
    await db.schema
      .createTable(`${owner}_tags`)
      .addColumn('id', ...idColumn(db))
      .addColumn('owner_id', bigint(db), (col) =>
        col.notNull().references(`${owner}s.id`).onDelete('cascade'),
      )
      .addColumn('content_tag_id', bigint(db), (col) =>
        col.notNull().references('content_tags.id').onDelete('cascade'),
      )
      .addColumn('position', 'integer', (col) => col.notNull())
      .addUniqueConstraint(`${owner}_tags_unique`, ['owner_id', 'content_tag_id'])
      .execute()
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'question_tags',
    'spotlight_tags',
    'answers',
    'spotlight_experts',
    'questions',
    'spotlights',
    'content_tags',
    'expert_import_keys',
    'profile_items',
    'organization_profiles',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
