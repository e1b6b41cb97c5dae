import { inChunks } from '../db/chunks.js'
import { CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'

/**
 * The versions derived state is built from: a write sets a record's `updated_at` (the `modified` of
 * reads) and bumps its `doc_version`, so its stored read document is rebuilt on the next read.
 */

/**
 * Sets `updated_at` of some experts of the organization and bumps their `doc_version` (their read
 * documents go stale), or sets `updated_at` of all of them (their documents follow the organization's
 * `profile_version` instead).
 */
export async function touchExperts(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[] | 'all',
  now: number,
): Promise<void> {
  if (expertIds === 'all') {
    await db.updateTable('experts').set({ updated_at: now }).where('org_id', '=', orgId).execute()
    return
  }
  await inChunks(expertIds, async (ids) => {
    await db
      .updateTable('experts')
      .set((eb) => ({ updated_at: now, doc_version: eb('doc_version', '+', 1) }))
      .where('org_id', '=', orgId)
      .where('id', 'in', ids)
      .execute()
    return []
  })
}

/** A write changed the item: its `modified`, and the version its read document must be built from. */
export async function touchContent(db: Queryable, orgId: number, kind: ContentKind, id: number, now: number) {
  await db
    .updateTable(CONTENT_KINDS[kind].table)
    .set((eb) => ({ updated_at: now, doc_version: eb('doc_version', '+', 1) }))
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .execute()
}

/**
 * The experts' names or job titles changed: the posts tagging them and the questions they answered
 * show those, so their read documents go stale (their `modified` stays).
 */
export async function staleContentShowingExperts(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[],
): Promise<void> {
  await inChunks(expertIds, async (ids) => {
    await db
      .updateTable('spotlights')
      .set((eb) => ({ doc_version: eb('doc_version', '+', 1) }))
      .where('org_id', '=', orgId)
      .where('id', 'in', (eb) =>
        eb.selectFrom('spotlight_experts').select('spotlight_id').where('expert_id', 'in', ids),
      )
      .execute()
    await db
      .updateTable('questions')
      .set((eb) => ({ doc_version: eb('doc_version', '+', 1) }))
      .where('org_id', '=', orgId)
      .where('id', 'in', (eb) => eb.selectFrom('answers').select('question_id').where('expert_id', 'in', ids))
      .execute()
    return []
  })
}

/** Ids of the posts tagging an expert and of the questions it answered (the expert is the organization's). */
export async function listItemsOfExpert(db: Queryable, expertId: number) {
  const [posts, questions] = await Promise.all([
    db
      .selectFrom('spotlight_experts')
      .select('spotlight_id as id')
      .where('expert_id', '=', expertId)
      .execute(),
    db.selectFrom('answers').select('question_id as id').where('expert_id', '=', expertId).execute(),
  ])
  return {
    spotlight: [...new Set(posts.map((row) => row.id))],
    question: [...new Set(questions.map((row) => row.id))],
  } satisfies Record<ContentKind, number[]>
}
