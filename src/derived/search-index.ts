import { type SqlBool, sql } from 'kysely'
import { insertInChunks } from '../db/chunks.js'
import type { Queryable } from '../db/database.js'
import type { ReadConnection } from '../db/read-connection.js'
import { reusableQuery } from '../db/reusable-query.js'
import type {
  ExpertFacetsTable,
  ExpertRow,
  ExpertSearchTable,
  ProfileType,
  QuestionSearchTable,
  SpotlightSearchTable,
} from '../db/schema.js'

/** Index maintenance queries: read what an index row derives from, replace index rows. Every one takes the organization. */

/**
 * `org_id = ?` as a plain filter. Where the rows are picked by a list of keys, SQLite would otherwise
 * use an index led by `org_id` and read every row of the organization (the unary `+` keeps the column
 * out of index selection; PostgreSQL reads it as the same comparison).
 */
export const ofOrganization = (column: string, orgId: number) => sql<SqlBool>`+${sql.ref(column)} = ${orgId}`

/** Raises the organization's expert index version (src/kept-reads/result-cache.ts): first, so concurrent writers queue on it. */
export async function bumpExpertSearchVersion(db: Queryable, orgId: number): Promise<void> {
  await db
    .insertInto('expert_search_versions')
    .values({ org_id: orgId, version: 1 })
    .onConflict((conflict) =>
      conflict.column('org_id').doUpdateSet({ version: sql`expert_search_versions.version + 1` }),
    )
    .execute()
}

/**
 * Raises the version to at least `floor` (after bumpExpertSearchVersion, in the same transaction). A
 * rebuild passes the clock: a version table dropped and made again by migrations starts counting anew,
 * and a process that kept results from before must not find them under a repeated number.
 */
export async function raiseExpertSearchVersionTo(db: Queryable, orgId: number, floor: number): Promise<void> {
  await db
    .updateTable('expert_search_versions')
    .set({ version: floor })
    .where('org_id', '=', orgId)
    .where('version', '<', floor)
    .execute()
}

const versionQuery = reusableQuery((db: Queryable, orgId: number) =>
  db.selectFrom('expert_search_versions').select('version').where('org_id', '=', orgId),
)

/** The organization's expert index version (read on every search): 0 until its index first changes. */
export async function readExpertSearchVersion(db: Queryable, orgId: number): Promise<number> {
  const [row] = await versionQuery(db, orgId)
  return Number(row?.version ?? 0)
}

/** `readExpertSearchVersion` on SQLite's read connection, synchronously (src/db/read-connection.ts). */
export function readExpertSearchVersionOn(reads: ReadConnection, db: Queryable, orgId: number): number {
  const [row] = versionQuery.readOn(reads, db, orgId)
  return Number(row?.version ?? 0)
}

export async function readItemsForIndex(db: Queryable, orgId: number, expertIds: number[]) {
  return db
    .selectFrom('profile_items')
    .select(['expert_id', 'section', 'data'])
    .where(ofOrganization('org_id', orgId))
    .where('expert_id', 'in', expertIds)
    .orderBy('expert_id')
    .orderBy('section')
    .orderBy('position')
    .execute()
}

export async function replaceExpertRows(
  db: Queryable,
  orgId: number,
  expertIds: number[],
  rows: ExpertSearchTable[],
  facets: ExpertFacetsTable[],
): Promise<void> {
  await deleteExpertRows(db, orgId, expertIds)
  await insertInChunks(db, rows, (batch) => db.insertInto('expert_search').values(batch).execute())
  await insertInChunks(db, facets, (batch) => db.insertInto('expert_facets').values(batch).execute())
}

/** The flags the index holds for `expertIds` (those indexed), to tell which changed. */
export async function readIndexedFlags(db: Queryable, orgId: number, expertIds: number[]) {
  return db
    .selectFrom('expert_search')
    .select(['expert_id', 'is_published', 'is_private'])
    .where(ofOrganization('org_id', orgId))
    .where('expert_id', 'in', expertIds)
    .execute()
}

export async function deleteExpertRows(db: Queryable, orgId: number, expertIds: number[]): Promise<void> {
  await db
    .deleteFrom('expert_facets')
    .where(ofOrganization('org_id', orgId))
    .where('expert_id', 'in', expertIds)
    .execute()
  await db
    .deleteFrom('expert_search')
    .where(ofOrganization('org_id', orgId))
    .where('expert_id', 'in', expertIds)
    .execute()
}

/** Sets the `modified` of every indexed expert of the organization (an organization profile change). */
export async function setExpertsModified(db: Queryable, orgId: number, modified: number): Promise<void> {
  await db.updateTable('expert_search').set({ modified }).where('org_id', '=', orgId).execute()
}

/** One page of an organization's expert, post or question ids, in id order, after `afterId`. */
export async function listIds(
  db: Queryable,
  table: 'experts' | 'spotlights' | 'questions',
  orgId: number,
  afterId: number,
  limit: number,
) {
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where(ofOrganization('org_id', orgId))
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute()
  return rows.map((row) => row.id)
}

export async function readSpotlightsForIndex(db: Queryable, orgId: number, ids: number[]) {
  return db
    .selectFrom('spotlights')
    .select(['id', 'org_id', 'title', 'html', 'published', 'published_at', 'created_at'])
    .where(ofOrganization('org_id', orgId))
    .where('id', 'in', ids)
    .execute()
}

/** The tag names of posts (`spotlight_tags`) or questions (`question_tags`) `ids`, by owner. */
export async function readTagNamesForIndex(
  db: Queryable,
  orgId: number,
  table: 'spotlight_tags' | 'question_tags',
  ids: number[],
): Promise<Map<number, string[]>> {
  const rows = await db
    .selectFrom(`${table} as g` as const)
    .innerJoin('content_tags as t', 't.id', 'g.content_tag_id')
    .select(['g.owner_id', 't.name'])
    .where('t.org_id', '=', orgId)
    .where('g.owner_id', 'in', ids)
    .orderBy('t.name')
    .execute()
  const names = new Map<number, string[]>()
  for (const row of rows)
    names.set(Number(row.owner_id), [...(names.get(Number(row.owner_id)) ?? []), row.name])
  return names
}

export async function replaceSpotlightRows(
  db: Queryable,
  orgId: number,
  ids: number[],
  rows: SpotlightSearchTable[],
): Promise<void> {
  await db
    .deleteFrom('spotlight_search')
    .where('org_id', '=', orgId)
    .where('spotlight_id', 'in', ids)
    .execute()
  await insertInChunks(db, rows, (batch) => db.insertInto('spotlight_search').values(batch).execute())
}

export async function readQuestionsForIndex(db: Queryable, orgId: number, ids: number[]) {
  return db
    .selectFrom('questions')
    .select(['id', 'org_id', 'question', 'details', 'published', 'published_at', 'created_at'])
    .where(ofOrganization('org_id', orgId))
    .where('id', 'in', ids)
    .execute()
}

/**
 * Answers of the questions, in order, each with its expert's flags; `exceptExpert`'s are left out (it
 * is being deleted).
 */
export async function readAnswersForIndex(
  db: Queryable,
  orgId: number,
  questionIds: number[],
  exceptExpert?: number,
) {
  let query = db
    .selectFrom('answers')
    .innerJoin('questions', 'questions.id', 'answers.question_id')
    .innerJoin('experts', 'experts.id', 'answers.expert_id')
    .select(['answers.question_id', 'answers.answer', 'experts.is_published', 'experts.is_private'])
    .where('questions.org_id', '=', orgId)
    .where('experts.org_id', '=', orgId)
    .where('answers.question_id', 'in', questionIds)
  if (exceptExpert !== undefined) query = query.where('answers.expert_id', '!=', exceptExpert)
  return query.orderBy('answers.question_id').orderBy('answers.position').execute()
}

/** Questions of the organization that `expertId` answered. */
export async function questionsAnsweredBy(db: Queryable, orgId: number, expertId: number) {
  const rows = await db
    .selectFrom('answers')
    .innerJoin('questions', 'questions.id', 'answers.question_id')
    .select('questions.id')
    .distinct()
    .where('questions.org_id', '=', orgId)
    .where('answers.expert_id', '=', expertId)
    .execute()
  return rows.map((row) => row.id)
}

export async function replaceQuestionRows(
  db: Queryable,
  orgId: number,
  ids: number[],
  rows: QuestionSearchTable[],
): Promise<void> {
  await db
    .deleteFrom('question_search')
    .where(ofOrganization('org_id', orgId))
    .where('question_id', 'in', ids)
    .execute()
  await insertInChunks(db, rows, (batch) => db.insertInto('question_search').values(batch).execute())
}

/** The profiles among `ids` of one of `types` (by default any: the index holds experts and staff members). */
export async function readProfilesByIds(
  db: Queryable,
  orgId: number,
  ids: number[],
  types: readonly ProfileType[] = ['expert', 'staff'],
): Promise<ExpertRow[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('experts')
    .selectAll()
    .where(ofOrganization('org_id', orgId))
    .where('id', 'in', ids)
    .where('type', 'in', types)
    .execute()
}
