import { orderedConcepts, unionConcepts } from './sources/concepts.js'
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
/** One field's value and the source that gave it. */
export interface WorkField<K extends WorkFieldName> {
  value: WorkFieldValues[K]
  source: SourceName
}
export type WorkFields = { [K in WorkFieldName]?: WorkField<K> }

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

/** A work as one source describes it: the parts of a `SourceWork` that become fields. */
export interface SourceFields {
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
}

/** How one field is read back from storage, taken from a source and merged with what is stored. */
interface FieldRule<K extends WorkFieldName> {
  name: K
  // Method syntax: a table of rules of different fields is then a list of one rule type.
  valid(value: unknown): value is WorkFieldValues[K]
  /** The source's value, or undefined when it gives none (blank text, no names, no concepts). */
  from: (work: SourceFields) => WorkFieldValues[K] | undefined
  /** The merged field when both are present; by default the outranking source's value replaces the stored. */
  merge?(stored: WorkField<K>, incoming: WorkField<K>): WorkField<K>
}

const rule = <K extends WorkFieldName>(spec: FieldRule<K>): FieldRule<K> => spec
const trimmed = (text: string | undefined) => text?.trim() || undefined

/**
 * Every field, in the order of the stored JSON. Concepts are the one field no source wins: the union
 * is kept (`unionConcepts`), attributed to the highest-ranked source that gave any.
 */
const FIELD_RULES = [
  rule({ name: 'title', valid: isString, from: (work) => trimmed(work.title) }),
  rule({ name: 'year', valid: isNumber, from: (work) => work.year }),
  rule({ name: 'date', valid: isNumber, from: (work) => work.date }),
  rule({ name: 'container', valid: isString, from: (work) => trimmed(work.container) }),
  rule({
    name: 'authors',
    valid: isStrings,
    from: (work) => {
      const names = work.authors.map((author) => author.name.trim()).filter((name) => name !== '')
      return names.length > 0 ? names : undefined
    },
  }),
  rule({ name: 'abstract', valid: isString, from: (work) => trimmed(work.abstract) }),
  rule({ name: 'type', valid: isString, from: (work) => trimmed(work.type) }),
  rule({ name: 'url', valid: isString, from: (work) => trimmed(work.url) }),
  rule({
    name: 'concepts',
    valid: isConcepts,
    from: (work) => (work.concepts && work.concepts.length > 0 ? orderedConcepts(work.concepts) : undefined),
    merge: (stored, incoming) => {
      const incomingRanks = outranks(incoming.source, stored.source)
      return {
        value: unionConcepts(stored.value, incoming.value, incomingRanks),
        source: incomingRanks ? incoming.source : stored.source,
      }
    },
  }),
]

/** Every field name has its rule (a compile-time check). */
const everyFieldHasARule: Exclude<WorkFieldName, (typeof FIELD_RULES)[number]['name']> extends never
  ? true
  : never = true
void everyFieldHasARule

/** Sets one field; typed over the field's own name, which a write into `WorkFields` by a generic name is not. */
function setField<K extends WorkFieldName>(
  fields: { [P in K]?: WorkField<P> },
  name: K,
  field: WorkField<K>,
): void {
  fields[name] = field
}

function storedEntry<K extends WorkFieldName>(parsed: object, spec: FieldRule<K>): WorkField<K> | undefined {
  const raw: unknown = Reflect.get(parsed, spec.name)
  if (typeof raw !== 'object' || raw === null) return undefined
  const value: unknown = Reflect.get(raw, 'value')
  const source: unknown = Reflect.get(raw, 'source')
  return spec.valid(value) && isSourceName(source) ? { value, source } : undefined
}

/** The stored JSON of a work's fields, keeping only well-formed entries. */
export function parseWorkFields(text: string): WorkFields {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return {}
  }
  if (typeof parsed !== 'object' || parsed === null) return {}
  const fields: WorkFields = {}
  const read = <K extends WorkFieldName>(spec: FieldRule<K>) => {
    const entry = storedEntry(parsed, spec)
    if (entry) setField(fields, spec.name, entry)
  }
  for (const spec of FIELD_RULES) read(spec)
  return fields
}

/** The fields as one source describes the work. */
export function fieldsOf(work: SourceFields): WorkFields {
  const fields: WorkFields = {}
  const take = <K extends WorkFieldName>(spec: FieldRule<K>) => {
    const value = spec.from(work)
    if (value !== undefined) setField(fields, spec.name, { value, source: work.source })
  }
  for (const spec of FIELD_RULES) take(spec)
  return fields
}

/** `stored` with each field of `incoming` merged in: by its rule, or replaced when `incoming` outranks it. */
export function mergeFields(stored: WorkFields, incoming: WorkFields): WorkFields {
  const merged: WorkFields = { ...stored }
  const take = <K extends WorkFieldName>(spec: FieldRule<K>) => {
    const next = incoming[spec.name]
    const current = stored[spec.name]
    if (!next) return
    if (!current) setField(merged, spec.name, next)
    else if (spec.merge) setField(merged, spec.name, spec.merge(current, next))
    else if (outranks(next.source, current.source)) setField(merged, spec.name, next)
  }
  for (const spec of FIELD_RULES) take(spec)
  return merged
}

/** The stored JSON, fields in one order so that the same fields always give the same text. */
export function serializeWorkFields(fields: WorkFields): string {
  const ordered: WorkFields = {}
  const copy = <K extends WorkFieldName>(spec: FieldRule<K>) => {
    const field = fields[spec.name]
    if (field) setField(ordered, spec.name, field)
  }
  for (const spec of FIELD_RULES) copy(spec)
  return JSON.stringify(ordered)
}
