import { type Insertable, type Selectable, sql } from 'kysely'
import { inChunks } from '../db/chunks.js'
import { byContentKind, CONTENT_KINDS, type ContentKind, type TaggingTable } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import { reusableQuery } from '../db/reusable-query.js'
import type { QuestionsTable, SpotlightsTable } from '../db/schema.js'
import { lockedForWrite } from '../db/transactions.js'

/** Content queries: posts, questions, answers, tags. Every one takes the organization. */

/** Published posts that tag the expert, newest first. */
export const listExpertSpotlights = reusableQuery((db: Queryable, orgId: number, expertId: number) =>
  db
    .selectFrom('spotlights')
    .innerJoin('spotlight_experts', 'spotlight_experts.spotlight_id', 'spotlights.id')
    .select([
      'spotlights.id',
      'spotlights.title',
      'spotlights.published_at',
      'spotlights.created_at',
      'spotlights.featured_image',
    ])
    .where('spotlights.org_id', '=', orgId)
    .where('spotlight_experts.expert_id', '=', expertId)
    .where('spotlights.published', '=', 1)
    .orderBy(sql`coalesce(spotlights.published_at, spotlights.created_at)`, 'desc')
    .orderBy('spotlights.id', 'desc'),
)

/**
 * Published questions the expert answered, newest first, each once. Driven from the expert's answers
 * (index answers_expert_question), not from the organization's questions.
 */
export const listExpertQuestions = reusableQuery((db: Queryable, orgId: number, expertId: number) =>
  db
    .selectFrom('answers')
    .innerJoin('questions', 'questions.id', 'answers.question_id')
    .select(['questions.id', 'questions.question', 'questions.published_at', 'questions.created_at'])
    .where('answers.expert_id', '=', expertId)
    .where('questions.org_id', '=', orgId)
    .where('questions.published', '=', 1)
    .groupBy('questions.id')
    .orderBy(sql`coalesce(questions.published_at, questions.created_at)`, 'desc')
    .orderBy('questions.id', 'desc'),
)

const spotlightById = reusableQuery((db: Queryable, orgId: number, id: number) =>
  db.selectFrom('spotlights').selectAll().where('org_id', '=', orgId).where('id', '=', id),
)

export async function findSpotlight(db: Queryable, orgId: number, id: number) {
  return (await spotlightById(db, orgId, id))[0]
}

const questionById = reusableQuery((db: Queryable, orgId: number, id: number) =>
  db.selectFrom('questions').selectAll().where('org_id', '=', orgId).where('id', '=', id),
)

export async function findQuestion(db: Queryable, orgId: number, id: number) {
  return (await questionById(db, orgId, id))[0]
}

const LOCKED_ROWS: {
  [K in ContentKind]: (trx: Queryable, orgId: number, id: number) => Promise<ContentRows[K] | undefined>
} = {
  spotlight: (trx, orgId, id) =>
    lockedForWrite(
      trx,
      trx.selectFrom('spotlights').selectAll().where('org_id', '=', orgId).where('id', '=', id),
    ).executeTakeFirst(),
  question: (trx, orgId, id) =>
    lockedForWrite(
      trx,
      trx.selectFrom('questions').selectAll().where('org_id', '=', orgId).where('id', '=', id),
    ).executeTakeFirst(),
}

/**
 * A post or question, its row locked until the write transaction ends: two partial updates of one
 * item (or of its answers) apply one after the other, neither undoing the other (db/transactions.ts).
 */
export async function findContentForWrite<K extends ContentKind>(
  trx: Queryable,
  orgId: number,
  kind: K,
  id: number,
): Promise<ContentRows[K] | undefined> {
  return LOCKED_ROWS[kind](trx, orgId, id)
}

/** Experts tagged in a post, in the post's order. */
export const listTaggedExperts = reusableQuery((db: Queryable, orgId: number, spotlightId: number) =>
  db
    .selectFrom('spotlight_experts')
    .innerJoin('experts', 'experts.id', 'spotlight_experts.expert_id')
    .select([
      'experts.username',
      'experts.firstname',
      'experts.lastname',
      'experts.job_title',
      'experts.is_published',
      'experts.is_private',
    ])
    .where('experts.org_id', '=', orgId)
    .where('spotlight_experts.spotlight_id', '=', spotlightId)
    .orderBy('spotlight_experts.position'),
)

export const listAnswers = reusableQuery((db: Queryable, orgId: number, questionId: number) =>
  db
    .selectFrom('answers')
    .innerJoin('experts', 'experts.id', 'answers.expert_id')
    .select([
      'answers.id',
      'experts.username',
      'experts.firstname',
      'experts.lastname',
      'answers.answer',
      'answers.created_at',
      'experts.is_published',
      'experts.is_private',
    ])
    .where('experts.org_id', '=', orgId)
    .where('answers.question_id', '=', questionId)
    .orderBy('answers.position')
    .orderBy('answers.id'),
)

const tagsOf = (kind: ContentKind) => {
  const table = CONTENT_KINDS[kind].taggings
  return reusableQuery((db: Queryable, orgId: number, ownerId: number) =>
    db
      .selectFrom(table)
      .innerJoin('content_tags', 'content_tags.id', `${table}.content_tag_id`)
      .select([`${table}.id as id`, 'content_tags.id as content_tag_id', 'content_tags.name as tag'])
      .where('content_tags.org_id', '=', orgId)
      .where(`${table}.owner_id`, '=', ownerId)
      .orderBy(`${table}.position`),
  )
}
const TAG_QUERIES = byContentKind(tagsOf)

/** The tags of a post or question, in order. */
export async function listTags(db: Queryable, orgId: number, kind: ContentKind, ownerId: number) {
  return TAG_QUERIES[kind](db, orgId, ownerId)
}

/** Finds or creates the organization's tags (case-insensitive); lower-cased name -> tag. */
export async function ensureTags(
  db: Queryable,
  orgId: number,
  names: readonly string[],
): Promise<Map<string, { id: number; name: string }>> {
  const wanted = new Map<string, string>()
  for (const name of names) if (!wanted.has(name.toLowerCase())) wanted.set(name.toLowerCase(), name)
  const found = await inChunks([...wanted.keys()], (keys) =>
    db
      .selectFrom('content_tags')
      .select(['id', 'name', 'name_key'])
      .where('org_id', '=', orgId)
      .where('name_key', 'in', keys)
      .execute(),
  )
  const tags = new Map(found.map((row) => [row.name_key, { id: row.id, name: row.name }]))
  // In key order, so two writers creating the same tags cannot wait for each other in a cycle.
  const missing = [...wanted]
    .filter(([key]) => !tags.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  // A concurrent write may create the same tag first: its row stands (ON CONFLICT waits for that
  // writer's commit, then inserts nothing) and is read back below.
  const created = await inChunks(missing, (keys) =>
    db
      .insertInto('content_tags')
      .values(keys.map(([name_key, name]) => ({ org_id: orgId, name, name_key })))
      .onConflict((conflict) => conflict.columns(['org_id', 'name_key']).doNothing())
      .returning(['id', 'name', 'name_key'])
      .execute(),
  )
  for (const row of created) tags.set(row.name_key, { id: row.id, name: row.name })
  const raced = missing.map(([key]) => key).filter((key) => !tags.has(key))
  const theirs = await inChunks(raced, (keys) =>
    db
      .selectFrom('content_tags')
      .select(['id', 'name', 'name_key'])
      .where('org_id', '=', orgId)
      .where('name_key', 'in', keys)
      .execute(),
  )
  for (const row of theirs) tags.set(row.name_key, { id: row.id, name: row.name })
  return tags
}

type Stamps = 'id' | 'org_id' | 'external_key' | 'created_at' | 'updated_at' | 'doc_version'
export type SpotlightColumns = Omit<Insertable<SpotlightsTable>, Stamps>
export type QuestionColumns = Omit<Insertable<QuestionsTable>, Stamps>
/** The columns a write of each kind gives. */
export interface ContentColumns {
  spotlight: SpotlightColumns
  question: QuestionColumns
}
/** Any column a write of a post or a question may change. */
export type ContentChanges = Partial<SpotlightColumns & QuestionColumns>
/** The stored row of each kind. */
export interface ContentRows {
  spotlight: Selectable<SpotlightsTable>
  question: Selectable<QuestionsTable>
}
export type ContentRow = ContentRows[ContentKind]

const ROWS_BY_KEY: {
  [K in ContentKind]: (db: Queryable, orgId: number, key: string) => Promise<ContentRows[K] | undefined>
} = {
  spotlight: (db, orgId, key) =>
    db
      .selectFrom('spotlights')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('external_key', '=', key)
      .executeTakeFirst(),
  question: (db, orgId, key) =>
    db
      .selectFrom('questions')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('external_key', '=', key)
      .executeTakeFirst(),
}

/** A post or question by its import key. */
export async function findContentByKey<K extends ContentKind>(
  db: Queryable,
  orgId: number,
  kind: K,
  key: string,
): Promise<ContentRows[K] | undefined> {
  return ROWS_BY_KEY[kind](db, orgId, key)
}

interface InsertStamps {
  org_id: number
  external_key: string | null
  created_at: number
  updated_at: number
}

const INSERTS: {
  [K in ContentKind]: (db: Queryable, values: ContentColumns[K] & InsertStamps) => Promise<{ id: number }>
} = {
  spotlight: (db, values) =>
    db.insertInto('spotlights').values(values).returning('id').executeTakeFirstOrThrow(),
  question: (db, values) =>
    db.insertInto('questions').values(values).returning('id').executeTakeFirstOrThrow(),
}

export async function insertContent<K extends ContentKind>(
  db: Queryable,
  orgId: number,
  kind: K,
  columns: ContentColumns[K],
  key: string | null,
  now: number,
): Promise<number> {
  const stamps = { org_id: orgId, external_key: key, created_at: now, updated_at: now }
  const { id } = await INSERTS[kind](db, { ...columns, ...stamps })
  return id
}

export async function updateContent(
  db: Queryable,
  orgId: number,
  kind: ContentKind,
  id: number,
  changes: ContentChanges & { updated_at?: number },
): Promise<void> {
  if (Object.keys(changes).length === 0) return
  await db
    .updateTable(CONTENT_KINDS[kind].table)
    .set(changes)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .execute()
}

export async function deleteContent(db: Queryable, orgId: number, kind: ContentKind, id: number) {
  const result = await db
    .deleteFrom(CONTENT_KINDS[kind].table)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Ids of the experts a post tags, in order (the caller has checked the post is the organization's). */
export async function listTaggedExpertIds(db: Queryable, spotlightId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('spotlight_experts')
    .select('expert_id')
    .where('spotlight_id', '=', spotlightId)
    .orderBy('position')
    .execute()
  return rows.map((row) => row.expert_id)
}

export async function replaceTaggedExperts(db: Queryable, spotlightId: number, expertIds: readonly number[]) {
  await db.deleteFrom('spotlight_experts').where('spotlight_id', '=', spotlightId).execute()
  if (expertIds.length > 0)
    await db
      .insertInto('spotlight_experts')
      .values(expertIds.map((expert_id, position) => ({ spotlight_id: spotlightId, expert_id, position })))
      .execute()
}

/** Tag ids on a post or question, in order. */
export async function listTagIds(db: Queryable, kind: ContentKind, ownerId: number): Promise<number[]> {
  const rows = await db
    .selectFrom(CONTENT_KINDS[kind].taggings)
    .select('content_tag_id')
    .where('owner_id', '=', ownerId)
    .orderBy('position')
    .execute()
  return rows.map((row) => row.content_tag_id)
}

export async function replaceTags(
  db: Queryable,
  kind: ContentKind,
  ownerId: number,
  tagIds: readonly number[],
) {
  const table: TaggingTable = CONTENT_KINDS[kind].taggings
  await db.deleteFrom(table).where('owner_id', '=', ownerId).execute()
  if (tagIds.length > 0)
    await db
      .insertInto(table)
      .values(tagIds.map((content_tag_id, position) => ({ owner_id: ownerId, content_tag_id, position })))
      .execute()
}

export interface AnswerRow {
  id: number
  question_id: number
  expert_id: number
  external_key: string
  position: number
  answer: string
  created_at: number
}

export async function listAnswerRows(db: Queryable, questionId: number): Promise<AnswerRow[]> {
  return db
    .selectFrom('answers')
    .selectAll()
    .where('question_id', '=', questionId)
    .orderBy('position')
    .orderBy('id')
    .execute()
}

export async function insertAnswer(db: Queryable, row: Omit<AnswerRow, 'id'>): Promise<number> {
  const { id } = await db.insertInto('answers').values(row).returning('id').executeTakeFirstOrThrow()
  return id
}

export async function updateAnswer(
  db: Queryable,
  questionId: number,
  id: number,
  changes: Partial<Omit<AnswerRow, 'id' | 'question_id'>>,
): Promise<void> {
  await db
    .updateTable('answers')
    .set(changes)
    .where('question_id', '=', questionId)
    .where('id', '=', id)
    .execute()
}

export async function deleteAnswers(
  db: Queryable,
  questionId: number,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return
  await db.deleteFrom('answers').where('question_id', '=', questionId).where('id', 'in', ids).execute()
}
