import { actorReference } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { changedColumns } from '../db/columns.js'
import type { ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import { writeTransaction } from '../db/transactions.js'
import { itemChanged, itemDeleted } from '../derived/changes.js'
import { notFound, validationError } from '../errors.js'
import { findExpertIds } from '../experts/repository.js'
import { deleteRecordHistory, ITEM_PART, recordVersion } from '../history/versions.js'
import { blankToNull } from '../validation/fields.js'
import { sanitizeHtml } from '../validation/html.js'
import { type ScheduleColumns, scheduleColumns } from '../validation/schedule.js'
import { CONTENT_API, type CreateInput, type UpdateInput } from './kinds.js'
import {
  type AnswerRow,
  type ContentChanges,
  type ContentColumns,
  type ContentRows,
  deleteAnswers,
  deleteContent,
  ensureTags,
  findContentForWrite,
  insertAnswer,
  insertContent,
  listAnswerRows,
  listTaggedExpertIds,
  listTagIds,
  replaceTaggedExperts,
  replaceTags,
  updateAnswer,
  updateContent,
} from './repository.js'
import type { AnswerCreateInput, AnswerUpdateInput } from './schemas.js'
import { itemSnapshot } from './snapshot.js'

/**
 * Posts ("spotlight") and Q&A items with their answers: one service each, used by the API and the
 * import. A post's tagged experts and a question's answering experts show it in their profiles, so
 * every write reports those profiles as changed.
 */

const SEO_FIELDS = ['title', 'description', 'keywords', 'image', 'canonical_url'] as const
type Seo = Partial<Record<(typeof SEO_FIELDS)[number], string | null>>

/** The fields every kind's write has; absent ones are kept, `tags` replaces the list. */
interface PublicationWrite {
  published?: number
  published_date?: number | '' | null
  seo?: Seo
  tags?: readonly string[]
  /** Scheduled publishing and unpublishing (src/validation/schedule.ts), as stored. */
  schedule?: ScheduleColumns
}

/** The fields of each kind's write, as the service takes them: a write of one kind cannot take another's. */
export interface ItemWrites {
  spotlight: PublicationWrite & {
    title?: string
    html?: string
    featured_image?: string | null
    /** The experts the post tags, in order (replaces the list). */
    expertIds?: readonly number[]
  }
  question: PublicationWrite & { question?: string; details?: string | null }
}
export type ItemWrite<K extends ContentKind> = ItemWrites[K]

function publicationColumns(fields: PublicationWrite): ContentChanges {
  const columns: ContentChanges = { ...fields.schedule }
  if (fields.published !== undefined) columns.published = fields.published
  if (fields.published_date !== undefined) {
    const seconds = blankToNull(fields.published_date)
    columns.published_at = seconds === null ? null : seconds * 1000
  }
  for (const field of SEO_FIELDS) {
    const value = fields.seo?.[field]
    if (value !== undefined) columns[`seo_${field}`] = blankToNull(value)
  }
  return columns
}

/** A new item's columns every kind has: what the write gives over the defaults. */
function newPublication(columns: ContentChanges) {
  return {
    published: columns.published ?? 0,
    published_at: columns.published_at ?? null,
    publish_at: columns.publish_at ?? null,
    publish_by: columns.publish_by ?? null,
    unpublish_at: columns.unpublish_at ?? null,
    unpublish_by: columns.unpublish_by ?? null,
    seo_title: columns.seo_title ?? null,
    seo_description: columns.seo_description ?? null,
    seo_keywords: columns.seo_keywords ?? null,
    seo_image: columns.seo_image ?? null,
    seo_canonical_url: columns.seo_canonical_url ?? null,
  }
}

const same = (a: readonly number[], b: readonly number[]) => a.join() === b.join()

/** How each kind's write differs: its own columns, its experts, and how an API body becomes a write. */
interface KindWrite<K extends ContentKind> {
  /** The kind's own columns a write changes. */
  columns(fields: ItemWrites[K]): ContentChanges
  /** A new item's columns; the API's schemas make sure the required ones are there. */
  created(columns: ContentChanges): ContentColumns[K]
  /** The experts whose profiles show the item. */
  experts(trx: Queryable, id: number): Promise<number[]>
  /**
   * Writes the kind's own links to experts (a post's tagged experts); answers the experts the item
   * showed in before or shows in now, and whether the links changed.
   */
  links(
    trx: Queryable,
    id: number,
    fields: ItemWrites[K],
    before: readonly number[],
  ): Promise<{ experts: readonly number[]; changed: boolean }>
  /** An API body as the service takes it (a post's `tagged` usernames become expert ids). */
  fromInput(trx: Queryable, orgId: number, input: CreateInput<K> | UpdateInput<K>): Promise<ItemWrites[K]>
}

const KIND_WRITES: { [K in ContentKind]: KindWrite<K> } = {
  spotlight: {
    columns(fields) {
      const columns: ContentChanges = {}
      if (fields.title !== undefined) columns.title = fields.title
      if (fields.html !== undefined) columns.html = sanitizeHtml(fields.html)
      if (fields.featured_image !== undefined) columns.featured_image = blankToNull(fields.featured_image)
      return columns
    },
    created(columns) {
      const { title, html } = columns
      if (title === undefined || html === undefined) throw new Error('A new post needs a title and html')
      return { ...newPublication(columns), title, html, featured_image: columns.featured_image ?? null }
    },
    experts: listTaggedExpertIds,
    async links(trx, id, fields, before) {
      if (fields.expertIds === undefined) return { experts: before, changed: false }
      const after = [...new Set(fields.expertIds)]
      const changed = !same(before, after)
      if (changed) await replaceTaggedExperts(trx, id, after)
      return { experts: [...before, ...after], changed }
    },
    async fromInput(trx, orgId, input) {
      if (input.tagged === undefined) return input
      const { tagged, ...rest } = input
      return { ...rest, expertIds: await expertIdsOf(trx, orgId, tagged, 'tagged') }
    },
  },
  question: {
    columns(fields) {
      const columns: ContentChanges = {}
      if (fields.question !== undefined) columns.question = fields.question
      if (fields.details !== undefined) {
        const details = blankToNull(fields.details)
        columns.details = details === null ? null : sanitizeHtml(details)
      }
      return columns
    },
    created(columns) {
      const { question } = columns
      if (question === undefined) throw new Error('A new question needs its question')
      return { ...newPublication(columns), question, details: columns.details ?? null }
    },
    experts: async (trx, id) => (await listAnswerRows(trx, id)).map((answer) => answer.expert_id),
    // A question's experts are its answers' (the answer services write them).
    links: async (_trx, _id, _fields, before) => ({ experts: before, changed: false }),
    fromInput: async (_trx, _orgId, input) => input,
  },
}

/** How the audit log names an answer (`<question>/<answer>`); a post or question goes by its kind. */
const answerRecord = (questionId: number, answerId: number) =>
  ({ kind: 'answer', id: `${questionId}/${answerId}` }) as const

/**
 * Creates (no `existing`) or changes a post or question in the caller's transaction; returns its id
 * and whether anything changed. `key` is the import key of a new item.
 */
export async function saveItem<K extends ContentKind>(
  trx: Queryable,
  orgId: number,
  kind: K,
  existing: ContentRows[K] | undefined,
  fields: ItemWrite<K>,
  now: number,
  key: string | null = null,
): Promise<{ id: number; changed: boolean }> {
  const write: KindWrite<K> = KIND_WRITES[kind]
  const columns = { ...write.columns(fields), ...publicationColumns(fields) }
  let id: number
  let changed: boolean
  if (!existing) {
    id = await insertContent(trx, orgId, kind, write.created(columns), key, now)
    changed = true
  } else {
    id = existing.id
    const changes = changedColumns(columns, existing)
    changed = Object.keys(changes).length > 0
    await updateContent(trx, orgId, kind, id, changes)
  }
  const before = existing ? await write.experts(trx, id) : []
  const links = await write.links(trx, id, fields, before)
  if (links.changed) changed = true
  if (fields.tags !== undefined) {
    const tags = await ensureTags(trx, orgId, fields.tags)
    // ensureTags returns every given name's tag.
    const after = [...new Set(fields.tags.flatMap((name) => tags.get(name.toLowerCase())?.id ?? []))]
    const before = existing ? await listTagIds(trx, kind, id) : []
    if (!same(before, after)) {
      await replaceTags(trx, kind, id, after)
      changed = true
    }
  }
  if (changed) await itemChanged(trx, orgId, kind, id, [...new Set(links.experts)], now)
  return { id, changed }
}

const notAnExpert = (field: string, username: string) => ({
  field,
  message: `is not an expert of this organization: ${username}`,
})

/** Usernames -> expert ids, in order; an unknown one is a 400 naming it. */
async function expertIdsOf(db: Queryable, orgId: number, usernames: readonly string[], field: string) {
  const ids = await findExpertIds(db, orgId, usernames)
  const found: number[] = []
  const unknown: { field: string; message: string }[] = []
  for (const [index, username] of usernames.entries()) {
    const id = ids.get(username)
    if (id !== undefined) found.push(id)
    else unknown.push(notAnExpert(`${field}[${index}]`, username))
  }
  if (unknown.length > 0) throw validationError(unknown)
  return found
}

/** An answer's expert by username; an unknown one is a 400 naming it. */
async function expertIdOf(db: Queryable, orgId: number, username: string) {
  const id = (await findExpertIds(db, orgId, [username])).get(username)
  if (id === undefined) throw validationError([notAnExpert('username', username)])
  return id
}

/** The post or question a write changes, locked until the write commits; a 404 when there is none. */
async function findItem<K extends ContentKind>(trx: Queryable, orgId: number, kind: K, id: number) {
  const row = await findContentForWrite(trx, orgId, kind, id)
  if (!row) throw notFound(`${CONTENT_API[kind].noun} ${id}`)
  return row
}

/** Keeps the version of a post or question after a change: the item as its update body takes it. */
async function recordItemVersion(
  trx: Queryable,
  { orgId, now, trail }: Pick<WriteContext, 'orgId' | 'now' | 'trail'>,
  kind: ContentKind,
  id: number,
) {
  const snapshot = await itemSnapshot(trx, orgId, kind, id)
  if (snapshot)
    await recordVersion(trx, orgId, trail, { record: { kind, id }, part: ITEM_PART, snapshot }, now)
}

/** Creates a post or a question; returns its id. */
export async function createItem<K extends ContentKind>(
  { db, orgId, now, trail }: WriteContext,
  kind: K,
  input: CreateInput<K>,
): Promise<number> {
  return writeTransaction(db, async (trx) => {
    const fields = await KIND_WRITES[kind].fromInput(trx, orgId, input)
    const schedule = scheduleColumns(input, now, actorReference(trail.actor))
    const { id } = await saveItem(trx, orgId, kind, undefined, { ...fields, schedule }, now)
    await recordAudit(trx, orgId, trail, { kind, id }, now)
    await recordItemVersion(trx, { orgId, now, trail }, kind, id)
    return id
  })
}

/**
 * Applies a partial update to a post or question; returns whether anything changed. `condition` runs
 * in the transaction once the item's row is locked, before anything changes; it throws to refuse.
 */
export async function updateItem<K extends ContentKind>(
  { db, orgId, now, trail }: WriteContext,
  {
    kind,
    id,
    input,
    condition,
  }: { kind: K; id: number; input: UpdateInput<K>; condition?: (trx: Queryable) => Promise<void> },
): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    const existing = await findItem(trx, orgId, kind, id)
    await condition?.(trx)
    const fields = await KIND_WRITES[kind].fromInput(trx, orgId, input)
    const schedule = scheduleColumns(input, now, actorReference(trail.actor))
    const { changed } = await saveItem(trx, orgId, kind, existing, { ...fields, schedule }, now)
    if (changed) {
      await recordAudit(trx, orgId, trail, { kind, id }, now)
      await recordItemVersion(trx, { orgId, now, trail }, kind, id)
    }
    return changed
  })
}

/** Deletes a post or question; the experts it showed in no longer list it. */
export async function deleteItem({ db, orgId, now, trail }: WriteContext, kind: ContentKind, id: number) {
  await writeTransaction(db, async (trx) => {
    await findItem(trx, orgId, kind, id)
    const experts = await KIND_WRITES[kind].experts(trx, id)
    await deleteContent(trx, orgId, kind, id)
    await itemDeleted(trx, orgId, kind, id, experts, now)
    await deleteRecordHistory(trx, orgId, { kind, id })
    await recordAudit(trx, orgId, trail, { kind, id }, now)
  })
}

/** An answer as the import gives it: matched by key, so ids stay stable across re-imports. */
export interface AnswerWrite {
  key: string
  expertId: number
  answer: string
  /** Unix milliseconds; default: kept, or now for a new answer. */
  createdAt?: number
}

/** Makes a question's answers equal `answers` (the import), in the caller's transaction. */
export async function replaceAnswers(
  trx: Queryable,
  orgId: number,
  questionId: number,
  answers: readonly AnswerWrite[],
  now: number,
): Promise<boolean> {
  const stored = await listAnswerRows(trx, questionId)
  const byKey = new Map(stored.map((row) => [row.external_key, row]))
  const experts = new Set<number>()
  let changed = false
  for (const [position, answer] of answers.entries()) {
    const row = byKey.get(answer.key)
    byKey.delete(answer.key)
    const values = {
      expert_id: answer.expertId,
      answer: sanitizeHtml(answer.answer),
      position,
      created_at: answer.createdAt ?? row?.created_at ?? now,
    }
    if (!row) await insertAnswer(trx, { question_id: questionId, external_key: answer.key, ...values })
    else if (
      row.expert_id !== values.expert_id ||
      row.answer !== values.answer ||
      row.position !== values.position ||
      row.created_at !== values.created_at
    ) {
      await updateAnswer(trx, questionId, row.id, values)
      experts.add(row.expert_id)
    } else continue
    experts.add(answer.expertId)
    changed = true
  }
  if (byKey.size > 0) {
    await deleteAnswers(
      trx,
      questionId,
      [...byKey.values()].map((row) => row.id),
    )
    for (const row of byKey.values()) experts.add(row.expert_id)
    changed = true
  }
  if (changed) await itemChanged(trx, orgId, 'question', questionId, [...experts], now)
  return changed
}

export async function addAnswer(
  { db, orgId, now, trail }: WriteContext,
  questionId: number,
  input: AnswerCreateInput,
): Promise<number> {
  return writeTransaction(db, async (trx) => {
    await findItem(trx, orgId, 'question', questionId)
    const expertId = await expertIdOf(trx, orgId, input.username)
    const stored = await listAnswerRows(trx, questionId)
    const id = await insertAnswer(trx, {
      question_id: questionId,
      expert_id: expertId,
      external_key: `api:${crypto.randomUUID()}`,
      position: stored.reduce((max, row) => Math.max(max, row.position + 1), 0),
      answer: sanitizeHtml(input.answer),
      created_at: now,
    })
    await itemChanged(trx, orgId, 'question', questionId, [expertId], now)
    await recordAudit(trx, orgId, trail, answerRecord(questionId, id), now)
    return id
  })
}

async function findAnswer(trx: Queryable, orgId: number, questionId: number, answerId: number) {
  await findItem(trx, orgId, 'question', questionId)
  const row = (await listAnswerRows(trx, questionId)).find((answer) => answer.id === answerId)
  if (!row) throw notFound(`Answer ${answerId} of question ${questionId}`)
  return row
}

export async function changeAnswer(
  { db, orgId, now, trail }: WriteContext,
  { questionId, answerId, input }: { questionId: number; answerId: number; input: AnswerUpdateInput },
): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    const row = await findAnswer(trx, orgId, questionId, answerId)
    const changes: Partial<AnswerRow> = {}
    if (input.username !== undefined) {
      const expertId = await expertIdOf(trx, orgId, input.username)
      if (expertId !== row.expert_id) changes.expert_id = expertId
    }
    if (input.answer !== undefined) {
      const answer = sanitizeHtml(input.answer)
      if (answer !== row.answer) changes.answer = answer
    }
    if (Object.keys(changes).length === 0) return false
    await updateAnswer(trx, questionId, answerId, changes)
    await itemChanged(
      trx,
      orgId,
      'question',
      questionId,
      [row.expert_id, changes.expert_id ?? row.expert_id],
      now,
    )
    await recordAudit(trx, orgId, trail, answerRecord(questionId, answerId), now)
    return true
  })
}

export async function removeAnswer(
  { db, orgId, now, trail }: WriteContext,
  questionId: number,
  answerId: number,
) {
  await writeTransaction(db, async (trx) => {
    const row = await findAnswer(trx, orgId, questionId, answerId)
    await deleteAnswers(trx, questionId, [answerId])
    await itemChanged(trx, orgId, 'question', questionId, [row.expert_id], now)
    await recordAudit(trx, orgId, trail, answerRecord(questionId, answerId), now)
  })
}
