import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { writeTransaction } from '../db/transactions.js'
import { findOrganization } from '../organizations/repository.js'
import { type ImportIssue, type ImportSource, textSource } from './format.js'
import { attachPhotos, type ImportMedia, type PreparedPhoto, preparePhotos, storePhotos } from './photos.js'
import { type CheckedRecord, type ExpertRecord, RecordChecker } from './validate.js'
import { emptySummary, ImportRejected, type ImportResult, summarize, writeRecords } from './write.js'

export type { ImportIssue, ImportSource, RawRecord } from './format.js'
export { isNdjsonName, ndjsonFileSource, recordsSource, textSource } from './format.js'
export type { ImportMedia } from './photos.js'
export { ImportRejected, type ImportResult } from './write.js'

/** What an import may add to its write context (whose trail is the one audit entry of the import). */
export interface ImportOptions {
  /** Decides JSON vs NDJSON by extension (`.ndjson`, `.jsonl`); the content decides otherwise. */
  fileName?: string
  /** Called once with the number of records once they are valid, then after each record written. */
  onProgress?: (event: { total: number; done: number }) => void
  /** Where photos given as local files (`avatar: {"file": ...}`) are stored; without it such photos are refused. */
  media?: ImportMedia
  /** Checks against the database and counts what would change, then rolls everything back. */
  dryRun?: boolean
}

/** Ends a dry run's transaction (rolling it back) with the counts it would have written. */
class DryRunDone extends Error {
  constructor(readonly result: ImportResult) {
    super('dry run')
  }
}

/**
 * Imports a JSON or NDJSON document (docs/import.md) into an organization: every record is checked
 * first and every problem reported at once (ImportRejected); then everything is written in one
 * transaction, so a failure leaves the database unchanged. Records are matched by their `key`, so a
 * re-import updates instead of duplicating.
 */
export async function importContent(
  write: WriteContext,
  text: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  return importSource(write, textSource(text, options.fileName), options)
}

/**
 * `importContent` from any source of records (a streamed NDJSON file, rows of a CSV). The source is
 * read twice: a checking pass that keeps only the keys, emails and references of the records, and a
 * writing pass, in batches; memory does not grow with the number of records (photos made from files
 * aside).
 */
export async function importSource(
  { db, orgId, now, trail }: WriteContext,
  source: ImportSource,
  options: ImportOptions = {},
): Promise<ImportResult> {
  if (!(await findOrganization(db, orgId))) throw new Error(`Organization ${orgId} does not exist.`)
  const fileIssues: ImportIssue[] = []
  const checker = new RecordChecker()
  const summary = emptySummary()
  const photos: PreparedPhoto[] = []
  const photoIssues: ImportIssue[] = []
  for await (const item of source.read()) {
    if ('issue' in item) {
      fileIssues.push(item.issue)
      continue
    }
    const checked = checker.check(item.record)
    if (!checked) continue
    summarize(summary, checked)
    if (checked.kind === 'expert' && hasPhotoFile(checked.valid.record)) {
      const index = summary.experts.length - 1
      const prepared = await preparePhotos([{ index, valid: checked.valid }], orgId, options.media)
      photos.push(...prepared.photos)
      photoIssues.push(...prepared.issues)
    }
  }
  const all = [...fileIssues, ...checker.issues, ...photoIssues]
  if (all.length > 0) throw new ImportRejected(all)
  const total =
    (summary.organization ? 1 : 0) + summary.experts.length + summary.spotlights + summary.questions
  let done = 0
  options.onProgress?.({ total, done })
  const avatars = new Map(photos.map((photo) => [photo.expert, photo.avatar]))
  // Photo files are written before the transaction and removed again if it fails (docs/import.md).
  const written: string[] = []
  try {
    const stored =
      options.media && photos.length > 0
        ? await storePhotos(db, options.media, orgId, photos, now, written)
        : []
    const { result, previous } = await writeTransaction(db, async (trx) => {
      done = 0
      const result = await writeRecords(trx, orgId, summary, () => checkedAgain(source), {
        now,
        trail,
        avatars,
        onRecord: () => options.onProgress?.({ total, done: ++done }),
      })
      if (options.dryRun) throw new DryRunDone(result)
      const previous = await attachPhotos(trx, orgId, stored, result.ids.experts)
      await recordAudit(trx, orgId, trail, { kind: 'import', id: options.fileName ?? null }, now)
      return { result, previous }
    })
    if (options.media) await options.media.storage.delete(previous).catch(() => {})
    return result
  } catch (error) {
    if (options.media) await options.media.storage.delete(written).catch(() => {})
    if (error instanceof DryRunDone) return error.result
    throw error
  }
}

const hasPhotoFile = (record: ExpertRecord): boolean => {
  const avatar = record.sections?.avatar
  return avatar !== undefined && 'file' in avatar && typeof avatar.file === 'string'
}

/** The source's records checked once more for the writing pass (the checks are the same, so they pass again). */
async function* checkedAgain(source: ImportSource): AsyncIterable<CheckedRecord> {
  const checker = new RecordChecker()
  for await (const item of source.read()) {
    if (!('record' in item)) continue
    const checked = checker.check(item.record)
    if (checked) yield checked
  }
  if (checker.issues.length > 0) throw new Error('The import file changed while it was being imported.')
}
