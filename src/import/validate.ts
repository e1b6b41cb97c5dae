import type { Static, TSchema } from 'typebox'
import { byContentKind, CONTENT_KINDS, type ContentKind, isContentKind } from '../db/content-kinds.js'
import { compileValidator, type Validator } from '../http/validation.js'
import { DERIVED_SECTIONS, SINGLE_SECTIONS } from '../profiles/section-fields.js'
import { isObject } from '../validation/guards.js'
import type { ImportIssue, RawRecord, RecordKind } from './format.js'
import { CONTENT_RECORDS, ImportExpert, ImportOrganization } from './schemas.js'

export type ExpertRecord = Static<typeof ImportExpert>
/** Each content kind's record, as its schema types it. */
export type ContentRecords = { [K in ContentKind]: Static<(typeof CONTENT_RECORDS)[K]> }
export type SpotlightRecord = ContentRecords['spotlight']
export type QuestionRecord = ContentRecords['question']
export type OrganizationRecord = Static<typeof ImportOrganization>

/** A record that passed its schema, with its position for later (reference) checks. */
export interface Valid<T> {
  position: string
  record: T
}

/** Everything the file holds, checked against the schemas (references are checked against the database later). */
export interface ImportPlan {
  organization?: Valid<OrganizationRecord>
  experts: Valid<ExpertRecord>[]
  /** Each content kind's records, in file order. */
  content: { [K in ContentKind]: Valid<ContentRecords[K]>[] }
}

const SCHEMAS: Record<RecordKind, TSchema> = {
  organization: ImportOrganization,
  expert: ImportExpert,
  ...CONTENT_RECORDS,
}

/** The validator of a record schema: a record it accepts has the schema's type. */
const checkOf = <S extends TSchema>(schema: S) => compileValidator<Static<S>>(schema, 'body')

const CHECKS = {
  organization: checkOf(ImportOrganization),
  expert: checkOf(ImportExpert),
}

const CONTENT_CHECKS: { [K in ContentKind]: Validator<ContentRecords[K]> } = {
  spotlight: checkOf(CONTENT_RECORDS.spotlight),
  question: checkOf(CONTENT_RECORDS.question),
}

const NOT_STORED = new Set([
  'account',
  'corporationprofile',
  'corporationsocial',
  'spotlight',
  'qanda',
  ...Object.keys(DERIVED_SECTIONS),
])

/** Trims every string, at any depth. */
function deepTrim(value: unknown): unknown {
  if (typeof value === 'string') return value.trim()
  if (Array.isArray(value)) return value.map(deepTrim)
  if (isObject(value)) return trimObject(value)
  return value
}

function trimObject(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deepTrim(v)]))
}

/** `""` means "not set" wherever the schema (a JSON schema: TypeBox's are plain objects) also accepts null, at any depth. */
function emptyToNull(value: unknown, schema: unknown): unknown {
  if (!isObject(schema)) return value
  const { anyOf, items, properties } = schema
  if (
    value === '' &&
    Array.isArray(anyOf) &&
    anyOf.some((branch) => isObject(branch) && branch.type === 'null')
  )
    return null
  if (Array.isArray(value) && items) return value.map((item) => emptyToNull(item, items))
  if (isObject(value) && isObject(properties)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, emptyToNull(v, properties[k])]))
  }
  return value
}

/** `sections.article.2.url` -> `sections.article[2].url` */
function fieldPath(field: string): string {
  return field === 'body' ? '' : field.replace(/\.(\d+)(?=\.|$)/g, '[$1]')
}

/** Single-element sections may be given as one object instead of an array of one. */
function prepareSections(
  data: Record<string, unknown>,
  issue: (field: string, message: string) => void,
): void {
  if (!isObject(data.sections)) return
  const sections = { ...data.sections }
  for (const [name, value] of Object.entries(sections)) {
    if (NOT_STORED.has(name)) {
      issue(`sections.${name}`, 'is derived on read and cannot be imported')
      delete sections[name]
    } else if (SINGLE_SECTIONS.has(name) && isObject(value)) {
      sections[name] = [value]
    }
  }
  data.sections = sections
}

/** Duplicate `key`s within a list; each duplicate is an issue. */
function duplicates<T>(items: T[], keyOf: (item: T, index: number) => string | undefined): number[] {
  const seen = new Set<string>()
  const repeated: number[] = []
  items.forEach((item, index) => {
    const key = keyOf(item, index)
    if (key === undefined) return
    if (seen.has(key)) repeated.push(index)
    seen.add(key)
  })
  return repeated
}

/** Checks every record against its schema and the file-level rules; reports every problem at once. */
export function validateRecords(records: RawRecord[]): { plan: ImportPlan; issues: ImportIssue[] } {
  const plan: ImportPlan = { experts: [], content: byContentKind(() => []) }
  const issues: ImportIssue[] = []
  const seenKeys = new Set<string>()
  const seenEmails = new Set<string>()
  for (const { kind, position, data } of records) {
    const key = isObject(data) && typeof data.key === 'string' ? data.key : undefined
    const issue = (field: string, message: string) =>
      issues.push({ position, ...(key !== undefined ? { key } : {}), field, message })
    if (!isObject(data)) {
      issue('', 'must be a JSON object')
      continue
    }
    if (key !== undefined && kind !== 'organization') {
      const seen = `${kind}\u0000${key}`
      if (seenKeys.has(seen))
        issue(
          'key',
          `repeats the key of an earlier ${isContentKind(kind) ? CONTENT_KINDS[kind].noun.toLowerCase() : kind}`,
        )
      seenKeys.add(seen)
    }
    if (kind === 'expert' && typeof data.email === 'string') {
      const email = data.email.trim().toLowerCase()
      if (seenEmails.has(email)) issue('email', 'repeats the email of an earlier expert')
      seenEmails.add(email)
    }
    const prepared = trimObject(data)
    if (kind === 'expert') prepareSections(prepared, issue)
    const before = issues.length
    const input = emptyToNull(prepared, SCHEMAS[kind])
    /** Checks the record with its kind's validator and hands it on when nothing is wrong with it. */
    const accept = <T>(check: Validator<T>, add: (valid: Valid<T>) => void) => {
      const result = check(input)
      for (const detail of result.error?.details ?? []) {
        const field = fieldPath(detail.field)
        const single = /^sections\.([a-z]+)$/.exec(field)?.[1]
        const message =
          single && SINGLE_SECTIONS.has(single) && detail.message.startsWith('must have at most')
            ? 'holds at most one element'
            : detail.message
        issue(field, message)
      }
      if (result.error === undefined && issues.length === before) add({ position, record: result.value })
    }
    const acceptContent = <K extends ContentKind>(kind: K) =>
      accept(CONTENT_CHECKS[kind], (valid) => plan.content[kind].push(valid))
    if (kind === 'organization') {
      accept(CHECKS.organization, (valid) => {
        if (plan.organization) issue('', 'the file may hold one organization record only')
        plan.organization = valid
      })
    } else if (kind === 'expert') accept(CHECKS.expert, (valid) => plan.experts.push(valid))
    else acceptContent(kind)
  }
  for (const { position, record } of plan.experts) {
    for (const [section, elements] of Object.entries(record.sections ?? {})) {
      if (!Array.isArray(elements)) continue
      const keyOf = (element: unknown) =>
        isObject(element) && typeof element.key === 'string' ? element.key : undefined
      for (const index of duplicates(elements, keyOf)) {
        issues.push({
          position,
          key: record.key,
          field: `sections.${section}[${index}].key`,
          message: 'repeats the key of an earlier element',
        })
      }
    }
  }
  for (const { position, record } of plan.content.question) {
    for (const index of duplicates(record.answers ?? [], (answer, i) => answer.key ?? `#${i}`)) {
      issues.push({
        position,
        key: record.key,
        field: `answers[${index}].key`,
        message: 'repeats the key of an earlier answer',
      })
    }
  }
  return { plan, issues }
}
