import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { CONTENT_KIND_NAMES } from '../db/content-kinds.js'
import { writeTransaction } from '../db/transactions.js'
import { findOrganization } from '../organizations/repository.js'
import { parseImportText } from './format.js'
import { attachPhotos, type ImportMedia, preparePhotos, storePhotos } from './photos.js'
import { validateRecords } from './validate.js'
import { ImportRejected, type ImportResult, writePlan } from './write.js'

export type { ImportIssue } from './format.js'
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
}

/**
 * Imports a JSON or NDJSON document (docs/import.md) into an organization: every record is checked
 * first and every problem reported at once (ImportRejected); then everything is written in one
 * transaction, so a failure leaves the database unchanged. Records are matched by their `key`, so a
 * re-import updates instead of duplicating.
 */
export async function importContent(
  { db, orgId, now, trail }: WriteContext,
  text: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  if (!(await findOrganization(db, orgId))) throw new Error(`Organization ${orgId} does not exist.`)
  const parsed = parseImportText(text, options.fileName)
  const { plan, issues } = validateRecords(parsed.records)
  const photos = await preparePhotos(plan, orgId, options.media)
  const all = [...parsed.issues, ...issues, ...photos.issues]
  if (all.length > 0) throw new ImportRejected(all)
  const total =
    (plan.organization ? 1 : 0) +
    plan.experts.length +
    CONTENT_KIND_NAMES.reduce((sum, kind) => sum + plan.content[kind].length, 0)
  let done = 0
  options.onProgress?.({ total, done })
  // Photo files are written before the transaction and removed again if it fails (docs/import.md).
  const written: string[] = []
  try {
    const stored =
      options.media && photos.photos.length > 0
        ? await storePhotos(db, options.media, orgId, photos.photos, now, written)
        : []
    const { result, previous } = await writeTransaction(db, async (trx) => {
      done = 0
      const result = await writePlan(trx, orgId, plan, now, () =>
        options.onProgress?.({ total, done: ++done }),
      )
      const previous = await attachPhotos(trx, orgId, stored, result.ids.experts)
      await recordAudit(trx, orgId, trail, { kind: 'import', id: options.fileName ?? null }, now)
      return { result, previous }
    })
    if (options.media) await options.media.storage.delete(previous).catch(() => {})
    return result
  } catch (error) {
    if (options.media) await options.media.storage.delete(written).catch(() => {})
    throw error
  }
}
