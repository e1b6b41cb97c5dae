import { randomBytes } from 'node:crypto'
import type { MediaFilesTable, MediaPurpose } from '../db/schema.js'
import { contentName, MEDIA_TYPES, type MediaExtension, mediaKey } from '../storage/keys.js'
import type { MediaStorage } from '../storage/storage.js'

/** A file to store: its bytes under a content-hashed name (keys.ts) with the given extension. */
export interface FileToStore {
  name: string
  extension: MediaExtension
  bytes: Buffer
}

/** Draws the secret that keys one upload's names (storage/keys.ts `contentName`). */
export function uploadNamer(): (bytes: Buffer) => string {
  const secret = randomBytes(32)
  return (bytes) => contentName(secret, bytes)
}

/**
 * Writes the files (each atomically) and returns their `media_files` rows, to be recorded in the
 * transaction that makes a record point to them. When a write fails, the files already written are
 * deleted before the error goes on: a failed upload leaves nothing behind.
 */
export async function storeFiles(
  storage: MediaStorage,
  owner: { orgId: number; expertId: number | null; purpose: MediaPurpose },
  files: readonly FileToStore[],
  now: number,
): Promise<MediaFilesTable[]> {
  const stored = files.map((file) => {
    const row: MediaFilesTable = {
      key: mediaKey(owner.orgId, file.name, file.extension),
      org_id: owner.orgId,
      expert_id: owner.expertId,
      purpose: owner.purpose,
      content_type: MEDIA_TYPES[file.extension],
      bytes: file.bytes.length,
      created_at: now,
    }
    return { file, row }
  })
  const rows = stored.map(({ row }) => row)
  const results = await Promise.allSettled(
    stored.map(({ file, row }) => storage.put(row.key, file.bytes, row.content_type)),
  )
  const failure = results.find((result) => result.status === 'rejected')
  if (failure) {
    await storage.delete(rows.map((row) => row.key)).catch(() => {})
    throw failure.reason
  }
  return rows
}

/**
 * Runs `commit` (the transaction recording `rows`); if it fails, the stored files are deleted before
 * the error goes on.
 */
export async function committedOrDiscarded<T>(
  storage: MediaStorage,
  rows: readonly MediaFilesTable[],
  commit: () => Promise<T>,
): Promise<T> {
  try {
    return await commit()
  } catch (error) {
    await storage.delete(rows.map((row) => row.key)).catch(() => {})
    throw error
  }
}
