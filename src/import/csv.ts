import { CsvError, parse } from 'csv-parse/sync'
import type { ImportIssue, RawRecord } from './format.js'
import { ImportExpert } from './schemas.js'

/**
 * People as a CSV file (an HR export): one expert per row, columns mapped to fields. The rows become
 * expert records of the import (docs/import.md) and go through the same checks and writes.
 */

/** Section fields a CSV column may fill: one text each, or a list separated by `;`. */
const SECTION_FIELDS = {
  tagline: 'Tagline (one line)',
  biography: 'Biography (text or HTML)',
  topics: 'Topics, separated by ;',
  tags: 'Tags, separated by ;',
} as const

/** Rows of the file shown back as a preview. */
const PREVIEW_ROWS = 5

const FLAG_FIELDS = new Set(['is_published', 'is_private', 'media_available', 'remote_ready', 'studio_ready'])
/** Account fields a cell gives as a list separated by `;`. */
const LIST_FIELDS = new Set(['interview_languages'])
/** Account fields a cell gives as an integer (times in unix seconds). */
const INTEGER_FIELDS = new Set(['media_available_until'])
/** Fields an empty cell leaves unset (flags, choices, lists and numbers have no ""). */
const UNSET_WHEN_EMPTY = new Set([
  ...FLAG_FIELDS,
  ...LIST_FIELDS,
  ...INTEGER_FIELDS,
  'orcid_policy',
  'openalex_policy',
  'scopus_policy',
])

/** The account fields of an imported expert, in the schema's order (`key` first). */
const ACCOUNT_FIELDS = Object.keys(ImportExpert.properties).filter((field) => field !== 'sections')

/** Every field a column may be mapped to, with its description. */
export const CSV_FIELDS: { field: string; description: string; required: boolean }[] = [
  ...ACCOUNT_FIELDS.map((field) => {
    const schema: unknown = Reflect.get(ImportExpert.properties, field)
    const description =
      typeof schema === 'object' && schema !== null ? Reflect.get(schema, 'description') : ''
    return {
      field,
      description: typeof description === 'string' ? description : field,
      required: ImportExpert.required?.some((name) => name === field) ?? false,
    }
  }),
  ...Object.entries(SECTION_FIELDS).map(([field, description]) => ({ field, description, required: false })),
]

const KNOWN_FIELDS = new Set(CSV_FIELDS.map((f) => f.field))

/** Header spellings HR exports use, normalized (lower-case letters and digits only), by field. */
const ALIASES: Record<string, string[]> = {
  key: ['key', 'id', 'employeeid', 'employeenumber', 'staffid', 'staffnumber', 'personid', 'importkey'],
  firstname: ['firstname', 'givenname', 'forename', 'first'],
  lastname: ['lastname', 'surname', 'familyname', 'last'],
  job_title: ['jobtitle', 'title', 'position', 'role'],
  email: ['email', 'emailaddress', 'mail', 'workemail'],
  company: ['company', 'organization', 'organisation', 'employer'],
  department: ['department', 'dept', 'unit', 'division'],
  phone_number: ['phonenumber', 'phone', 'telephone', 'workphone'],
  phone_number_extension: ['phonenumberextension', 'extension', 'ext'],
  topics: ['topics', 'topic', 'expertise', 'areasofexpertise'],
  tags: ['tags', 'tag', 'keywords'],
  is_published: ['ispublished', 'published'],
  is_private: ['isprivate', 'private'],
}

const normalized = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, '')

/** The field a header names (by field name or a usual alias), or null. */
export function fieldOfHeader(header: string): string | null {
  const name = normalized(header)
  for (const field of KNOWN_FIELDS) {
    if (normalized(field) === name || ALIASES[field]?.includes(name)) return field
  }
  return null
}

/** Column -> field: the given mapping where it names a column, the automatic match for the others. */
export function mappingOf(headers: readonly string[], given: Record<string, string> = {}) {
  const taken = new Set<string>()
  return headers.map((header) => {
    const chosen = Object.hasOwn(given, header) ? given[header] || null : fieldOfHeader(header)
    const field = chosen !== null && !taken.has(chosen) ? chosen : null
    if (field) taken.add(field)
    return { column: header, field }
  })
}

export interface CsvRecords {
  headers: string[]
  columns: { column: string; field: string | null }[]
  records: RawRecord[]
  /** Problems of the file itself and of the mapping, before any record is checked. */
  issues: ImportIssue[]
  /** The first rows as given, numbered as a spreadsheet numbers them (the header is row 1). */
  preview: { row: number; cells: string[] }[]
  /** The column mapped to a field. */
  columnOf: (field: string) => string | undefined
}

/** Parses a CSV text and turns its rows into expert records; a row is named `row N`, as a spreadsheet numbers it. */
export function csvRecords(text: string, mapping: Record<string, string> = {}): CsvRecords {
  const issues: ImportIssue[] = []
  let rows: string[][] = []
  try {
    rows = parse(text.replace(/^\uFEFF/, ''), {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      delimiter: sniffDelimiter(text),
    })
  } catch (error) {
    const row = error instanceof CsvError && typeof error.records === 'number' ? error.records + 1 : undefined
    issues.push({
      position: row ? `row ${row}` : 'file',
      field: '',
      message: `is not valid CSV: ${error instanceof Error ? error.message : String(error)}`,
    })
  }
  const [headerRow = [], ...dataRows] = rows
  const headers = headerRow.map((header) => header.trim())
  const columns = mappingOf(headers, mapping)
  for (const [column, field] of Object.entries(mapping)) {
    if (!headers.includes(column))
      issues.push({ position: 'mapping', field: column, message: 'is not a column of the file' })
    else if (field && !KNOWN_FIELDS.has(field))
      issues.push({ position: 'mapping', field: column, message: `maps to ${field}, which is not a field` })
  }
  const fieldColumn = new Map(columns.flatMap(({ column, field }) => (field ? [[field, column]] : [])))
  for (const { field, required } of CSV_FIELDS)
    if (required && rows.length > 0 && !fieldColumn.has(field))
      issues.push({ position: 'mapping', field, message: 'is required: map a column to it' })
  const records = dataRows.map((cells, index) => ({
    kind: 'expert' as const,
    position: `row ${index + 2}`,
    data: recordOf(columns, cells),
  }))
  const preview = dataRows.slice(0, PREVIEW_ROWS).map((cells, index) => ({ row: index + 2, cells }))
  return { headers, columns, records, issues, preview, columnOf: (field) => fieldColumn.get(field) }
}

/** `;` when the header line has more of them than commas (spreadsheets in many locales export so). */
function sniffDelimiter(text: string): string {
  const header = text.split(/\r?\n/, 1)[0] ?? ''
  return (header.match(/;/g)?.length ?? 0) > (header.match(/,/g)?.length ?? 0) ? ';' : ','
}

const list = (cell: string) =>
  cell
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '')

/** One row as an import record: cells of mapped columns only; `1`/`0` flags as numbers. */
function recordOf(columns: readonly { field: string | null }[], cells: readonly string[]) {
  const record: Record<string, unknown> = {}
  const sections: Record<string, unknown> = {}
  columns.forEach(({ field }, index) => {
    const cell = (cells[index] ?? '').trim()
    if (!field) return
    if (field === 'tagline') sections.tagline = cell === '' ? [] : [{ tagline: cell }]
    else if (field === 'biography') sections.biography = cell === '' ? [] : [{ biography: cell }]
    else if (field === 'topics') sections.topic = list(cell).map((name) => ({ name }))
    else if (field === 'tags') sections.tag = list(cell).map((tag) => ({ tag }))
    else if (FLAG_FIELDS.has(field) && /^[01]$/.test(cell)) record[field] = Number(cell)
    else if (LIST_FIELDS.has(field) && cell !== '') record[field] = list(cell)
    else if (INTEGER_FIELDS.has(field) && /^-?[0-9]{1,16}$/.test(cell)) record[field] = Number(cell)
    else if (!(UNSET_WHEN_EMPTY.has(field) && cell === '')) record[field] = cell
  })
  if (Object.keys(sections).length > 0) record.sections = sections
  return record
}

/** The CSV column a problem of a record is about (`sections.topic[1].name` -> the topics column). */
export function columnOfIssue(issue: ImportIssue, columnOf: (field: string) => string | undefined) {
  const section = /^sections\.([a-z]+)/.exec(issue.field)?.[1]
  const field =
    section === 'topic'
      ? 'topics'
      : section === 'tag'
        ? 'tags'
        : (section ?? issue.field.split(/[.[]/)[0] ?? '')
  return columnOf(field) ?? null
}

/** A CSV file with the header of every field and one example row: what the dashboard offers to download. */
export function csvTemplate(): string {
  const example: Record<string, string> = {
    key: 'staff-1041',
    firstname: 'Amara',
    lastname: 'Nwosu',
    job_title: 'Professor',
    email: 'amara.nwosu@university.example',
    company: 'Example University',
    department: 'Climate Science',
    location_country: 'US',
    location_state: 'MA',
    is_published: '1',
    is_private: '0',
    tagline: 'Heat waves and public health',
    topics: 'Climate change; Heat waves',
    tags: 'Climate',
  }
  const quote = (value: string) => (/[",\n;]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value)
  const fields = CSV_FIELDS.map((f) => f.field)
  return `${fields.join(',')}\r\n${fields.map((field) => quote(example[field] ?? '')).join(',')}\r\n`
}
