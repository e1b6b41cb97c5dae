import { parseItemData } from '../../db/item-data.js'
import type { SectionName } from '../../db/sections.js'
import { isObject } from '../../validation/guards.js'
import { plainText } from '../../validation/html-text.js'
import { analyze, conceptKey, type TermCount, termCounts } from './analyzer.js'

/**
 * One expert's fingerprint (SOURCES §7.2) and "more like this" document (§7.1), from its profile items
 * and claimed works: pure functions, so that the change hub and the rebuild compute the same rows.
 *
 * A concept's weight before IDF is the sum of its contributions: a profile topic 1, a keyword (tag) 0.8,
 * an industry 0.6; each claimed work's concept its score × (major ? 1 : 0.5) × recency, where recency
 * halves every 8 years of the work's age (0.5 for a work without a year). The IDF and the L2 norm are
 * applied when a query reads the vectors, so a write never rewrites other experts' rows.
 */

const SECTION_WEIGHTS: Partial<Record<SectionName, { field: string; weight: number }>> = {
  topic: { field: 'name', weight: 1 },
  tag: { field: 'tag', weight: 0.8 },
  industry: { field: 'name', weight: 0.6 },
}

/** Years after which a work's concepts count half. */
const HALF_LIFE_YEARS = 8

export interface ProfileItem {
  section: SectionName
  data: string
}

/** A claimed work as stored: its `fields` JSON and its year. */
export interface ClaimedWork {
  fields: string
  year: number | null
}

export interface WorkConceptData {
  label: string
  score: number
  major: boolean
}

export interface WorkText {
  title: string
  abstract: string
  concepts: WorkConceptData[]
}

function fieldValue(fields: unknown, name: string): unknown {
  if (!isObject(fields)) return undefined
  const entry = fields[name]
  return isObject(entry) ? entry.value : undefined
}

function conceptOf(value: unknown): WorkConceptData | null {
  if (!isObject(value)) return null
  const { label, score, major } = value
  if (typeof label !== 'string' || typeof score !== 'number' || !Number.isFinite(score)) return null
  return { label, score: Math.min(Math.max(score, 0), 1), major: major !== false }
}

/** The parts of a work's stored fields that meaning reads (src/works/fields.ts writes them). */
export function workText(fieldsJson: string): WorkText {
  let fields: unknown
  try {
    fields = JSON.parse(fieldsJson)
  } catch {
    fields = {}
  }
  const title = fieldValue(fields, 'title')
  const abstract = fieldValue(fields, 'abstract')
  const concepts = fieldValue(fields, 'concepts')
  return {
    title: typeof title === 'string' ? title : '',
    abstract: typeof abstract === 'string' ? abstract : '',
    concepts: Array.isArray(concepts)
      ? concepts.map(conceptOf).filter((concept): concept is WorkConceptData => concept !== null)
      : [],
  }
}

export interface FingerprintConcept {
  concept: string
  label: string
  weight: number
  hidden: boolean
}

export interface Fingerprint {
  concepts: FingerprintConcept[]
  terms: TermCount[]
  length: number
}

const round = (value: number) => Math.round(value * 1e6) / 1e6

function recency(year: number | null, nowYear: number): number {
  if (year === null) return 0.5
  return 0.5 ** (Math.max(0, nowYear - year) / HALF_LIFE_YEARS)
}

function stringField(item: ProfileItem, field: string): string {
  const value = parseItemData(item.data)[field]
  return typeof value === 'string' ? value.trim() : ''
}

/** The fingerprint and document of one expert; `hidden` holds the concept keys it hid. */
export function fingerprintOf(
  items: readonly ProfileItem[],
  works: readonly ClaimedWork[],
  hidden: ReadonlySet<string>,
  now: number,
): Fingerprint {
  const nowYear = new Date(now).getUTCFullYear()
  const sums = new Map<string, { weight: number; label: string; strongest: number }>()
  const add = (label: string, weight: number) => {
    const key = conceptKey(label)
    if (key === '' || weight <= 0) return
    const entry = sums.get(key)
    if (!entry) {
      sums.set(key, { weight, label: label.trim(), strongest: weight })
      return
    }
    entry.weight += weight
    const trimmed = label.trim()
    if (weight > entry.strongest || (weight === entry.strongest && trimmed < entry.label)) {
      entry.label = trimmed
      entry.strongest = weight
    }
  }
  const text: string[] = []
  for (const item of items) {
    const named = SECTION_WEIGHTS[item.section]
    if (named) {
      const label = stringField(item, named.field)
      add(label, named.weight)
      if (item.section === 'topic') text.push(label)
    } else if (item.section === 'tagline') text.push(stringField(item, 'tagline'))
    else if (item.section === 'biography') text.push(plainText(stringField(item, 'biography')))
  }
  for (const work of works) {
    const { title, abstract, concepts } = workText(work.fields)
    text.push(title, abstract)
    const factor = recency(work.year, nowYear)
    for (const concept of concepts) add(concept.label, concept.score * (concept.major ? 1 : 0.5) * factor)
  }
  const concepts = [...sums]
    .map(([concept, { weight, label }]) => ({
      concept,
      label,
      weight: round(weight),
      hidden: hidden.has(concept),
    }))
    .filter((concept) => concept.weight > 0)
    .sort((a, b) => (a.concept < b.concept ? -1 : a.concept > b.concept ? 1 : 0))
  const { terms, length } = termCounts(text.filter(Boolean).join('\n'))
  return { concepts, terms, length }
}

/** The most characters of an expert's text sent to an embeddings API (about 2,000 tokens). */
export const EMBEDDING_TEXT_CHARS = 8000

/**
 * The text an embeddings API is given for an expert (SOURCES §7.5): its topics, tagline, biography (the
 * text of its HTML) and the titles of its claimed works, one a line, cut at EMBEDDING_TEXT_CHARS.
 * Abstracts are left out: they would crowd out the rest within a model's input limit.
 */
export function embeddingTextOf(items: readonly ProfileItem[], works: readonly ClaimedWork[]): string {
  const parts: string[] = []
  for (const section of ['topic', 'tagline', 'biography'] as const)
    for (const item of items) {
      if (item.section !== section) continue
      if (section === 'topic') parts.push(stringField(item, 'name'))
      else if (section === 'tagline') parts.push(stringField(item, 'tagline'))
      else parts.push(plainText(stringField(item, 'biography')))
    }
  for (const work of works) parts.push(workText(work.fields).title)
  return parts
    .map((part) => part.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n')
    .slice(0, EMBEDDING_TEXT_CHARS)
}

/** What a claimed work teaches about words and concepts: its distinct terms and concept keys, each sorted. */
export interface WorkContribution {
  terms: string[]
  concepts: string[]
}

const sortedUnique = (values: Iterable<string>) =>
  [...new Set(values)].filter(Boolean).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * The terms of a work's title and abstract and the keys of its concepts; nothing when it has no concept
 * (a work without concepts says nothing about which words go with which concept).
 */
export function workContribution(fieldsJson: string): WorkContribution {
  const { title, abstract, concepts } = workText(fieldsJson)
  const keys = sortedUnique(concepts.map((concept) => conceptKey(concept.label)))
  if (keys.length === 0) return { terms: [], concepts: [] }
  return { terms: sortedUnique(analyze(`${title}\n${abstract}`).map((token) => token.term)), concepts: keys }
}
