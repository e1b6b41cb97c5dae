import type { Queryable } from '../db/database.js'
import type { WorkRow } from '../db/works-schema.js'
import { workChanged } from '../derived/changes.js'
import { stringsOf } from '../validation/guards.js'
import { fieldsOf, mergeFields, parseWorkFields, serializeWorkFields } from './fields.js'
import { familyName, normalizeDoi, titleFingerprint } from './normalize.js'
import type { SourceWork } from './sources/source.js'

/**
 * Merging one source's work into the organization's works (SOURCES.md §5): matched by DOI, then PMID,
 * then OpenAlex id, then ORCID put-code; a title + year (±1) + first author match only records a
 * possible duplicate. Merging the same work again changes nothing, so a refresh may run twice, or run
 * again after a crash, without duplicating anything.
 */

/** The identifiers a work is matched by; also what a rejection is kept against. */
export interface WorkKeys {
  doi?: string
  pmid?: string
  openalex?: string
  putcode?: string
}

export function keysOf(work: Pick<SourceWork, 'doi' | 'pmid' | 'openalexId' | 'orcidPutCode'>): WorkKeys {
  const keys: WorkKeys = {}
  const doi = normalizeDoi(work.doi)
  if (doi) keys.doi = doi
  const pmid = work.pmid?.trim()
  if (pmid && /^[0-9]{1,12}$/.test(pmid)) keys.pmid = pmid.replace(/^0+/, '')
  const openalex = work.openalexId
    ?.trim()
    .replace(/^https:\/\/openalex\.org\//i, '')
    .toUpperCase()
  if (openalex && /^W[0-9]{1,15}$/.test(openalex)) keys.openalex = openalex
  const putcode = work.orcidPutCode?.trim()
  if (putcode && /^[0-9]{1,15}$/.test(putcode)) keys.putcode = putcode
  return keys
}

export const hasKeys = (keys: WorkKeys): boolean =>
  Boolean(keys.doi || keys.pmid || keys.openalex || keys.putcode)

export function putcodesOf(work: Pick<WorkRow, 'orcid_putcodes'>): string[] {
  try {
    return stringsOf(JSON.parse(work.orcid_putcodes))
  } catch {
    return []
  }
}

/** The stored identifiers of a work, as `(kind, value)` pairs. */
export function storedKeys(
  work: WorkRow,
): { kind: 'doi' | 'pmid' | 'openalex' | 'putcode'; value: string }[] {
  return [
    ...(work.doi_norm ? [{ kind: 'doi' as const, value: work.doi_norm }] : []),
    ...(work.pmid ? [{ kind: 'pmid' as const, value: work.pmid }] : []),
    ...(work.openalex_id ? [{ kind: 'openalex' as const, value: work.openalex_id }] : []),
    ...putcodesOf(work).map((value) => ({ kind: 'putcode' as const, value })),
  ]
}

async function findByKeys(db: Queryable, orgId: number, keys: WorkKeys): Promise<WorkRow | undefined> {
  const works = db.selectFrom('works').selectAll().where('org_id', '=', orgId)
  if (keys.doi) {
    const found = await works.where('doi_norm', '=', keys.doi).executeTakeFirst()
    if (found) return found
  }
  // A weaker key never joins works that a stronger one tells apart (two DOIs are two works).
  const compatible = (work: WorkRow | undefined) =>
    work &&
    !(keys.doi && work.doi_norm && work.doi_norm !== keys.doi) &&
    !(keys.pmid && work.pmid && work.pmid !== keys.pmid) &&
    !(keys.openalex && work.openalex_id && work.openalex_id !== keys.openalex)
      ? work
      : undefined
  if (keys.pmid) {
    const found = compatible(await works.where('pmid', '=', keys.pmid).executeTakeFirst())
    if (found) return found
  }
  if (keys.openalex) {
    const found = compatible(await works.where('openalex_id', '=', keys.openalex).executeTakeFirst())
    if (found) return found
  }
  if (keys.putcode) {
    const candidates = await works.where('orcid_putcodes', 'like', `%"${keys.putcode}"%`).execute()
    return compatible(candidates.find((work) => putcodesOf(work).includes(keys.putcode ?? '')))
  }
  return undefined
}

/** Whether another work of the organization already holds `column = value` (identifiers are unique). */
async function heldElsewhere(
  db: Queryable,
  orgId: number,
  workId: number,
  column: 'doi_norm' | 'pmid' | 'openalex_id',
  value: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('works')
    .select('id')
    .where('org_id', '=', orgId)
    .where(column, '=', value)
    .where('id', '!=', workId)
    .executeTakeFirst()
  return row !== undefined
}

export interface Merged {
  work: WorkRow
  change: 'created' | 'updated' | null
}

/** Adds `incoming` to the organization's works: a new work, or the matching one with its fields merged. */
export async function mergeWork(
  trx: Queryable,
  orgId: number,
  incoming: SourceWork,
  now: number,
): Promise<Merged> {
  const keys = keysOf(incoming)
  const stored = await findByKeys(trx, orgId, keys)
  const fields = mergeFields(stored ? parseWorkFields(stored.fields) : {}, fieldsOf(incoming))
  const title = fields.title?.value
  const derived = {
    fields: serializeWorkFields(fields),
    title_fingerprint: titleFingerprint(title) ?? null,
    year: fields.year?.value ?? null,
    first_author: familyName(fields.authors?.value[0]) ?? null,
    needs_lookup: title ? 0 : 1,
  }
  if (!stored) {
    // A key another work already holds (one its DOI tells apart) stays with that work.
    const free = async (column: 'pmid' | 'openalex_id', value: string | undefined) =>
      value && !(await heldElsewhere(trx, orgId, 0, column, value)) ? value : null
    const work = await trx
      .insertInto('works')
      .values({
        org_id: orgId,
        doi_norm: keys.doi ?? null,
        pmid: await free('pmid', keys.pmid),
        openalex_id: await free('openalex_id', keys.openalex),
        orcid_putcodes: JSON.stringify(keys.putcode ? [keys.putcode] : []),
        ...derived,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    await notePossibleDuplicates(trx, orgId, work, now)
    return { work, change: 'created' }
  }
  const changes: Partial<WorkRow> = {}
  for (const [column, value] of [
    ['doi_norm', keys.doi],
    ['pmid', keys.pmid],
    ['openalex_id', keys.openalex],
  ] as const) {
    if (value && stored[column] === null && !(await heldElsewhere(trx, orgId, stored.id, column, value)))
      changes[column] = value
  }
  const putcodes = putcodesOf(stored)
  if (keys.putcode && !putcodes.includes(keys.putcode))
    changes.orcid_putcodes = JSON.stringify([...putcodes, keys.putcode].sort())
  if (stored.fields !== derived.fields) changes.fields = derived.fields
  if (stored.title_fingerprint !== derived.title_fingerprint)
    changes.title_fingerprint = derived.title_fingerprint
  if (stored.year !== derived.year) changes.year = derived.year
  if (stored.first_author !== derived.first_author) changes.first_author = derived.first_author
  if (stored.needs_lookup !== derived.needs_lookup) changes.needs_lookup = derived.needs_lookup
  if (Object.keys(changes).length === 0) return { work: stored, change: null }
  const work = await trx
    .updateTable('works')
    .set({ ...changes, updated_at: now })
    .where('id', '=', stored.id)
    .returningAll()
    .executeTakeFirstOrThrow()
  if (changes.title_fingerprint !== undefined) await notePossibleDuplicates(trx, orgId, work, now)
  if (changes.fields !== undefined || changes.year !== undefined) await workChanged(trx, orgId, work.id, now)
  return { work, change: 'updated' }
}

/** Records works that look like `work` (same title fingerprint, year ±1, same first author) for review. */
async function notePossibleDuplicates(
  trx: Queryable,
  orgId: number,
  work: WorkRow,
  now: number,
): Promise<void> {
  if (!work.title_fingerprint || work.year === null || !work.first_author) return
  const alike = await trx
    .selectFrom('works')
    .select('id')
    .where('org_id', '=', orgId)
    .where('title_fingerprint', '=', work.title_fingerprint)
    .where('first_author', '=', work.first_author)
    .where('year', '>=', work.year - 1)
    .where('year', '<=', work.year + 1)
    .where('id', '!=', work.id)
    .execute()
  for (const { id } of alike) {
    const [first, second] = id < work.id ? [id, work.id] : [work.id, id]
    await trx
      .insertInto('work_duplicates')
      .values({ org_id: orgId, work_id: first, other_work_id: second, created_at: now })
      .onConflict((conflict) => conflict.columns(['work_id', 'other_work_id']).doNothing())
      .execute()
  }
}
