import { createRequire } from 'node:module'
import { isDeepStrictEqual } from 'node:util'
import type * as JsDiff from 'diff'
import { plainText } from '../validation/html-text.js'

/** jsdiff, loaded with the first version read that has rich text to compare, not by every process. */
let jsdiff: typeof JsDiff | undefined
const loadedJsDiff = (): typeof JsDiff => {
  const loaded: typeof JsDiff = jsdiff ?? createRequire(import.meta.url)('diff')
  jsdiff = loaded
  return loaded
}

/**
 * The field-level difference between two snapshots of a record's part (src/history/versions.ts), as the
 * versions API serves it. Objects are compared field by field (nested ones, as a post's `seo`, with dotted
 * names); a list of elements with ids (a section's) element by element, by id (`education[12].degree`, an
 * element added or removed as a whole, a new order as `education.order`); any other value as a whole.
 * Rich text fields (HTML) also get a word diff of their readable text, without markup.
 */

/** One run of words: kept, added or removed. */
export interface WordChange {
  op: 'same' | 'added' | 'removed'
  text: string
}

export interface FieldChange {
  field: string
  before: unknown
  after: unknown
  /** Rich text fields only: the readable text's words, kept, removed and added, in order. */
  words?: WordChange[]
}

/** Whether a field (by its own name, the last part of its path) holds HTML. */
export type RichField = (name: string) => boolean

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const hasId = (value: unknown): value is Json & { id: number } =>
  isObject(value) && typeof value.id === 'number'

/** A list of elements each with a numeric id: a profile section as served. */
const isElementList = (value: unknown): value is (Json & { id: number })[] =>
  Array.isArray(value) && value.every(hasId)

/** The word diff of two HTML or text values, read as text. */
export function wordDiff(before: unknown, after: unknown): WordChange[] {
  const text = (value: unknown) => (typeof value === 'string' ? plainText(value) : '')
  return loadedJsDiff()
    .diffWords(text(before), text(after))
    .map((change) => ({
      op: change.added ? 'added' : change.removed ? 'removed' : 'same',
      text: change.value,
    }))
}

function change(field: string, name: string, before: unknown, after: unknown, rich: RichField): FieldChange {
  const entry: FieldChange = { field, before, after }
  if (rich(name) && (typeof before === 'string' || typeof after === 'string'))
    entry.words = wordDiff(before, after)
  return entry
}

function objectChanges(prefix: string, before: Json, after: Json, rich: RichField, out: FieldChange[]) {
  const names = [...new Set([...Object.keys(after), ...Object.keys(before)])]
  for (const name of names) {
    const field = prefix === '' ? name : `${prefix}.${name}`
    const was = before[name] ?? null
    const now = after[name] ?? null
    if (isDeepStrictEqual(was, now)) continue
    if (isObject(was) && isObject(now)) objectChanges(field, was, now, rich, out)
    else if (isElementList(was) && isElementList(now)) elementChanges(field, was, now, rich, out)
    else out.push(change(field, name, was, now, rich))
  }
}

function elementChanges(
  prefix: string,
  before: (Json & { id: number })[],
  after: (Json & { id: number })[],
  rich: RichField,
  out: FieldChange[],
) {
  const old = new Map(before.map((element) => [element.id, element]))
  const kept = new Set(after.map((element) => element.id))
  for (const element of after) {
    const was = old.get(element.id)
    if (!was) out.push({ field: `${prefix}[${element.id}]`, before: null, after: element })
    else objectChanges(`${prefix}[${element.id}]`, was, element, rich, out)
  }
  for (const element of before)
    if (!kept.has(element.id)) out.push({ field: `${prefix}[${element.id}]`, before: element, after: null })
  const order = (list: { id: number }[], others: Set<number>) =>
    list.map((element) => element.id).filter((id) => others.has(id))
  const beforeOrder = order(before, kept)
  const afterOrder = order(after, new Set(old.keys()))
  if (!isDeepStrictEqual(beforeOrder, afterOrder))
    out.push({ field: `${prefix}.order`, before: beforeOrder, after: afterOrder })
}

/** What changed from `before` (null: the record's first version) to `after`, two snapshots of one part. */
export function fieldChanges(before: unknown, after: unknown, rich: RichField): FieldChange[] {
  const out: FieldChange[] = []
  if (isObject(after) && (before === null || isObject(before)))
    objectChanges('', before ?? {}, after, rich, out)
  else if (!isDeepStrictEqual(before, after)) out.push(change('', '', before, after, rich))
  return out
}
