import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { CONTENT_KIND_NAMES, CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import { isObject } from '../validation/guards.js'

/** The kinds of record an import file holds: the organization, experts and every content kind. */
export type RecordKind = 'organization' | 'expert' | ContentKind
export const RECORD_KINDS: readonly RecordKind[] = ['organization', 'expert', ...CONTENT_KIND_NAMES]

/** A record as read from the file, before validation, with where it was found. */
export interface RawRecord {
  kind: RecordKind
  /** `experts[3]` in a JSON file, `line 7` in an NDJSON file. */
  position: string
  data: unknown
}

/** One problem with one record (or with the file). */
export interface ImportIssue {
  position: string
  key?: string
  field: string
  message: string
}

/** A JSON file's lists: `experts`, and each content kind's under its table's name (`spotlights`, `questions`). */
const JSON_LISTS: ReadonlyMap<string, RecordKind> = new Map<string, RecordKind>([
  ['experts', 'expert'],
  ...CONTENT_KIND_NAMES.map((kind) => [CONTENT_KINDS[kind].table, kind] as const),
])

/**
 * Reads a JSON file (`{organization?, experts?, spotlights?, questions?}`) or an NDJSON file (one
 * record per line, each with a `type`). NDJSON is chosen by the `.ndjson` / `.jsonl` extension, or
 * when the text is not one JSON document but its first line is a typed record.
 */
export function parseImportText(
  text: string,
  fileName = '',
): { records: RawRecord[]; issues: ImportIssue[] } {
  const body = text.replace(/^\uFEFF/, '')
  if (isNdjsonName(fileName)) return parseNdjson(body)
  let document: unknown
  try {
    document = JSON.parse(body)
  } catch (error) {
    if (looksLikeNdjson(body)) return parseNdjson(body)
    return {
      records: [],
      issues: [{ position: 'file', field: '', message: `is not valid JSON: ${messageOf(error)}` }],
    }
  }
  if (isObject(document) && 'type' in document) return parseNdjson(body)
  return parseJsonDocument(document)
}

function parseJsonDocument(document: unknown): { records: RawRecord[]; issues: ImportIssue[] } {
  const records: RawRecord[] = []
  const issues: ImportIssue[] = []
  if (!isObject(document)) {
    issues.push({
      position: 'file',
      field: '',
      message: 'must be a JSON object with experts, spotlights and questions',
    })
    return { records, issues }
  }
  for (const [name, value] of Object.entries(document)) {
    if (name === 'organization') {
      records.push({ kind: 'organization', position: 'organization', data: value })
    } else if (JSON_LISTS.has(name)) {
      const kind = JSON_LISTS.get(name)
      if (!Array.isArray(value) || kind === undefined) {
        issues.push({ position: name, field: '', message: 'must be an array' })
        continue
      }
      value.forEach((data, index) => {
        records.push({ kind, position: `${name}[${index}]`, data })
      })
    } else {
      issues.push({
        position: name,
        field: '',
        message: 'is not a known list (organization, experts, spotlights, questions)',
      })
    }
  }
  return { records, issues }
}

function parseNdjson(text: string): { records: RawRecord[]; issues: ImportIssue[] } {
  const records: RawRecord[] = []
  const issues: ImportIssue[] = []
  text.split(/\r?\n/).forEach((line, index) => {
    const item = parseNdjsonLine(line, index + 1)
    if (item && 'record' in item) records.push(item.record)
    else if (item) issues.push(item.issue)
  })
  return { records, issues }
}

/** One line of an NDJSON file: a record, a problem, or nothing (a blank line). */
function parseNdjsonLine(line: string, number: number): SourceItem | undefined {
  const position = `line ${number}`
  if (line.trim() === '') return undefined
  let data: unknown
  try {
    data = JSON.parse(line)
  } catch (error) {
    return { issue: { position, field: '', message: `is not valid JSON: ${messageOf(error)}` } }
  }
  if (!isObject(data)) return { issue: { position, field: '', message: 'must be a JSON object' } }
  const { type, ...rest } = data
  const kind = RECORD_KINDS.find((known) => known === type)
  if (kind === undefined)
    return { issue: { position, field: 'type', message: `must be one of: ${RECORD_KINDS.join(', ')}` } }
  return { record: { kind, position, data: rest } }
}

/** A record of the file, or a problem of the file where a record was expected. */
export type SourceItem = { record: RawRecord } | { issue: ImportIssue }

/**
 * Where an import reads its records from. The import reads them more than once (checking first,
 * writing after), so `read` starts from the beginning each time it is called.
 */
export interface ImportSource {
  read(): AsyncIterable<SourceItem>
}

/** Records already in memory (a JSON or NDJSON text, or rows turned into records). */
export function recordsSource(
  records: readonly RawRecord[],
  issues: readonly ImportIssue[] = [],
): ImportSource {
  return {
    async *read() {
      for (const issue of issues) yield { issue }
      for (const record of records) yield { record }
    },
  }
}

/** A JSON or NDJSON text (parseImportText). */
export function textSource(text: string, fileName = ''): ImportSource {
  const { records, issues } = parseImportText(text, fileName)
  return recordsSource(records, issues)
}

/** An NDJSON file read line by line each time, so memory does not grow with the file. */
export function ndjsonFileSource(path: string): ImportSource {
  return {
    async *read() {
      const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
      let number = 0
      for await (const line of lines) {
        number++
        const item = parseNdjsonLine(number === 1 ? line.replace(/^\uFEFF/, '') : line, number)
        if (item) yield item
      }
    },
  }
}

/** Whether a file name says NDJSON (`.ndjson`, `.jsonl`). */
export const isNdjsonName = (fileName: string): boolean => /\.(ndjson|jsonl)$/i.test(fileName)

function looksLikeNdjson(text: string): boolean {
  const first = text.split(/\r?\n/).find((line) => line.trim() !== '')
  try {
    const data = first ? JSON.parse(first) : undefined
    return isObject(data) && 'type' in data
  } catch {
    return false
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
