import { inChunks } from '../../db/chunks.js'
import type { Queryable } from '../../db/database.js'

/**
 * A write's side of keeping embeddings current (migration 0031): the experts it changed are due to be
 * embedded again. It only moves rows the embedding loop enrolled, which exist once an embeddings API has
 * been configured: until then the table is empty and this finds nothing. The loop compares the text's
 * hash before it asks the provider, so a write that left the text as it was costs no request; a write
 * while the loop embeds the expert bumps `version`, and the loop then stores its vector without
 * clearing `due_at` (see src/meaning/embeddings/store.ts). Nothing here calls the provider.
 */
export async function markEmbeddingsDue(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[],
  now: number,
): Promise<void> {
  const ids = [...new Set(expertIds)].sort((a, b) => a - b)
  await inChunks(ids, async (chunk) => {
    await db
      .updateTable('expert_embeddings')
      .set((eb) => ({
        version: eb('version', '+', 1),
        due_at: eb.fn.coalesce('due_at', eb.val(now)),
      }))
      .where('org_id', '=', orgId)
      .where('expert_id', 'in', chunk)
      .execute()
    return []
  })
}
