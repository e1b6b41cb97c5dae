import type { Kysely } from 'kysely'

/**
 * Indexes for the profile read (docs/performance.md). Each replaces a one-column index it extends:
 * - posts and answers of an expert are found from the expert's side (a covering index), so the read
 *   does not scan the organization's posts or questions;
 * - an expert's section items come out in served order without a sort.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('spotlight_experts_expert_post')
    .on('spotlight_experts')
    .columns(['expert_id', 'spotlight_id'])
    .execute()
  await db.schema.dropIndex('spotlight_experts_expert').execute()
  await db.schema
    .createIndex('answers_expert_question')
    .on('answers')
    .columns(['expert_id', 'question_id'])
    .execute()
  await db.schema.dropIndex('answers_expert').execute()
  await db.schema
    .createIndex('profile_items_read')
    .on('profile_items')
    .columns(['expert_id', 'section', 'position', 'id'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('profile_items_read').execute()
  await db.schema.createIndex('answers_expert').on('answers').column('expert_id').execute()
  await db.schema.dropIndex('answers_expert_question').execute()
  await db.schema
    .createIndex('spotlight_experts_expert')
    .on('spotlight_experts')
    .column('expert_id')
    .execute()
  await db.schema.dropIndex('spotlight_experts_expert_post').execute()
}
