import { type Actor, actorId } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { CONTENT_API, type UpdateInput } from '../content/kinds.js'
import { updateItem } from '../content/publishing.js'
import { findContentForWrite } from '../content/repository.js'
import { PostUpdate, QuestionUpdate } from '../content/schemas.js'
import { itemSnapshot } from '../content/snapshot.js'
import type { ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import type { DraftRow } from '../db/editorial-schema.js'
import type { ExpertRow, ProfileType } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { ApiError, notFound } from '../errors.js'
import { accountElement } from '../experts/account-shape.js'
import { profileNotFound } from '../experts/profile-type.js'
import { findExpertForWrite } from '../experts/repository.js'
import { ExpertUpdate, type ExpertUpdateInput } from '../experts/schemas.js'
import { updateExpert } from '../experts/service.js'
import { type FieldChange, fieldChanges, type RichField } from '../history/diff.js'
import { ITEM_PART } from '../history/versions.js'
import { compileValidator, type Validator } from '../http/validation.js'
import { listSectionItems } from '../profiles/repository.js'
import {
  isStoredSection,
  markupFields,
  NAME_SECTIONS,
  SINGLE_SECTIONS,
  type StoredSection,
} from '../profiles/section-fields.js'
import { elementOf, fieldsGiven, missingRequired, restoreSection } from '../profiles/sections.js'
import { toSeconds } from '../time.js'
import { isObject } from '../validation/guards.js'
import { isReviewer, needsReview, REVIEWER_ROLES } from './review.js'

/**
 * Drafts (CONTRACT §21, docs/editorial.md "Drafts and review"): a write that needs review is kept
 * beside the live record instead of changing it. One draft per record, part and author while it waits
 * (open, submitted or returned): further writes add to it. Its author submits it; a reviewer approves
 * it, which publishes it through the ordinary write (audit, version, search, read documents, the
 * publish gate), or returns it with a comment.
 */

type Element = Record<string, unknown>

export const DRAFT_STATES = ['open', 'submitted', 'returned', 'approved', 'published'] as const
export type DraftState = (typeof DRAFT_STATES)[number]
const WAITING: DraftState[] = ['open', 'submitted', 'returned', 'approved']

/** What a draft is of: a profile (by its id, so a rename keeps it) or a post or question. */
type DraftTarget = { kind: 'profile'; expert: ExpertRow; part: string } | { kind: ContentKind; id: number }

/** The answer of a write kept as a draft (202). */
export interface DraftOpened {
  draft: { id: number; state: 'open' }
}

const parsed = (text: string): unknown => JSON.parse(text)

const MAX_SECTION_ELEMENTS = 500

/** A section write, as a draft keeps it: the same changes the section routes make live. */
export type SectionChange =
  | { op: 'add'; input: Element }
  | { op: 'update'; id: number; input: Element }
  | { op: 'delete'; id?: number | undefined }
  | { op: 'order'; ids: readonly number[] }

/** The section after `change`; new elements get negative ids until approval gives them real ones. */
function changedSection(
  section: StoredSection,
  elements: readonly Element[],
  change: SectionChange,
): Element[] {
  const given = 'input' in change ? fieldsGiven(section, change.input) : {}
  const idOf = (element: Element) => (typeof element.id === 'number' ? element.id : 0)
  const elementMissing = (id: number | undefined) =>
    notFound(id === undefined ? `The ${section} of this profile` : `Element ${id} of section ${section}`)
  if (change.op === 'add') {
    if (SINGLE_SECTIONS.has(section)) {
      const [current] = elements
      const merged = { ...(current ?? { id: -1 }), ...given }
      missingRequired(section, merged)
      return [merged]
    }
    if (NAME_SECTIONS.has(section)) {
      const key = section === 'tag' ? 'tag' : 'name'
      const name = String(given[key]).toLowerCase()
      if (elements.some((element) => String(element[key]).toLowerCase() === name)) return [...elements]
    }
    if (elements.length >= MAX_SECTION_ELEMENTS)
      throw new ApiError('conflict', `Section ${section} already holds ${MAX_SECTION_ELEMENTS} elements.`)
    missingRequired(section, given)
    const id = Math.min(0, ...elements.map(idOf)) - 1
    return [...elements, { ...given, id }]
  }
  if (change.op === 'update') {
    const index = elements.findIndex((element) => element.id === change.id)
    const current = elements[index]
    if (!current) throw elementMissing(change.id)
    const merged = { ...current, ...given }
    missingRequired(section, merged)
    return elements.map((element, at) => (at === index ? merged : element))
  }
  if (change.op === 'delete') {
    const target =
      change.id === undefined ? elements[0] : elements.find((element) => element.id === change.id)
    if (!target) throw elementMissing(change.id)
    return elements.filter((element) => element !== target)
  }
  const byId = new Map(elements.map((element) => [idOf(element), element]))
  const ids = new Set(change.ids)
  if (
    change.ids.length !== elements.length ||
    ids.size !== byId.size ||
    change.ids.some((id) => !byId.has(id))
  )
    throw new ApiError(
      'conflict',
      `The order must name each element of section ${section} in the draft once: read the draft again.`,
    )
  return change.ids.flatMap((id): Element[] => {
    const element = byId.get(id)
    return element ? [element] : []
  })
}

async function expertById(db: Queryable, orgId: number, id: number): Promise<ExpertRow | undefined> {
  return db
    .selectFrom('experts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** The live part of the record, in the shape its draft's changes are compared with. */
async function livePart(
  db: Queryable,
  orgId: number,
  row: Pick<DraftRow, 'record_kind' | 'record_id' | 'part'>,
) {
  if (row.record_kind === 'profile') {
    const expert = await expertById(db, orgId, row.record_id)
    if (!expert) return undefined
    if (row.part === 'account') return accountElement(expert)
    if (!isStoredSection(row.part)) return undefined
    const section = row.part
    return (await listSectionItems(db, orgId, expert.id, [section])).map((item) => elementOf(section, item))
  }
  if (row.record_kind === 'spotlight' || row.record_kind === 'question')
    return itemSnapshot(db, orgId, row.record_kind, row.record_id)
  return undefined
}

/** An update body over a snapshot: "" clears a field (null), the rest replaces it. */
function overlay(live: unknown, changes: unknown): Element {
  const base = isObject(live) ? live : {}
  const body = isObject(changes) ? changes : {}
  return {
    ...base,
    ...Object.fromEntries(Object.entries(body).map(([key, value]) => [key, value === '' ? null : value])),
  }
}

const targetOf = (target: DraftTarget) =>
  target.kind === 'profile'
    ? { record_kind: 'profile', record_id: target.expert.id, part: target.part }
    : { record_kind: target.kind, record_id: target.id, part: ITEM_PART }

/**
 * Keeps a write as the author's draft of the record's part: adds it to the draft waiting (which is open
 * again until submitted), or opens one based on the live part. `change` makes the draft's changes from
 * the ones it had (undefined: none yet; then from the live part for a section).
 */
async function keepInDraft(
  write: WriteContext,
  lock: (trx: Queryable) => Promise<DraftTarget>,
  change: (current: unknown, live: unknown) => unknown,
): Promise<DraftOpened> {
  const { db, orgId, now, trail } = write
  const author = trail.actor
  if (author.kind !== 'person') throw new Error('Only people write drafts')
  return writeTransaction(db, async (trx) => {
    const target = targetOf(await lock(trx))
    const live = await livePart(trx, orgId, target)
    const waiting = await trx
      .selectFrom('drafts')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('record_kind', '=', target.record_kind)
      .where('record_id', '=', target.record_id)
      .where('part', '=', target.part)
      .where('author_id', '=', author.id)
      .where('state', 'in', WAITING)
      .orderBy('id', 'desc')
      .executeTakeFirst()
    if (waiting) {
      const changes = JSON.stringify(change(parsed(waiting.changes), live))
      await trx
        .updateTable('drafts')
        .set({ changes, state: 'open', updated_at: now })
        .where('org_id', '=', orgId)
        .where('id', '=', waiting.id)
        .execute()
      return { draft: { id: waiting.id, state: 'open' } }
    }
    const { id } = await trx
      .insertInto('drafts')
      .values({
        org_id: orgId,
        ...target,
        author_id: author.id,
        state: 'open',
        changes: JSON.stringify(change(undefined, live)),
        base: JSON.stringify(live ?? null),
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { draft: { id, state: 'open' } }
  })
}

const lockProfile =
  (orgId: number, type: ProfileType, username: string, part: string) => async (trx: Queryable) => {
    const expert = await findExpertForWrite(trx, orgId, username, type)
    if (!expert) throw profileNotFound(type, username)
    return { kind: 'profile' as const, expert, part }
  }

const lockItem = (orgId: number, kind: ContentKind, id: number) => async (trx: Queryable) => {
  if (!(await findContentForWrite(trx, orgId, kind, id))) throw notFound(`${CONTENT_API[kind].noun} ${id}`)
  return { kind, id }
}

/** The account update of a profile kept as a draft when it needs review; undefined: write it live. */
export async function draftAccount(
  write: WriteContext,
  profile: { type: ProfileType; username: string },
  input: Element,
): Promise<DraftOpened | undefined> {
  if (!(await needsReview(write.db, write.orgId, write.trail.actor, { kind: 'profile', part: 'account' })))
    return undefined
  return keepInDraft(
    write,
    lockProfile(write.orgId, profile.type, profile.username, 'account'),
    (current) => ({
      ...(isObject(current) ? current : {}),
      ...input,
    }),
  )
}

const elementsOf = (value: unknown): Element[] => (Array.isArray(value) ? value.filter(isObject) : [])

/** A section write kept as a draft when it needs review; undefined: write it live. */
export async function draftSection(
  write: WriteContext,
  profile: { type: ProfileType; username: string },
  section: StoredSection,
  change: SectionChange | { op: 'replace'; elements: readonly Element[] },
): Promise<DraftOpened | undefined> {
  if (!(await needsReview(write.db, write.orgId, write.trail.actor, { kind: 'profile', part: section })))
    return undefined
  return keepInDraft(
    write,
    lockProfile(write.orgId, profile.type, profile.username, section),
    (current, live) =>
      change.op === 'replace'
        ? [...change.elements]
        : changedSection(section, elementsOf(current === undefined ? live : current), change),
  )
}

/** A post's or question's update kept as a draft when it needs review; undefined: write it live. */
export async function draftItem(
  write: WriteContext,
  item: { kind: ContentKind; id: number },
  /** The update body, as the route's schema validated it. */
  input: unknown,
): Promise<DraftOpened | undefined> {
  if (!(await needsReview(write.db, write.orgId, write.trail.actor, { kind: 'item' }))) return undefined
  return keepInDraft(write, lockItem(write.orgId, item.kind, item.id), (current) => ({
    ...(isObject(current) ? current : {}),
    ...(isObject(input) ? input : {}),
  }))
}

/** A draft as the API serves it. */
export interface DraftSummary {
  id: number
  /** `title`: the profile's name, the post's title or the question, as the record reads now. */
  record: { kind: string; id: number; username: string | null; title: string | null }
  part: string
  state: string
  /** `name`: today's (null: the person was deleted); `delegate`: see `wroteAsDelegate`. */
  author: { id: number; name: string | null; delegate: boolean }
  /** Who approved or returned it. */
  reviewer: { kind: string; id: string } | null
  comment: string | null
  /** When an approved draft is published, unix seconds; null: not scheduled. */
  publish_at: number | null
  created_at: number
  updated_at: number
}

/** What the record is called today: a profile's name, a post's title, a question. */
async function recordTitle(
  db: Queryable,
  orgId: number,
  row: Pick<DraftRow, 'record_kind' | 'record_id'>,
  expert: ExpertRow | undefined,
): Promise<string | null> {
  if (expert) return [expert.firstname, expert.lastname].filter(Boolean).join(' ')
  if (row.record_kind === 'spotlight') {
    const post = await db
      .selectFrom('spotlights')
      .select('title')
      .where('org_id', '=', orgId)
      .where('id', '=', row.record_id)
      .executeTakeFirst()
    return post?.title ?? null
  }
  if (row.record_kind === 'question') {
    const question = await db
      .selectFrom('questions')
      .select('question')
      .where('org_id', '=', orgId)
      .where('id', '=', row.record_id)
      .executeTakeFirst()
    return question?.question ?? null
  }
  return null
}

/**
 * Whether the author wrote a profile's draft as its delegate (CONTRACT §21): a person reaches another's
 * profile either by a reviewing role or by a grant, so an author that is neither the profile's own
 * person nor a reviewer wrote it for the profile's expert. Read from today's roles: a draft does not keep
 * the grant it was written under.
 */
function wroteAsDelegate(
  row: Pick<DraftRow, 'record_kind' | 'record_id'>,
  author: { role: string; expert_id: number | null } | undefined,
): boolean {
  if (row.record_kind !== 'profile' || !author) return false
  return author.expert_id !== row.record_id && !REVIEWER_ROLES.includes(author.role)
}

async function summaryOf(db: Queryable, orgId: number, row: DraftRow): Promise<DraftSummary> {
  const expert = row.record_kind === 'profile' ? await expertById(db, orgId, row.record_id) : undefined
  const author = await db
    .selectFrom('people')
    .select(['name', 'role', 'expert_id'])
    .where('org_id', '=', orgId)
    .where('id', '=', row.author_id)
    .executeTakeFirst()
  return {
    id: row.id,
    record: {
      kind: row.record_kind,
      id: row.record_id,
      username: expert?.username ?? null,
      title: await recordTitle(db, orgId, row, expert),
    },
    part: row.part,
    state: row.state,
    author: { id: row.author_id, name: author?.name ?? null, delegate: wroteAsDelegate(row, author) },
    reviewer:
      row.reviewer_kind === null || row.reviewer_id === null
        ? null
        : { kind: row.reviewer_kind, id: row.reviewer_id },
    comment: row.comment,
    publish_at: row.publish_at === null ? null : toSeconds(row.publish_at),
    created_at: toSeconds(row.created_at),
    updated_at: toSeconds(row.updated_at),
  }
}

/** Who sees which drafts: reviewers and API clients every one; other people their own. */
const visibleTo = (actor: Actor) => (row: Pick<DraftRow, 'author_id'>) =>
  actor.kind !== 'person' || isReviewer(actor) || row.author_id === actor.id

const draftNotFound = (id: number) => notFound(`Draft ${id}`)

async function findDraft(db: Queryable, orgId: number, actor: Actor, id: number): Promise<DraftRow> {
  const row = await db
    .selectFrom('drafts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst()
  if (!row || !visibleTo(actor)(row)) throw draftNotFound(id)
  return row
}

/** The review queue: the drafts `actor` may see, in a state (every waiting one without). */
export async function listDrafts(
  db: Queryable,
  orgId: number,
  actor: Actor,
  state: DraftState | undefined,
): Promise<DraftSummary[]> {
  let query = db
    .selectFrom('drafts')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('state', 'in', state ? [state] : WAITING)
    .orderBy('id', 'asc')
    .limit(500)
  if (actor.kind === 'person' && !isReviewer(actor)) query = query.where('author_id', '=', actor.id)
  const rows = await query.execute()
  return Promise.all(rows.map((row) => summaryOf(db, orgId, row)))
}

/** The HTML fields of a part: a section's markup fields, a post's body, a question's details. */
function richFields(row: Pick<DraftRow, 'record_kind' | 'part'>): RichField {
  if (row.record_kind === 'spotlight') return (name) => name === 'html'
  if (row.record_kind === 'question') return (name) => name === 'details'
  if (!isStoredSection(row.part)) return () => false
  const markup = markupFields(row.part)
  return (name) => markup.has(name)
}

/** The part as the draft would make it, in the shape `livePart` answers. */
function proposedPart(row: DraftRow, live: unknown): unknown {
  const changes = parsed(row.changes)
  if (row.record_kind === 'profile' && row.part !== 'account') return elementsOf(changes)
  return overlay(live, changes)
}

/** A section compares as `{"education": [...]}`, so the diff names `education[12].degree`. */
const comparable = (row: Pick<DraftRow, 'record_kind' | 'part'>, part: unknown) =>
  row.record_kind === 'profile' && row.part !== 'account' ? { [row.part]: part } : part

/** What changed live since the draft was based on it; empty: no conflict. */
async function liveChanges(db: Queryable, orgId: number, row: DraftRow): Promise<FieldChange[]> {
  const live = await livePart(db, orgId, row)
  return fieldChanges(comparable(row, parsed(row.base)), comparable(row, live ?? null), richFields(row))
}

/** One draft with its field-level diff against the live record and the live changes since it was opened. */
export async function readDraft(db: Queryable, orgId: number, actor: Actor, id: number) {
  const row = await findDraft(db, orgId, actor, id)
  const live = await livePart(db, orgId, row)
  const diff = fieldChanges(
    comparable(row, live ?? null),
    comparable(row, proposedPart(row, live)),
    richFields(row),
  )
  const since = row.state === 'published' ? [] : await liveChanges(db, orgId, row)
  return { ...(await summaryOf(db, orgId, row)), diff, conflict: since.length > 0, live_changes: since }
}

/** Moves a draft from one of `from` to `to`; a 409 naming its state when it is in none of them. */
async function move(
  write: WriteContext,
  row: DraftRow,
  from: readonly DraftState[],
  to: DraftState,
  extra: { comment?: string | null; reviewer_kind?: string; reviewer_id?: string | null },
): Promise<void> {
  const { db, orgId, now, trail } = write
  await writeTransaction(db, async (trx) => {
    const result = await trx
      .updateTable('drafts')
      .set({ state: to, updated_at: now, ...extra })
      .where('org_id', '=', orgId)
      .where('id', '=', row.id)
      .where('state', 'in', [...from])
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) !== 1) throw stateConflict(row.id, from)
    await recordAudit(trx, orgId, trail, { kind: 'draft', id: row.id }, now)
  })
}

const stateConflict = (id: number, from: readonly DraftState[]) =>
  new ApiError('conflict', `Draft ${id} is not ${from.join(' or ')} (any more): read it again.`)

/** The author (or an API client, for the organization) submits an open or returned draft for review. */
export async function submitDraft(write: WriteContext, id: number) {
  const actor = write.trail.actor
  const row = await findDraft(write.db, write.orgId, actor, id)
  if (actor.kind === 'person' && actor.id !== row.author_id)
    throw new ApiError('forbidden', `Only the author of draft ${id} submits it.`)
  await move(write, row, ['open', 'returned'], 'submitted', {})
  return readDraft(write.db, write.orgId, actor, id)
}

/**
 * Reviewers: people with a reviewing role, never the draft's author, and API clients (the
 * organization's integration, which writes without review anyway). Answers the reviewer's columns.
 */
function reviewerOf(actor: Actor, row: DraftRow): { reviewer_kind: string; reviewer_id: string | null } {
  if (actor.kind === 'person') {
    if (!isReviewer(actor))
      throw new ApiError('forbidden', 'Drafts are approved and returned by editors, admins and owners.')
    if (actor.id === row.author_id)
      throw new ApiError('forbidden', `Draft ${row.id} is yours: another reviewer approves or returns it.`)
  }
  return { reviewer_kind: actor.kind, reviewer_id: actorId(actor) }
}

/** A reviewer sends a submitted draft back to its author with a comment. */
export async function returnDraft(write: WriteContext, id: number, comment: string) {
  const actor = write.trail.actor
  const row = await findDraft(write.db, write.orgId, actor, id)
  await move(write, row, ['submitted'], 'returned', { comment, ...reviewerOf(actor, row) })
  return readDraft(write.db, write.orgId, actor, id)
}

const expertUpdate = compileValidator<ExpertUpdateInput>(ExpertUpdate, 'body')
const itemUpdates = {
  spotlight: compileValidator<UpdateInput<'spotlight'>>(PostUpdate, 'body'),
  question: compileValidator<UpdateInput<'question'>>(QuestionUpdate, 'body'),
}

function asUpdate<T>(validator: Validator<T>, body: unknown, id: number): T {
  const { value, error } = validator(body)
  if (error)
    throw new ApiError(
      'conflict',
      `Draft ${id} cannot be published: its changes do not meet today's rules for the record.`,
      error.details ? { details: error.details } : {},
    )
  return value
}

/** 409 when the record changed live since the draft was opened, unless `force`. */
async function assertNoConflict(db: Queryable, orgId: number, row: DraftRow, force: boolean) {
  const since = await liveChanges(db, orgId, row)
  if (since.length === 0 || force) return
  throw new ApiError(
    'conflict',
    `The record of draft ${row.id} changed live since the draft was opened (${since.map((change) => change.field).join(', ')}): read the draft, then approve with "force": true to publish it over those changes, or return it.`,
    {
      details: since.map((change) => ({
        field: change.field,
        message: 'changed live since the draft was opened',
      })),
    },
  )
}

/**
 * Publishes a draft through the record's ordinary write, the draft moving from `from` to `published`
 * in that write's transaction once the record is locked: whoever publishes it first does, the others
 * get a 409.
 */
async function publishDraft(
  write: WriteContext,
  row: DraftRow,
  from: DraftState,
  set: { reviewer_kind: string; reviewer_id: string | null; force: number },
): Promise<void> {
  const { db, orgId, now } = write
  const { id } = row
  const claim = async (trx: Queryable) => {
    const result = await trx
      .updateTable('drafts')
      .set({ state: 'published', ...set, updated_at: now })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .where('state', '=', from)
      .executeTakeFirst()
    if (Number(result.numUpdatedRows) !== 1) throw stateConflict(id, [from])
  }
  const changes = parsed(row.changes)
  if (row.record_kind === 'profile') {
    const expert = await expertById(db, orgId, row.record_id)
    if (!expert) throw draftNotFound(id)
    const profile = { type: expert.type, username: expert.username, condition: claim }
    if (row.part === 'account')
      await updateExpert(write, { ...profile, input: asUpdate(expertUpdate, changes, id) })
    else if (isStoredSection(row.part))
      await restoreSection(write, { profile, section: row.part, elements: elementsOf(changes) })
    else throw draftNotFound(id)
  } else if (row.record_kind === 'spotlight')
    await updateItem(write, {
      kind: 'spotlight',
      id: row.record_id,
      input: asUpdate(itemUpdates.spotlight, changes, id),
      condition: claim,
    })
  else if (row.record_kind === 'question')
    await updateItem(write, {
      kind: 'question',
      id: row.record_id,
      input: asUpdate(itemUpdates.question, changes, id),
      condition: claim,
    })
  else throw draftNotFound(id)
}

/**
 * A reviewer approves a submitted draft. Without `publish_at` (unix seconds), or with one already past,
 * it is published at once (`publishDraft`): the write's audit entry and version name the reviewer, and
 * the action names the author. With a later `publish_at` the draft is `approved` until then, and the
 * schedule (src/schedules/loop.ts) publishes it. A draft whose record changed live since it was opened
 * is a 409 listing those changes, unless `force`.
 */
export async function approveDraft(
  write: WriteContext,
  id: number,
  { force, publish_at }: { force?: boolean | undefined; publish_at?: number | undefined },
) {
  const { db, orgId, now } = write
  const actor = write.trail.actor
  const row = await findDraft(db, orgId, actor, id)
  const reviewer = reviewerOf(actor, row)
  if (row.state !== 'submitted') throw stateConflict(id, ['submitted'])
  await assertNoConflict(db, orgId, row, force === true)
  const set = { ...reviewer, force: force ? 1 : 0 }
  if (publish_at !== undefined && publish_at * 1000 > now) {
    await writeTransaction(db, async (trx) => {
      const result = await trx
        .updateTable('drafts')
        .set({ state: 'approved', publish_at: publish_at * 1000, ...set, updated_at: now })
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .where('state', '=', 'submitted')
        .executeTakeFirst()
      if (Number(result.numUpdatedRows) !== 1) throw stateConflict(id, ['submitted'])
      await recordAudit(trx, orgId, write.trail, { kind: 'draft', id }, now)
    })
    return readDraft(db, orgId, actor, id)
  }
  const publishing: WriteContext = {
    ...write,
    trail: { actor, action: `${write.trail.action} (draft ${id} by person ${row.author_id})` },
  }
  await publishDraft(publishing, row, 'submitted', set)
  return readDraft(db, orgId, actor, id)
}

/**
 * Publishes the approved drafts whose `publish_at` has come (at most `limit`, the earliest first), each
 * through `publishDraft`, which claims it in the write's transaction: several processes running this
 * at once publish each draft once. One that can no longer be published (a conflict with a live change
 * without `force`, the publish gate, a rule) goes back to `submitted` with the reason as its comment.
 * Answers how many drafts it took.
 */
export async function publishDueDrafts(
  db: WriteContext['db'],
  now: number,
  limit: number,
  onError: (error: unknown) => void,
): Promise<number> {
  const due = await db
    .selectFrom('drafts')
    .selectAll()
    .where('state', '=', 'approved')
    .where('publish_at', '<=', now)
    .orderBy('publish_at')
    .limit(limit)
    .execute()
  for (const row of due) {
    const write: WriteContext = {
      db,
      orgId: row.org_id,
      now,
      trail: {
        actor: { kind: 'system' },
        action: `scheduled publishing of draft ${row.id} by person ${row.author_id}, approved by ${row.reviewer_kind ?? ''} ${row.reviewer_id ?? ''}`,
      },
    }
    try {
      await assertNoConflict(db, row.org_id, row, row.force === 1)
      await publishDraft(write, row, 'approved', {
        reviewer_kind: row.reviewer_kind ?? 'system',
        reviewer_id: row.reviewer_id,
        force: row.force,
      })
    } catch (error) {
      if (!(error instanceof ApiError)) {
        onError(error)
        continue
      }
      // Another process published it first: nothing to undo.
      if (error.code === 'conflict' && error.message.startsWith(`Draft ${row.id} is not`)) continue
      await db
        .updateTable('drafts')
        .set({
          state: 'submitted',
          publish_at: null,
          comment: `Not published at the scheduled time: ${error.message}`,
          updated_at: now,
        })
        .where('org_id', '=', row.org_id)
        .where('id', '=', row.id)
        .where('state', '=', 'approved')
        .execute()
    }
  }
  return due.length
}
