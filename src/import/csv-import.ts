import type { WriteContext } from '../audit/write-context.js'
import { ApiError } from '../errors.js'
import { columnOfIssue, csvRecords } from './csv.js'
import { recordsSource } from './format.js'
import { ImportRejected, type ImportResult, importSource } from './index.js'

/** One problem of a CSV import, by row (as a spreadsheet numbers it: the header is row 1) and column. */
export interface CsvProblem {
  row: number | null
  column: string | null
  field: string
  message: string
  key?: string
}

export interface CsvImportOutcome {
  dry_run: boolean
  rows: number
  columns: { column: string; field: string | null }[]
  preview: { row: number; cells: string[] }[]
  problems: CsvProblem[]
  experts: ImportResult['experts'] | null
}

/**
 * Imports people from a CSV text (docs/import.md, "CSV"): its rows become expert records and go
 * through the import's checks and writes, all or nothing. A dry run checks everything, the database
 * included, and counts what would change without writing; a real import with problems is refused
 * (400, every problem by row and column) and writes nothing.
 */
export async function importCsv(
  write: WriteContext,
  input: { csv: string; mapping?: Record<string, string>; dryRun: boolean },
): Promise<CsvImportOutcome> {
  const parsed = csvRecords(input.csv, input.mapping)
  const outcome = (problems: CsvProblem[], experts: ImportResult['experts'] | null): CsvImportOutcome => ({
    dry_run: input.dryRun,
    rows: parsed.records.length,
    columns: parsed.columns,
    preview: parsed.preview,
    problems,
    experts,
  })
  let problems: CsvProblem[] = []
  let experts: ImportResult['experts'] | null = null
  // A file that cannot be read, or a mapping that leaves a required field out, is reported alone:
  // every row would otherwise repeat it.
  const source = parsed.issues.length > 0 ? recordsSource([], parsed.issues) : recordsSource(parsed.records)
  try {
    const result = await importSource(write, source, {
      fileName: 'people.csv',
      dryRun: input.dryRun,
    })
    experts = result.experts
  } catch (error) {
    if (!(error instanceof ImportRejected)) throw error
    problems = error.issues.map((issue) => ({
      row: /^row (\d+)$/.exec(issue.position)?.[1] ? Number(issue.position.slice(4)) : null,
      column: issue.position === 'mapping' ? issue.field : columnOfIssue(issue, parsed.columnOf),
      field: issue.field,
      message: issue.message,
      ...(issue.key !== undefined ? { key: issue.key } : {}),
    }))
  }
  if (problems.length > 0 && !input.dryRun)
    throw new ApiError(
      'validation_failed',
      `The file has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was imported.`,
      {
        details: problems.map((problem) => ({
          ...problem,
          field: problem.column ?? problem.field,
        })),
      },
    )
  return outcome(problems, experts)
}
