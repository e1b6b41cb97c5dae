import { randomUUID } from 'node:crypto'
import { type AuditRecord, recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { ensureTags } from '../content/repository.js'
import { inChunks } from '../db/chunks.js'
import type { Queryable } from '../db/database.js'
import { parseItemData } from '../db/item-data.js'
import type { ExpertRow, ProfileType } from '../db/schema.js'
import { isSectionName, type SectionName } from '../db/sections.js'
import { writeTransaction } from '../db/transactions.js'
import { type Audience, profileVisibleTo } from '../derived/audience.js'
import { profileChanged } from '../derived/changes.js'
import { ApiError, notFound, validationError } from '../errors.js'
import { profileNotFound } from '../experts/profile-type.js'
import { findExpert, findExpertForWrite } from '../experts/repository.js'
import type { WriteCondition } from '../experts/service.js'
import { recordVersion } from '../history/versions.js'
import {
  deleteProfileItems,
  insertProfileItem,
  insertProfileItems,
  listSectionItems,
  listSectionItemsOfExperts,
  type ProfileItemRow,
  updateProfileItem,
} from './repository.js'
import {
  AVATAR_SIZES,
  MAX_SECTION_ELEMENTS,
  markupFields,
  NAME_SECTIONS,
  SECTION_FIELDS,
  SINGLE_SECTIONS,
  type StoredSection,
  sectionFieldNames,
} from './section-fields.js'

type Element = Record<string, unknown>
type Tags = Map<string, { id: number; name: string }>

/** A stored item as served: `id`, then every field of the section (unset ones null). */
export function elementOf(section: StoredSection, item: Pick<ProfileItemRow, 'id' | 'data'>): Element {
  const data = parseItemData(item.data)
  const element: Element = { id: item.id }
  if (section === 'tag') element.content_tag_id = data.content_tag_id
  for (const field of sectionFieldNames(section)) element[field] = data[field] ?? null
  return element
}

/**
 * The stored JSON of one element, the same for the API and the import: every field of the section in
 * order (unset ones null), currency upper-case, markup sanitized; a tag as its organization tag.
 */
function elementData(section: StoredSection, element: Element, tags: Tags): string {
  if (section === 'tag') {
    const tag = tags.get(String(element.tag).toLowerCase())
    return JSON.stringify({ content_tag_id: tag?.id, tag: tag?.name })
  }
  const markup = markupFields(section)
  const data: Element = {}
  for (const field of sectionFieldNames(section)) {
    let value = element[field] ?? null
    if (typeof value === 'string' && field === 'currency') value = value.toUpperCase()
    const sanitize = markup.get(field)
    if (typeof value === 'string' && sanitize) value = sanitize(value)
    data[field] = value
  }
  return JSON.stringify(data)
}

async function tagsFor(trx: Queryable, orgId: number, section: StoredSection, elements: Element[]) {
  return section === 'tag'
    ? ensureTags(
        trx,
        orgId,
        elements.map((element) => String(element.tag)),
      )
    : new Map()
}

/**
 * The version of a section after a write: the section as its GET serves it (`{"education": [...]}`),
 * from the items the write holds (`items`, in served order), so keeping it costs one insert and no read.
 * The writes here call it; so does a writer that changes a section through `putKeyedElement`.
 */
export function recordSectionVersion(
  trx: Queryable,
  { orgId, trail, now }: Pick<WriteContext, 'orgId' | 'trail' | 'now'>,
  expertId: number,
  section: StoredSection,
  items: readonly Pick<ProfileItemRow, 'id' | 'data'>[],
) {
  const snapshot = { [section]: items.map((item) => elementOf(section, item)) }
  return recordVersion(
    trx,
    orgId,
    trail,
    { record: { kind: 'profile', id: expertId }, part: section, snapshot },
    now,
  )
}

/** A section element in the audit log: `<username>/<section>/<id>`. */
function sectionRecord(profile: ProfileRef, section: StoredSection, id: number): AuditRecord {
  return { kind: 'section', id: `${profile.username}/${section}/${id}` }
}

/** Whose section: an expert's or a staff member's, by username; a write's `If-Match` check with it. */
export interface ProfileRef {
  type: ProfileType
  username: string
  condition?: WriteCondition | undefined
}

async function expertOf(
  db: Queryable,
  orgId: number,
  { type, username }: ProfileRef,
  audience: Audience,
): Promise<ExpertRow> {
  const expert = await findExpert(db, orgId, username, type)
  if (!expert || !profileVisibleTo(audience, expert)) throw profileNotFound(type, username)
  return expert
}

/**
 * The profile whose section a write changes, locked until the write commits (db/transactions.ts), once
 * the write's condition (its `If-Match`) holds.
 */
async function expertForWrite(
  trx: Queryable,
  orgId: number,
  { type, username, condition }: ProfileRef,
): Promise<ExpertRow> {
  const expert = await findExpertForWrite(trx, orgId, username, type)
  if (!expert) throw profileNotFound(type, username)
  await condition?.(trx)
  return expert
}

function elementNotFound(section: string, id: number): ApiError {
  return notFound(`Element ${id} of section ${section}`)
}

/** The elements of one section of an expert `audience` may see, as served in the profile. */
export async function listElements(
  db: Queryable,
  orgId: number,
  profile: ProfileRef,
  section: StoredSection,
  audience: Audience,
): Promise<Element[]> {
  const expert = await expertOf(db, orgId, profile, audience)
  const items = await listSectionItems(db, orgId, expert.id, [section])
  return items.map((item) => elementOf(section, item))
}

export async function getElement(
  db: Queryable,
  orgId: number,
  profile: ProfileRef,
  section: StoredSection,
  id: number,
  audience: Audience,
): Promise<Element> {
  const element = (await listElements(db, orgId, profile, section, audience)).find((e) => e.id === id)
  if (!element) throw elementNotFound(section, id)
  return element
}

/** Only the fields the section knows, `null` for those sent empty. */
function fieldsGiven(section: StoredSection, input: Element): Element {
  const given: Element = {}
  for (const field of sectionFieldNames(section)) {
    if (input[field] !== undefined) given[field] = input[field] === '' ? null : input[field]
  }
  return given
}

function missingRequired(section: StoredSection, element: Element): void {
  const missing = Object.entries(SECTION_FIELDS[section])
    .filter(([name, field]) => field.required && (element[name] === null || element[name] === undefined))
    .map(([name]) => ({ field: name, message: 'is required' }))
  if (missing.length > 0) throw validationError(missing)
}

const apiKey = () => `api:${randomUUID()}`

/**
 * POST on a section: appends to a list (409 beyond 500), adds a name to a set (the existing element's
 * id when the name is there, case-insensitively), or sets the single element (the given fields
 * replace the stored ones). Returns the element's id and whether anything changed.
 */
export async function addElement(
  write: WriteContext,
  { profile, section, input }: { profile: ProfileRef; section: StoredSection; input: Element },
): Promise<{ id: number; updated: boolean }> {
  const { db, orgId, now, trail } = write
  const audit = (trx: Queryable, id: number) =>
    recordAudit(trx, orgId, trail, sectionRecord(profile, section, id), now)
  return writeTransaction(db, async (trx) => {
    const expert = await expertForWrite(trx, orgId, profile)
    const items = await listSectionItems(trx, orgId, expert.id, [section])
    const given = fieldsGiven(section, input)
    if (SINGLE_SECTIONS.has(section)) {
      const [current] = items
      const merged = { ...(current ? elementOf(section, current) : {}), ...given }
      missingRequired(section, merged)
      const data = elementData(section, merged, new Map())
      if (current && current.data === data) return { id: current.id, updated: false }
      let id: number
      if (current) {
        id = current.id
        await updateProfileItem(trx, orgId, id, { data })
      } else {
        id = await insertProfileItem(trx, orgId, expert.id, {
          section,
          position: 0,
          external_key: '#0',
          data,
        })
      }
      await profileChanged(trx, orgId, expert.id, now)
      await audit(trx, id)
      await recordSectionVersion(trx, write, expert.id, section, [{ id, data }])
      return { id, updated: true }
    }
    if (NAME_SECTIONS.has(section)) {
      const name = String(section === 'tag' ? given.tag : given.name)
      const existing = items.find((item) => {
        const element = elementOf(section, item)
        return String(section === 'tag' ? element.tag : element.name).toLowerCase() === name.toLowerCase()
      })
      if (existing) return { id: existing.id, updated: false }
    }
    if (items.length >= MAX_SECTION_ELEMENTS)
      throw new ApiError(
        'conflict',
        `Section ${section} already holds ${MAX_SECTION_ELEMENTS} elements, the most it may hold: delete one first.`,
        { details: [{ field: section, message: `holds at most ${MAX_SECTION_ELEMENTS} elements` }] },
      )
    const tags = await tagsFor(trx, orgId, section, [given])
    const position = items.reduce((max, item) => Math.max(max, item.position + 1), 0)
    const data = elementData(section, given, tags)
    const id = await insertProfileItem(trx, orgId, expert.id, {
      section,
      position,
      external_key: apiKey(),
      data,
    })
    await profileChanged(trx, orgId, expert.id, now)
    await audit(trx, id)
    await recordSectionVersion(trx, write, expert.id, section, [...items, { id, data }])
    return { id, updated: true }
  })
}

/** PUT on a list element: the given fields replace the stored ones. */
export async function updateElement(
  write: WriteContext,
  {
    profile,
    section,
    id,
    input,
  }: { profile: ProfileRef; section: StoredSection; id: number; input: Element },
): Promise<boolean> {
  const { db, orgId, now, trail } = write
  return writeTransaction(db, async (trx) => {
    const expert = await expertForWrite(trx, orgId, profile)
    const items = await listSectionItems(trx, orgId, expert.id, [section])
    const item = items.find((i) => i.id === id)
    if (!item) throw elementNotFound(section, id)
    const merged = { ...elementOf(section, item), ...fieldsGiven(section, input) }
    missingRequired(section, merged)
    const data = elementData(section, merged, new Map())
    if (data === item.data) return false
    await updateProfileItem(trx, orgId, id, { data })
    await profileChanged(trx, orgId, expert.id, now)
    await recordAudit(trx, orgId, trail, sectionRecord(profile, section, id), now)
    const after = items.map((stored) => (stored.id === id ? { ...stored, data } : stored))
    await recordSectionVersion(trx, write, expert.id, section, after)
    return true
  })
}

/** DELETE of one element (`id`), or of the single element of a single-element section. */
export async function deleteElement(
  write: WriteContext,
  { profile, section, id }: { profile: ProfileRef; section: StoredSection; id?: number | undefined },
): Promise<number> {
  const { db, orgId, now, trail } = write
  return writeTransaction(db, async (trx) => {
    const expert = await expertForWrite(trx, orgId, profile)
    const items = await listSectionItems(trx, orgId, expert.id, [section])
    const item = id === undefined ? items[0] : items.find((i) => i.id === id)
    if (!item)
      throw id === undefined
        ? notFound(
            `The ${section} of ${profile.type === 'staff' ? 'staff member' : 'expert'} ${profile.username}`,
          )
        : elementNotFound(section, id)
    await deleteProfileItems(trx, orgId, [item.id])
    await profileChanged(trx, orgId, expert.id, now)
    await recordAudit(trx, orgId, trail, sectionRecord(profile, section, item.id), now)
    const after = items.filter((stored) => stored.id !== item.id)
    await recordSectionVersion(trx, write, expert.id, section, after)
    return item.id
  })
}

/**
 * PUT on a list section's order: `ids`, the section's element ids in their new order, must name each
 * of its elements once (409 naming the ids that differ, as when another writer added or removed one
 * meanwhile). Returns the order now stored and whether it changed.
 */
export async function reorderElements(
  write: WriteContext,
  { profile, section, ids }: { profile: ProfileRef; section: StoredSection; ids: readonly number[] },
): Promise<{ ids: number[]; updated: boolean }> {
  const { db, orgId, now, trail } = write
  return writeTransaction(db, async (trx) => {
    const expert = await expertForWrite(trx, orgId, profile)
    const items = await listSectionItems(trx, orgId, expert.id, [section])
    assertPermutation(section, items, ids)
    if (items.every((item, index) => item.id === ids[index])) return { ids: [...ids], updated: false }
    // Positions are renumbered 0, 1, 2...: only the rows whose number changes are written.
    const positions = new Map(items.map((item) => [item.id, item.position]))
    for (const [position, id] of ids.entries())
      if (positions.get(id) !== position) await updateProfileItem(trx, orgId, id, { position })
    await profileChanged(trx, orgId, expert.id, now)
    await recordAudit(trx, orgId, trail, { kind: 'section', id: `${profile.username}/${section}` }, now)
    const byId = new Map(items.map((item) => [item.id, item]))
    const after = ids.flatMap((id) => byId.get(id) ?? [])
    await recordSectionVersion(trx, write, expert.id, section, after)
    return { ids: [...ids], updated: true }
  })
}

/**
 * Makes one section of a profile equal `elements`, the section as a version kept it (a restore,
 * src/editorial/restore.ts): elements still there (by id) are rewritten where they differ, those deleted
 * since come back under the ids they had (ids are never handed out twice), the others go, and the order
 * is the version's. Returns whether anything changed; a change is audited and kept as a new version.
 */
export async function restoreSection(
  write: WriteContext,
  {
    profile,
    section,
    elements,
  }: { profile: ProfileRef; section: StoredSection; elements: readonly Element[] },
): Promise<boolean> {
  const { db, orgId, now, trail } = write
  return writeTransaction(db, async (trx) => {
    const expert = await expertForWrite(trx, orgId, profile)
    const items = await listSectionItems(trx, orgId, expert.id, [section])
    const tags = await tagsFor(trx, orgId, section, [...elements])
    const desired = elements.flatMap((element, position) =>
      typeof element.id === 'number'
        ? [{ id: element.id, position, data: elementData(section, element, tags) }]
        : [],
    )
    const stored = new Map(items.map((item) => [item.id, item]))
    const wanted = new Set(desired.map((item) => item.id))
    const gone = items.filter((item) => !wanted.has(item.id)).map((item) => item.id)
    let changed = gone.length > 0
    await deleteProfileItems(trx, orgId, gone)
    for (const item of desired) {
      const row = stored.get(item.id)
      if (!row) {
        const key = SINGLE_SECTIONS.has(section) ? '#0' : apiKey()
        await insertProfileItem(trx, orgId, expert.id, { ...item, section, external_key: key })
      } else if (row.position !== item.position || row.data !== item.data)
        await updateProfileItem(trx, orgId, item.id, { position: item.position, data: item.data })
      else continue
      changed = true
    }
    if (!changed) return false
    await profileChanged(trx, orgId, expert.id, now)
    await recordAudit(trx, orgId, trail, { kind: 'section', id: `${profile.username}/${section}` }, now)
    await recordSectionVersion(trx, write, expert.id, section, desired)
    return true
  })
}

/** 409 unless `ids` names every stored element of the section exactly once (the body has no repeats). */
function assertPermutation(section: StoredSection, items: readonly ProfileItemRow[], ids: readonly number[]) {
  const stored = new Set(items.map((item) => item.id))
  const given = new Set(ids)
  const unknown = ids.filter((id) => !stored.has(id))
  const missing = [...stored].filter((id) => !given.has(id))
  if (unknown.length === 0 && missing.length === 0) return
  const details = [
    ...(unknown.length > 0
      ? [{ field: 'ids', message: `names ${unknown.join(', ')}, not in the section` }]
      : []),
    ...(missing.length > 0 ? [{ field: 'ids', message: `lacks ${missing.join(', ')} of the section` }] : []),
  ]
  throw new ApiError(
    'conflict',
    `The order must name each element of section ${section} once, as it is now: ${details.map((d) => `ids ${d.message}`).join('; ')}. Read the section again and send its ids in the new order.`,
    { details },
  )
}

/** Sections as an import gives them: each a list of elements with optional keys; the avatar an object. */
export type SectionsInput = Record<string, Element[] | Element>

/**
 * Makes the given sections of an expert equal `sections` (the import): elements with the same key
 * (or, without a key, the same position) are updated in place so ids stay stable across re-imports;
 * new ones are inserted, others deleted. Runs in the caller's transaction; returns whether anything
 * changed (the caller reports the profile change once for the whole expert).
 */
export async function replaceSections(
  trx: Queryable,
  orgId: number,
  expertId: number,
  sections: SectionsInput,
): Promise<boolean> {
  return (await replaceSectionsOfExperts(trx, orgId, [{ expertId, sections }])).has(expertId)
}

/**
 * `replaceSections` for many experts at once, with a constant number of statements per call (reads,
 * inserts and deletes are batched; only changed elements are updated one by one). Returns the experts
 * whose sections changed, each with the names of the sections that did.
 */
export async function replaceSectionsOfExperts(
  trx: Queryable,
  orgId: number,
  entries: readonly { expertId: number; sections: SectionsInput }[],
): Promise<Map<number, Set<SectionName>>> {
  const changed = new Map<number, Set<SectionName>>()
  const mark = (expertId: number, section: SectionName) => {
    const sections = changed.get(expertId)
    if (sections) sections.add(section)
    else changed.set(expertId, new Set([section]))
  }
  // The import's schema lets only section names through.
  const named = entries
    .map(({ expertId, sections }) => ({
      expertId,
      sections,
      names: Object.keys(sections).filter(isSectionName),
    }))
    .filter((entry) => entry.names.length > 0)
  if (named.length === 0) return changed
  const allNames = [...new Set(named.flatMap((entry) => entry.names))]
  const stored = await listSectionItemsOfExperts(
    trx,
    orgId,
    named.map((entry) => entry.expertId),
    allNames,
  )
  const storedOf = new Map<number, ProfileItemRow[]>()
  for (const row of stored) {
    const rows = storedOf.get(row.expert_id)
    if (rows) rows.push(row)
    else storedOf.set(row.expert_id, [row])
  }
  const tags = await tagsFor(
    trx,
    orgId,
    'tag',
    named.flatMap((entry) => [entry.sections.tag ?? []].flat()),
  )
  const inserts: (Omit<ProfileItemRow, 'id'> & { expert_id: number })[] = []
  const deletes: number[] = []
  for (const { expertId, sections, names } of named) {
    const rows = storedOf.get(expertId) ?? []
    for (const section of names) {
      const value = sections[section] ?? []
      const desired = section === 'avatar' ? avatarItems(value) : listItems(section, value, tags)
      const byKey = new Map(
        rows.filter((row) => row.section === section).map((row) => [row.external_key, row]),
      )
      for (const item of desired) {
        const row = byKey.get(item.external_key)
        byKey.delete(item.external_key)
        if (!row) inserts.push({ expert_id: expertId, section, ...item })
        else if (row.position !== item.position || row.data !== item.data)
          await updateProfileItem(trx, orgId, row.id, { position: item.position, data: item.data })
        else continue
        mark(expertId, section)
      }
      if (byKey.size > 0) {
        for (const row of byKey.values()) deletes.push(row.id)
        mark(expertId, section)
      }
    }
  }
  // Deleted first: a key that moves between elements must not meet its old row.
  await inChunks(deletes, async (chunk) => {
    await deleteProfileItems(trx, orgId, chunk)
    return []
  })
  await insertProfileItems(trx, orgId, inserts)
  return changed
}

/**
 * Sets the element of a list section that an importer keeps under `key` (the works importer keeps each
 * claimed work as `work:<id>` in `article`), or removes it when `element` is null: updated in place when
 * it is there, appended otherwise, so a re-import never duplicates it. Runs in the caller's transaction,
 * which reports the profile change (`profileChanged`), its audit entry and its version
 * (`recordSectionVersion` with the `items` answered) when this returns a change.
 */
export async function putKeyedElement(
  trx: Queryable,
  orgId: number,
  expertId: number,
  { section, key, element }: { section: StoredSection; key: string; element: Element | null },
): Promise<{
  id: number
  change: 'create' | 'update' | 'delete'
  /** The section's items after the change, in served order (for its version). */
  items: Pick<ProfileItemRow, 'id' | 'data'>[]
} | null> {
  const items = await listSectionItems(trx, orgId, expertId, [section])
  const current = items.find((item) => item.external_key === key)
  if (element === null) {
    if (!current) return null
    await deleteProfileItems(trx, orgId, [current.id])
    return { id: current.id, change: 'delete', items: items.filter((item) => item.id !== current.id) }
  }
  const data = elementData(section, fieldsGiven(section, element), new Map())
  if (current) {
    if (current.data === data) return null
    await updateProfileItem(trx, orgId, current.id, { data })
    const after = items.map((item) => (item.id === current.id ? { ...item, data } : item))
    return { id: current.id, change: 'update', items: after }
  }
  if (items.length >= MAX_SECTION_ELEMENTS)
    throw new ApiError('conflict', `Section ${section} already holds ${MAX_SECTION_ELEMENTS} elements.`, {
      details: [{ field: section, message: `holds at most ${MAX_SECTION_ELEMENTS} elements` }],
    })
  const position = items.reduce((max, item) => Math.max(max, item.position + 1), 0)
  const id = await insertProfileItem(trx, orgId, expertId, { section, position, external_key: key, data })
  return { id, change: 'create', items: [...items, { id, data }] }
}

type DesiredItem = Omit<ProfileItemRow, 'id' | 'section'>

function avatarItems(value: Element[] | Element): DesiredItem[] {
  const avatar = Array.isArray(value) ? {} : value
  const renditions = Object.fromEntries(AVATAR_SIZES.filter((s) => avatar[s]).map((s) => [s, avatar[s]]))
  return Object.keys(renditions).length > 0
    ? [{ external_key: '#0', position: 0, data: JSON.stringify(renditions) }]
    : []
}

function listItems(section: StoredSection, value: Element[] | Element, tags: Tags): DesiredItem[] {
  return (Array.isArray(value) ? value : [value]).map((element, position) => ({
    external_key: typeof element.key === 'string' ? element.key : `#${position}`,
    position,
    data: elementData(section, element, tags),
  }))
}
