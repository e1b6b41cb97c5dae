import type { Kysely } from 'kysely'
import { CONTENT_KIND_NAMES, CONTENT_KINDS } from '../db/content-kinds.js'
import type { DB } from '../db/schema.js'
import { mediaNamesIn } from '../storage/keys.js'
import type { MediaStorage } from '../storage/storage.js'

/** How long a stored file may wait for a record to point to it (an upload in flight, a document not yet used). */
export const DEFAULT_GRACE_MS = 24 * 3600 * 1000

export interface GarbageReport {
  /** Files deleted from the storage. */
  removed: number
  /** Files left, all of them in use or younger than the grace period. */
  kept: number
}

/**
 * Every `<org>/<name>` a stored record points to: photos (the avatar item), documents in any section's
 * fields, and media URLs in posts, Q&A items, answers and SEO images. Read in pages of ids, so memory
 * holds one page of records and the set of names.
 */
async function namesInUse(db: Kysely<DB>): Promise<Set<string>> {
  const names = new Set<string>()
  const add = (...texts: (string | null)[]) => {
    for (const text of texts) if (text) for (const name of mediaNamesIn(text)) names.add(name)
  }
  for (let after = 0; ; ) {
    const page = await db
      .selectFrom('profile_items')
      .select(['id', 'data'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute()
    for (const row of page) add(row.data)
    const last = page.at(-1)
    if (!last) break
    after = last.id
  }
  for (const kind of CONTENT_KIND_NAMES) {
    const rows = await db.selectFrom(CONTENT_KINDS[kind].table).selectAll().execute()
    for (const row of rows)
      add(...Object.values(row).map((value) => (typeof value === 'string' ? value : null)))
  }
  const answers = await db.selectFrom('answers').select('answer').execute()
  add(...answers.map((row) => row.answer))
  return names
}

const nameOfKey = (key: string) => key.replace(/\.[a-z]+$/, '')

/**
 * `expertdir media gc`: deletes stored files that no record points to and that are older than the
 * grace period: files of records deleted while the storage could not be reached, of uploads cut short
 * by a crash, and documents uploaded but never used (or no longer used) in any record.
 */
export async function collectGarbage(
  db: Kysely<DB>,
  storage: MediaStorage,
  now: number,
  graceMs = DEFAULT_GRACE_MS,
): Promise<GarbageReport> {
  const cutoff = now - graceMs
  const inUse = await namesInUse(db)
  const unused = await db
    .selectFrom('media_files')
    .select(['key', 'org_id', 'created_at'])
    .where('created_at', '<', cutoff)
    .execute()
  const forgotten = unused.filter((row) => !inUse.has(nameOfKey(row.key))).map((row) => row.key)
  for (let start = 0; start < forgotten.length; start += 500) {
    await db
      .deleteFrom('media_files')
      .where('key', 'in', forgotten.slice(start, start + 500))
      .execute()
  }
  const recorded = new Set((await db.selectFrom('media_files').select('key').execute()).map((row) => row.key))
  const stale: string[] = []
  let kept = 0
  for await (const object of storage.list()) {
    if (recorded.has(object.key) || object.modifiedAt >= cutoff) kept++
    else stale.push(object.key)
  }
  await storage.delete(stale)
  return { removed: stale.length, kept }
}
