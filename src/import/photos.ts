import { createHash, createHmac } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Transaction } from 'kysely'
import type { Queryable } from '../db/database.js'
import type { DB, MediaFilesTable } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { findExpert } from '../experts/repository.js'
import { preparePhoto, type StoredPhoto } from '../media/avatar.js'
import { sniffType } from '../media/images.js'
import { type FileToStore, storeFiles } from '../media/store.js'
import { mediaKey } from '../storage/keys.js'
import { expertMediaKeys, forgetMediaFiles, recordMediaFiles } from '../storage/records.js'
import type { MediaStorage } from '../storage/storage.js'
import type { ImportIssue } from './format.js'
import type { ExpertRecord, Valid } from './validate.js'

/** What an import needs to store photos given as local files. */
export interface ImportMedia {
  storage: MediaStorage
  /** The folder relative file paths are read from (the import file's). */
  baseDir: string
  /** Largest accepted photo, in bytes (`EXPERTDIR_UPLOAD_MAX_BYTES`). */
  maxBytes: number
}

/** A photo of the file, made before the import's transaction. */
export interface PreparedPhoto {
  /** Index of its expert in the plan (and in the result's usernames). */
  expert: number
  files: FileToStore[]
  /** The avatar the record holds instead of its file: the renditions' URLs. */
  avatar: StoredPhoto['avatar']
}

/** A photo whose files are stored: every key of it, and the rows of the files new to the storage. */
export interface ImportedPhoto {
  expert: number
  keys: string[]
  rows: MediaFilesTable[]
}

/**
 * The file names of an imported photo are keyed by the organization, the expert's key and the image's
 * own hash: importing the same file again gives the same names, so a re-import changes nothing.
 */
function importNamer(orgId: number, key: string, bytes: Buffer): (output: Buffer) => string {
  const secret = createHash('sha256')
    .update(`expertdir import photo\0${orgId}\0${key}\0`)
    .update(createHash('sha256').update(bytes).digest())
    .digest()
  return (output) => createHmac('sha256', secret).update(output).digest('hex').slice(0, 32)
}

const problem = (error: unknown): string => {
  if (error instanceof ApiError) return error.details?.[0]?.message ?? error.message
  if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 'file not found'
  return error instanceof Error ? error.message : String(error)
}

/**
 * Turns every `avatar: {"file": ...}` of the plan into the photo's renditions (the record then holds
 * their URLs, as if the file had given them) and returns the files to store; a file that is missing or
 * not an acceptable photo is an issue of its record, like any other.
 */
export async function preparePhotos(
  experts: readonly { index: number; valid: Valid<ExpertRecord> }[],
  orgId: number,
  media: ImportMedia | undefined,
): Promise<{ photos: PreparedPhoto[]; issues: ImportIssue[] }> {
  const photos: PreparedPhoto[] = []
  const issues: ImportIssue[] = []
  for (const {
    index,
    valid: { position, record },
  } of experts) {
    const avatar = record.sections?.avatar
    if (!avatar || !('file' in avatar) || typeof avatar.file !== 'string') continue
    const issue = (message: string) =>
      issues.push({ position, key: record.key, field: 'sections.avatar.file', message })
    if (!media) {
      issue('photos from files can only be imported with the media storage configured')
      continue
    }
    try {
      const bytes = await readFile(resolve(media.baseDir, avatar.file))
      if (bytes.length > media.maxBytes) {
        issue(`is larger than the ${media.maxBytes} bytes allowed`)
        continue
      }
      const type = sniffType(bytes)
      if (type !== 'jpeg' && type !== 'png' && type !== 'webp') {
        issue('must be a JPEG, PNG or WebP image')
        continue
      }
      const photo = await preparePhoto(bytes, orgId, undefined, importNamer(orgId, record.key, bytes))
      if (record.sections) record.sections.avatar = photo.avatar
      photos.push({ expert: index, files: photo.files, avatar: photo.avatar })
    } catch (error) {
      issue(problem(error))
    }
  }
  return { photos, issues }
}

/**
 * Stores the photos' files before the transaction. Files already recorded (a re-import of the same
 * photo gives the same names) are not written again: `written` lists only new files, the ones to
 * delete if the import fails.
 */
export async function storePhotos(
  db: Queryable,
  media: ImportMedia,
  orgId: number,
  photos: readonly PreparedPhoto[],
  now: number,
  written: string[],
): Promise<ImportedPhoto[]> {
  const keyOf = (file: FileToStore) => mediaKey(orgId, file.name, file.extension)
  const candidates = photos.flatMap((photo) => photo.files.map(keyOf))
  const known = new Set<string>()
  for (let start = 0; start < candidates.length; start += 500) {
    const rows = await db
      .selectFrom('media_files')
      .select('key')
      .where('key', 'in', candidates.slice(start, start + 500))
      .execute()
    for (const row of rows) known.add(row.key)
  }
  const stored: ImportedPhoto[] = []
  for (const photo of photos) {
    const fresh = photo.files.filter((file) => !known.has(keyOf(file)))
    const rows = await storeFiles(media.storage, { orgId, expertId: null, purpose: 'avatar' }, fresh, now)
    written.push(...rows.map((row) => row.key))
    stored.push({ expert: photo.expert, keys: photo.files.map(keyOf), rows })
  }
  return stored
}

/**
 * Inside the import's transaction: records each photo's files as its expert's and forgets the
 * expert's previous photo; returns the previous photo's keys, to delete once the import committed.
 */
export async function attachPhotos(
  trx: Transaction<DB>,
  orgId: number,
  photos: readonly ImportedPhoto[],
  usernames: readonly string[],
): Promise<string[]> {
  const previous: string[] = []
  for (const photo of photos) {
    const username = usernames[photo.expert]
    const expert = username === undefined ? undefined : await findExpert(trx, orgId, username)
    if (!expert) continue
    const existing = await expertMediaKeys(trx, orgId, expert.id)
    const wanted = new Set(photo.keys)
    const old = existing.filter((key) => !wanted.has(key))
    await forgetMediaFiles(trx, orgId, old)
    await recordMediaFiles(
      trx,
      photo.rows
        .filter((row) => !existing.includes(row.key))
        .map((row) => ({ ...row, expert_id: expert.id })),
    )
    previous.push(...old)
  }
  return previous
}
