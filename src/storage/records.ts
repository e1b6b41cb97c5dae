import type { Queryable } from '../db/database.js'
import type { MediaFilesTable } from '../db/schema.js'
import type { MediaStorage } from './storage.js'

/** The `media_files` rows: which stored file belongs to which organization and expert. */

export async function recordMediaFiles(db: Queryable, files: readonly MediaFilesTable[]): Promise<void> {
  if (files.length > 0)
    await db
      .insertInto('media_files')
      .values([...files])
      .execute()
}

/** Keys of the stored files of an expert's photo. */
export async function expertMediaKeys(db: Queryable, orgId: number, expertId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('media_files')
    .select('key')
    .where('org_id', '=', orgId)
    .where('expert_id', '=', expertId)
    .execute()
  return rows.map((row) => row.key)
}

/** Forgets the files (the caller deletes them from the storage once its transaction has committed). */
export async function forgetMediaFiles(db: Queryable, orgId: number, keys: readonly string[]): Promise<void> {
  if (keys.length > 0)
    await db
      .deleteFrom('media_files')
      .where('org_id', '=', orgId)
      .where('key', 'in', [...keys])
      .execute()
}

/**
 * Deletes files whose records are gone (after the transaction that removed them committed). A failure
 * here only leaves unreferenced files, which `expertdir media gc` removes: it is reported, not thrown.
 */
export async function discardFiles(
  storage: MediaStorage,
  keys: readonly string[],
  report: (error: unknown) => void,
): Promise<void> {
  if (keys.length === 0) return
  try {
    await storage.delete(keys)
  } catch (error) {
    report(error)
  }
}
