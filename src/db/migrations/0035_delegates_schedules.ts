import type { Kysely } from 'kysely'
import { bigint } from './columns.js'

/**
 * Delegates and scheduled publishing (CONTRACT §21). Times are unix milliseconds.
 *
 * - `expert_delegates`: a person of the organization who may edit one profile until `until` (an expert's
 *   grant, or an editor's on its behalf); `granted_by` names who granted it as the audit log names actors
 *   (`person:12`, `client:cl_x`, `cli`). One row per profile and person: granting again moves `until`.
 * - `publish_at`, `unpublish_at` on experts, posts and questions: when the schedule publishes or
 *   unpublishes the record (null: not scheduled), and `publish_by`, `unpublish_by`: who set each time, so
 *   that the audit entry of the scheduled write names them. The schedule clears the time in the write it
 *   does at that time.
 * - `on_behalf_of` on the audit log: the username of the profile a delegate acted on through its grant.
 */
const SCHEDULED = ['experts', 'spotlights', 'questions'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('expert_delegates')
    .addColumn('org_id', bigint(db), (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('expert_id', bigint(db), (col) => col.notNull().references('experts.id').onDelete('cascade'))
    .addColumn('person_id', bigint(db), (col) => col.notNull().references('people.id').onDelete('cascade'))
    .addColumn('until', bigint(db), (col) => col.notNull())
    .addColumn('granted_by', 'text')
    .addColumn('created_at', bigint(db), (col) => col.notNull())
    .addPrimaryKeyConstraint('expert_delegates_pk', ['org_id', 'expert_id', 'person_id'])
    .execute()
  await db.schema
    .createIndex('expert_delegates_person')
    .on('expert_delegates')
    .columns(['org_id', 'person_id', 'expert_id'])
    .execute()

  for (const table of SCHEDULED) {
    await db.schema.alterTable(table).addColumn('publish_at', bigint(db)).execute()
    await db.schema.alterTable(table).addColumn('unpublish_at', bigint(db)).execute()
    await db.schema.alterTable(table).addColumn('publish_by', 'text').execute()
    await db.schema.alterTable(table).addColumn('unpublish_by', 'text').execute()
    await db.schema.createIndex(`${table}_publish_at`).on(table).column('publish_at').execute()
    await db.schema.createIndex(`${table}_unpublish_at`).on(table).column('unpublish_at').execute()
  }

  await db.schema.alterTable('audit_log').addColumn('on_behalf_of', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('on_behalf_of').execute()
  for (const table of SCHEDULED) {
    await db.schema.dropIndex(`${table}_unpublish_at`).execute()
    await db.schema.dropIndex(`${table}_publish_at`).execute()
    for (const column of ['unpublish_by', 'publish_by', 'unpublish_at', 'publish_at'])
      await db.schema.alterTable(table).dropColumn(column).execute()
  }
  await db.schema.dropTable('expert_delegates').execute()
}
