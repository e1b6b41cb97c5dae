import type { Queryable } from '../db/database.js'
import { type ContentTable, touchContent } from './repository.js'

/**
 * The one step every write of a post or a Q&A item passes through, inside the write's transaction:
 * it sets the item's `updated_at` (the `modified` of reads) and bumps its `doc_version`, so its stored
 * read document (src/documents) is rebuilt on the next read. The profiles layer above refreshes the
 * item's search row beside it; profiles the write changed go through `profileChanged` as well.
 */
export async function contentChanged(
  trx: Queryable,
  orgId: number,
  table: ContentTable,
  id: number,
  now: number,
): Promise<void> {
  await touchContent(trx, orgId, table, id, now)
}
