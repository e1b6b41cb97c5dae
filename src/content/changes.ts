import type { Queryable } from '../db/database.js'
import { type ContentTable, updateContent } from './repository.js'

/**
 * The one step every write of a post or a Q&A item passes through, inside the write's transaction:
 * it sets the item's `updated_at` (the `modified` of reads). The profiles layer above refreshes the
 * item's search row beside it; profiles the write changed go through `profileChanged` as well.
 */
export async function contentChanged(
  trx: Queryable,
  orgId: number,
  table: ContentTable,
  id: number,
  now: number,
): Promise<void> {
  await updateContent(trx, orgId, table, id, { updated_at: now })
}
