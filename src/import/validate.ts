import type { Static, TSchema } from 'typebox'
import { CONTENT_KINDS, isContentKind } from '../db/content-kinds.js'
import { compileValidator, type Validator } from '../http/validation.js'
import { DERIVED_SECTIONS, SINGLE_SECTIONS } from '../profiles/section-fields.js'
import { isObject } from '../validation/guards.js'
import type { ImportIssue, RawRecord, RecordKind } from './format.js'
import { ImportExpert, ImportOrganization, ImportQuestion, ImportSpotlight } from './schemas.js'

export type ExpertRecord = Static<typeof ImportExpert>
export type SpotlightRecord = Static<typeof ImportSpotlight>
export type QuestionRecord = Static<typeof ImportQuestion>
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
  spotlights: Valid<SpotlightRecord>[]
  questions: Valid<QuestionRecord>[]
}

const SCHEMAS: Record<RecordKind, TSchema> = {
  organization: ImportOrganization,
  expert: ImportExpert,
  spotlight: ImportSpotlight,
  question: ImportQuestion,
}

/** The validator of a record schema: a record it accepts has the schema's type. */
const checkOf = <S extends TSchema>(schema: S) => compileValidator<Static<S>>(schema, 'body')

const CHECKS = {
  organization: checkOf(ImportOrganization),
  expert: checkOf(ImportExpert),
  spotlight: checkOf(ImportSpotlight),
  question: checkOf(ImportQuestion),
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

/** A record that passed every check, by kind. */
export type CheckedRecord =
  | { kind: 'organization'; valid: Valid<OrganizationRecord> }
  | { kind: 'expert'; valid: Valid<ExpertRecord> }
  | { kind: 'spotlight'; valid: Valid<SpotlightRecord> }
  | { kind: 'question'; valid: Valid<QuestionRecord> }

/**
 * Checks records one at a time against their schemas and the file-level rules (repeated keys and
 * emails, one organization record), so a file can be checked as it streams by; every problem found
 * is added to `issues`. Only the keys and emails seen are kept.
 */
export class RecordChecker {
  readonly issues: ImportIssue[] = []
  private readonly seenKeys = new Set<string>()
  private readonly seenEmails = new Set<string>()
  private organizations = 0

  /** The record, checked and prepared (trimmed, `""` as null), or undefined when it has problems. */
  check({ kind, position, data }: RawRecord): CheckedRecord | undefined {
    const issues = this.issues
    const key = isObject(data) && typeof data.key === 'string' ? data.key : undefined
    const issue = (field: string, message: string) =>
      issues.push({ position, ...(key !== undefined ? { key } : {}), field, message })
    if (!isObject(data)) {
      issue('', 'must be a JSON object')
      return undefined
    }
    if (key !== undefined && kind !== 'organization') {
      const seen = `${kind}\u0000${key}`
      if (this.seenKeys.has(seen))
        issue(
          'key',
          `repeats the key of an earlier ${isContentKind(kind) ? CONTENT_KINDS[kind].noun.toLowerCase() : kind}`,
        )
      this.seenKeys.add(seen)
    }
    if (kind === 'expert' && typeof data.email === 'string') {
      const email = data.email.trim().toLowerCase()
      if (this.seenEmails.has(email)) issue('email', 'repeats the email of an earlier expert')
      this.seenEmails.add(email)
    }
    const prepared = trimObject(data)
    if (kind === 'expert') prepareSections(prepared, issue)
    const before = issues.length
    const input = emptyToNull(prepared, SCHEMAS[kind])
    /** Checks the record with its kind's validator; the record when nothing is wrong with it. */
    const accept = <T>(check: Validator<T>): Valid<T> | undefined => {
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
      return result.error === undefined && issues.length === before
        ? { position, record: result.value }
        : undefined
    }
    if (kind === 'organization') {
      const valid = accept(CHECKS.organization)
      if (valid && ++this.organizations > 1) issue('', 'the file may hold one organization record only')
      return valid && this.organizations === 1 ? { kind, valid } : undefined
    }
    if (kind === 'expert') {
      const valid = accept(CHECKS.expert)
      return valid && this.elementKeysUnique(valid) ? { kind, valid } : undefined
    }
    if (kind === 'spotlight') {
      const valid = accept(CHECKS.spotlight)
      return valid ? { kind, valid } : undefined
    }
    const valid = accept(CHECKS.question)
    return valid && this.answerKeysUnique(valid) ? { kind, valid } : undefined
  }

  private elementKeysUnique({ position, record }: Valid<ExpertRecord>): boolean {
    const before = this.issues.length
    for (const [section, elements] of Object.entries(record.sections ?? {})) {
      if (!Array.isArray(elements)) continue
      const keyOf = (element: unknown) =>
        isObject(element) && typeof element.key === 'string' ? element.key : undefined
      for (const index of duplicates(elements, keyOf)) {
        this.issues.push({
          position,
          key: record.key,
          field: `sections.${section}[${index}].key`,
          message: 'repeats the key of an earlier element',
        })
      }
    }
    return this.issues.length === before
  }

  private answerKeysUnique({ position, record }: Valid<QuestionRecord>): boolean {
    const before = this.issues.length
    for (const index of duplicates(record.answers ?? [], (answer, i) => answer.key ?? `#${i}`)) {
      this.issues.push({
        position,
        key: record.key,
        field: `answers[${index}].key`,
        message: 'repeats the key of an earlier answer',
      })
    }
    return this.issues.length === before
  }
}
