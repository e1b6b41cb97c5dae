import { inChunks, insertInChunks } from '../db/chunks.js'
import type { Queryable } from '../db/database.js'

/** Import keys of experts, so that a re-import updates instead of duplicating. */

/** Import key -> expert id, for the keys among `keys` already linked. */
export async function findImportKeys(db: Queryable, orgId: number, keys: readonly string[]) {
  const rows = await inChunks(keys, (chunk) =>
    db
      .selectFrom('expert_import_keys')
      .select(['key', 'expert_id'])
      .where('org_id', '=', orgId)
      .where('key', 'in', chunk)
      .execute(),
  )
  return new Map(rows.map((row) => [row.key, row.expert_id]))
}

/** Expert id -> import key, for the experts among `expertIds` that have one. */
export async function findImportKeysOfExperts(db: Queryable, orgId: number, expertIds: readonly number[]) {
  const rows = await inChunks(expertIds, (chunk) =>
    db
      .selectFrom('expert_import_keys')
      .select(['key', 'expert_id'])
      .where('org_id', '=', orgId)
      .where('expert_id', 'in', chunk)
      .execute(),
  )
  return new Map(rows.map((row) => [row.expert_id, row.key]))
}

/** Links import keys to their experts, in the statements of `insertChunks`. */
export async function linkImportKeys(
  db: Queryable,
  orgId: number,
  links: readonly { key: string; expertId: number }[],
) {
  await insertInChunks(
    db,
    links.map(({ key, expertId }) => ({ org_id: orgId, key, expert_id: expertId })),
    (chunk) => db.insertInto('expert_import_keys').values(chunk).execute(),
  )
}
