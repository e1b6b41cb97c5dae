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
  if (/\.(ndjson|jsonl)$/i.test(fileName)) return parseNdjson(body)
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
    const position = `line ${index + 1}`
    if (line.trim() === '') return
    let data: unknown
    try {
      data = JSON.parse(line)
    } catch (error) {
      issues.push({ position, field: '', message: `is not valid JSON: ${messageOf(error)}` })
      return
    }
    if (!isObject(data)) {
      issues.push({ position, field: '', message: 'must be a JSON object' })
      return
    }
    const { type, ...rest } = data
    const kind = RECORD_KINDS.find((known) => known === type)
    if (kind === undefined) {
      issues.push({ position, field: 'type', message: `must be one of: ${RECORD_KINDS.join(', ')}` })
      return
    }
    records.push({ kind, position, data: rest })
  })
  return { records, issues }
}

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
