import type { SourceAuthor, SourceName, WorkConcept } from './sources/source.js'

/**
 * A work's descriptive fields, each with the source that gave it (CONTRACT §19: "each field remembers
 * which source gave it"). When two sources describe one field, the publisher's record (Crossref) wins
 * over PubMed, PubMed over OpenAlex, OpenAlex over the researcher's own ORCID entry; a source always
 * refreshes the fields it gave.
 */
const CONCEPT_SCHEMES = new Set<string>(['openalex_topic', 'openalex_keyword', 'mesh'])

function isConcept(value: unknown): value is WorkConcept {
  if (typeof value !== 'object' || value === null) return false
  const scheme: unknown = Reflect.get(value, 'scheme')
  const score: unknown = Reflect.get(value, 'score')
  return (
    typeof scheme === 'string' &&
    CONCEPT_SCHEMES.has(scheme) &&
    typeof Reflect.get(value, 'id') === 'string' &&
    typeof Reflect.get(value, 'label') === 'string' &&
    typeof score === 'number' &&
    Number.isFinite(score) &&
    typeof Reflect.get(value, 'major') === 'boolean'
  )
}

const isConcepts = (value: unknown): value is WorkConcept[] => Array.isArray(value) && value.every(isConcept)

export interface WorkFieldValues {
  title: string
  year: number
  date: number
  container: string
  authors: string[]
  abstract: string
  type: string
  url: string
  concepts: WorkConcept[]
}

export type WorkFieldName = keyof WorkFieldValues
export type WorkFields = { [K in WorkFieldName]?: { value: WorkFieldValues[K]; source: SourceName } }

export const SOURCE_PRECEDENCE: readonly SourceName[] = ['crossref', 'pubmed', 'openalex', 'orcid']
const SOURCES = new Set<string>(SOURCE_PRECEDENCE)

function isSourceName(value: unknown): value is SourceName {
  return typeof value === 'string' && SOURCES.has(value)
}

/** True when `candidate` may replace a value `holder` gave. */
export function outranks(candidate: SourceName, holder: SourceName): boolean {
  return SOURCE_PRECEDENCE.indexOf(candidate) <= SOURCE_PRECEDENCE.indexOf(holder)
}

const isString = (value: unknown): value is string => typeof value === 'string'
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString)

/** The stored JSON of a work's fields, keeping only well-formed entries. */
export function parseWorkFields(text: string): WorkFields {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return {}
  }
  if (typeof parsed !== 'object' || parsed === null) return {}
  const entry = <T>(name: WorkFieldName, valid: (value: unknown) => value is T) => {
    const raw: unknown = Reflect.get(parsed, name)
    if (typeof raw !== 'object' || raw === null) return undefined
    const value: unknown = Reflect.get(raw, 'value')
    const source: unknown = Reflect.get(raw, 'source')
    return valid(value) && isSourceName(source) ? { value, source } : undefined
  }
  const fields: WorkFields = {}
  const title = entry('title', isString)
  if (title) fields.title = title
  const year = entry('year', isNumber)
  if (year) fields.year = year
  const date = entry('date', isNumber)
  if (date) fields.date = date
  const container = entry('container', isString)
  if (container) fields.container = container
  const authors = entry('authors', isStrings)
  if (authors) fields.authors = authors
  const abstract = entry('abstract', isString)
  if (abstract) fields.abstract = abstract
  const type = entry('type', isString)
  if (type) fields.type = type
  const url = entry('url', isString)
  if (url) fields.url = url
  const concepts = entry('concepts', isConcepts)
  if (concepts) fields.concepts = concepts
  return fields
}

/** The fields as one source describes the work. */
export function fieldsOf(work: {
  source: SourceName
  title?: string | undefined
  year?: number | undefined
  date?: number | undefined
  container?: string | undefined
  authors: SourceAuthor[]
  abstract?: string | undefined
  type?: string | undefined
  url?: string | undefined
  concepts?: WorkConcept[] | undefined
}): WorkFields {
  const { source } = work
  const fields: WorkFields = {}
  const title = work.title?.trim()
  if (title) fields.title = { value: title, source }
  if (work.year !== undefined) fields.year = { value: work.year, source }
  if (work.date !== undefined) fields.date = { value: work.date, source }
  const container = work.container?.trim()
  if (container) fields.container = { value: container, source }
  const authors = work.authors.map((author) => author.name.trim()).filter((name) => name !== '')
  if (authors.length > 0) fields.authors = { value: authors, source }
  const abstract = work.abstract?.trim()
  if (abstract) fields.abstract = { value: abstract, source }
  const type = work.type?.trim()
  if (type) fields.type = { value: type, source }
  const url = work.url?.trim()
  if (url) fields.url = { value: url, source }
  if (work.concepts && work.concepts.length > 0) fields.concepts = { value: work.concepts, source }
  return fields
}

/** `stored` with each field of `incoming` that outranks what is stored. */
export function mergeFields(stored: WorkFields, incoming: WorkFields): WorkFields {
  const merged: WorkFields = { ...stored }
  const take = <K extends WorkFieldName>(name: K) => {
    const next = incoming[name]
    const current = stored[name]
    if (next && (!current || outranks(next.source, current.source))) merged[name] = next
  }
  take('title')
  take('year')
  take('date')
  take('container')
  take('authors')
  take('abstract')
  take('type')
  take('url')
  take('concepts')
  return merged
}

/** The stored JSON, fields in one order so that the same fields always give the same text. */
export function serializeWorkFields(fields: WorkFields): string {
  const ordered: WorkFields = {}
  if (fields.title) ordered.title = fields.title
  if (fields.year) ordered.year = fields.year
  if (fields.date) ordered.date = fields.date
  if (fields.container) ordered.container = fields.container
  if (fields.authors) ordered.authors = fields.authors
  if (fields.abstract) ordered.abstract = fields.abstract
  if (fields.type) ordered.type = fields.type
  if (fields.url) ordered.url = fields.url
  if (fields.concepts) ordered.concepts = fields.concepts
  return JSON.stringify(ordered)
}
