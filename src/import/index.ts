import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { findOrganization } from '../organizations/repository.js'
import { parseImportText } from './format.js'
import { validateRecords } from './validate.js'
import { ImportRejected, type ImportResult, writePlan } from './write.js'

export type { ImportIssue } from './format.js'
export { ImportRejected, type ImportResult } from './write.js'

export interface ImportOptions {
  now: number
  /** Decides JSON vs NDJSON by extension (`.ndjson`, `.jsonl`); the content decides otherwise. */
  fileName?: string
  /** Called once with the number of records once they are valid, then after each record written. */
  onProgress?: (event: { total: number; done: number }) => void
}

/**
 * Imports a JSON or NDJSON document (docs/import.md) into an organization: every record is checked
 * first and every problem reported at once (ImportRejected); then everything is written in one
 * transaction, so a failure leaves the database unchanged. Records are matched by their `key`, so a
 * re-import updates instead of duplicating.
 */
export async function importContent(
  db: Kysely<DB>,
  orgId: number,
  text: string,
  options: ImportOptions,
): Promise<ImportResult> {
  if (!(await findOrganization(db, orgId))) throw new Error(`Organization ${orgId} does not exist.`)
  const parsed = parseImportText(text, options.fileName)
  const { plan, issues } = validateRecords(parsed.records)
  const all = [...parsed.issues, ...issues]
  if (all.length > 0) throw new ImportRejected(all)
  const total =
    (plan.organization ? 1 : 0) + plan.experts.length + plan.spotlights.length + plan.questions.length
  let done = 0
  options.onProgress?.({ total, done })
  return writeTransaction(db, (trx) => {
    done = 0
    return writePlan(trx, orgId, plan, options.now, () => options.onProgress?.({ total, done: ++done }))
  })
}
