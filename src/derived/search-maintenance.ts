import { CONTENT_KIND_NAMES, CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import { profileVisibleTo } from './audience.js'
import { expertDocument, questionDocument, spotlightDocument } from './search-documents.js'
import {
  bumpExpertSearchVersion,
  deleteExpertRows,
  listIds,
  questionsAnsweredBy,
  readAnswersForIndex,
  readIndexedFlags,
  readItemsForIndex,
  readProfilesByIds,
  readQuestionsForIndex,
  readSpotlightsForIndex,
  readTagNamesForIndex,
  replaceExpertRows,
  replaceQuestionRows,
  replaceSpotlightRows,
  setExpertsModified,
} from './search-index.js'

/**
 * Keeping the search index current. Every write path calls these in its own transaction, after
 * its write, so the index never disagrees with a committed state; each raises the organization's
 * index version in that transaction, which retires the search results kept under the old one. Each rebuilds the index rows
 * from the tables (it does not trust the caller's idea of what changed), so calling one too often
 * is only a cost, never an error.
 */

const BATCH = 500

function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row])
  return groups
}

/**
 * Indexes the profiles `ids` (experts and staff members); returns those indexed before whose visibility to the public changed: the
 * questions they answered hold their answers in the other column now. (A question's index row reads
 * its experts' flags from the experts themselves, so one not indexed yet needs nothing more.)
 */
async function indexExperts(db: Queryable, orgId: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return []
  const experts = await readProfilesByIds(db, orgId, ids)
  const indexed = new Map(
    (await readIndexedFlags(db, orgId, ids)).map((row) => [Number(row.expert_id), row] as const),
  )
  const items = groupBy(await readItemsForIndex(db, orgId, ids), (item) => item.expert_id)
  const documents = experts.map((expert) => expertDocument(expert, items.get(expert.id) ?? []))
  await replaceExpertRows(
    db,
    orgId,
    ids,
    documents.map((d) => d.row),
    documents.flatMap((d) => d.facets),
  )
  return experts
    .filter((expert) => {
      const before = indexed.get(expert.id)
      return before !== undefined && profileVisibleTo('public', before) !== profileVisibleTo('public', expert)
    })
    .map((expert) => expert.id)
}

/** Indexes again the questions `expertIds` answered (their visibility changed). */
async function indexAnswersOf(db: Queryable, orgId: number, expertIds: number[]): Promise<void> {
  for (const expertId of expertIds)
    await indexQuestions(db, orgId, await questionsAnsweredBy(db, orgId, expertId))
}

async function indexSpotlights(db: Queryable, orgId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return
  const posts = await readSpotlightsForIndex(db, orgId, ids)
  const tags = await readTagNamesForIndex(db, orgId, CONTENT_KINDS.spotlight.taggings, ids)
  await replaceSpotlightRows(
    db,
    orgId,
    ids,
    posts.map((post) => spotlightDocument(post, tags.get(post.id) ?? [])),
  )
}

async function indexQuestions(db: Queryable, orgId: number, ids: number[], exceptExpert?: number) {
  if (ids.length === 0) return
  const questions = await readQuestionsForIndex(db, orgId, ids)
  const answers = groupBy(await readAnswersForIndex(db, orgId, ids, exceptExpert), (row) => row.question_id)
  const tags = await readTagNamesForIndex(db, orgId, CONTENT_KINDS.question.taggings, ids)
  await replaceQuestionRows(
    db,
    orgId,
    ids,
    questions.map((question) =>
      questionDocument(
        question,
        (answers.get(question.id) ?? []).map((row) => ({
          answer: row.answer,
          visible: profileVisibleTo('public', row),
        })),
        tags.get(question.id) ?? [],
      ),
    ),
  )
}

/** Rebuilds one expert's index row and facet values (or removes them if the expert is gone). */
export async function refreshExpertSearch(db: Queryable, orgId: number, expertId: number): Promise<void> {
  await bumpExpertSearchVersion(db, orgId)
  await indexAnswersOf(db, orgId, await indexExperts(db, orgId, [expertId]))
}

/** As refreshExpertSearch, for many experts at once (an import). */
export async function refreshExpertsSearch(db: Queryable, orgId: number, expertIds: number[]): Promise<void> {
  if (expertIds.length > 0) await bumpExpertSearchVersion(db, orgId)
  for (let i = 0; i < expertIds.length; i += BATCH)
    await indexAnswersOf(db, orgId, await indexExperts(db, orgId, expertIds.slice(i, i + BATCH)))
}

/** Every expert of the organization changed without a change to what is searched (the organization profile). */
export async function touchExpertsSearch(db: Queryable, orgId: number, now: number): Promise<void> {
  await bumpExpertSearchVersion(db, orgId)
  await setExpertsModified(db, orgId, now)
}

/**
 * Removes an expert from the index. Call it *before* deleting the expert: the questions it answered
 * are re-indexed without its answers (which the delete removes with it).
 */
export async function removeExpertSearch(db: Queryable, orgId: number, expertId: number): Promise<void> {
  await bumpExpertSearchVersion(db, orgId)
  await deleteExpertRows(db, orgId, [expertId])
  await indexQuestions(db, orgId, await questionsAnsweredBy(db, orgId, expertId), expertId)
}

/** Each content kind's indexer: rebuilds the index rows of its items `ids` (removes those that are gone). */
const CONTENT_INDEXERS: Record<ContentKind, (db: Queryable, orgId: number, ids: number[]) => Promise<void>> =
  {
    spotlight: indexSpotlights,
    question: (db, orgId, ids) => indexQuestions(db, orgId, ids),
  }

/** Rebuilds one post's or question's index row, a question's answers included (or removes it if the item is gone). */
export async function refreshContentSearch(
  db: Queryable,
  orgId: number,
  kind: ContentKind,
  id: number,
): Promise<void> {
  await CONTENT_INDEXERS[kind](db, orgId, [id])
}

/**
 * Rebuilds the whole index of an organization, in batches (src/derived/search-rebuild.ts: after migrations,
 * `expertdir search rebuild`). It leaves the index version to its caller.
 */
export async function rebuildSearchIndex(db: Queryable, orgId: number): Promise<void> {
  for (let after = 0; ; ) {
    const ids = await listIds(db, 'experts', orgId, after, BATCH)
    const last = ids.at(-1)
    if (last === undefined) break
    await indexExperts(db, orgId, ids)
    after = last
  }
  for (const kind of CONTENT_KIND_NAMES) {
    for (let after = 0; ; ) {
      const ids = await listIds(db, CONTENT_KINDS[kind].table, orgId, after, BATCH)
      const last = ids.at(-1)
      if (last === undefined) break
      await CONTENT_INDEXERS[kind](db, orgId, ids)
      after = last
    }
  }
}
