/**
 * The benchmark dataset. The demo content goes in through the import code (src/import), so
 * every row shape is the import's own; then its experts, posts and questions are cloned in large
 * batched inserts inside one transaction per table (the import writes record by record, which is
 * far too slow for hundreds of thousands of rows).
 */

import { type Insertable, type Kysely, sql } from 'kysely'
import { cliWriteContext } from '../src/audit/write-context.js'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import { isPostgres } from '../src/db/migrations/columns.js'
import type { DB } from '../src/db/schema.js'
import { seedDemo } from '../src/demo/seed.js'
import { createOrganization } from '../src/organizations/repository.js'

export interface DatasetSizes {
  /** Experts with every section the demo fills (about 35 stored items each). */
  fullExperts: number
  /** Experts with a few sections only (the `--scale` run). */
  lightExperts: number
  posts: number
  questions: number
}

export interface Dataset {
  orgId: number
  client: IssuedClient
  /** The fully filled expert every profile read asks for. */
  username: string
  spotlightId: number
  questionId: number
  counts: { experts: number; profileItems: number; posts: number; questions: number; answers: number }
  seconds: number
}

/** Rows per INSERT: stays under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters. */
function batchSize(columns: number): number {
  return Math.floor(30_000 / columns)
}

async function insertBatched<T extends keyof DB>(
  db: Kysely<DB>,
  table: T,
  rows: Insertable<DB[T]>[],
): Promise<void> {
  if (rows.length === 0) return
  const size = batchSize(Object.keys(rows[0] as object).length)
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < rows.length; start += size) {
      // A generic table name defeats Kysely's typing; the rows were typed by the caller.
      await (trx as unknown as Kysely<Record<string, Record<string, unknown>>>)
        .insertInto(table as string)
        .values(rows.slice(start, start + size) as Record<string, unknown>[])
        .execute()
    }
  })
}

/** Builds the dataset into a migrated, empty database. */
export async function buildDataset(db: Kysely<DB>, sizes: DatasetSizes, now: number): Promise<Dataset> {
  const started = performance.now()
  const org = await createOrganization(db, { name: 'Bench University' }, now)
  const client = await createClient(db, org.id, 'bench', now)
  const seeded = await seedDemo(cliWriteContext(db, org.id, 'bench', now))

  // The measured expert: the demo expert with the most items, also tagged in posts and answering questions.
  const items = await db.selectFrom('profile_items').selectAll().where('org_id', '=', org.id).execute()
  const byExpert = new Map<number, typeof items>()
  for (const item of items) byExpert.set(item.expert_id, [...(byExpert.get(item.expert_id) ?? []), item])
  const [templateId, template] = [...byExpert.entries()].sort((a, b) => b[1].length - a[1].length)[0] as [
    number,
    typeof items,
  ]
  const templateExpert = await db
    .selectFrom('experts')
    .selectAll()
    .where('id', '=', templateId)
    .executeTakeFirstOrThrow()
  const lightTemplate = template.filter((item) =>
    ['biography', 'tagline', 'topic', 'language', 'education'].includes(item.section),
  )

  const maxId = async (table: 'experts' | 'spotlights' | 'questions') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.max('id').as('max'))
          .executeTakeFirst()
      )?.max ?? 0,
    )

  // Experts, with explicit ids so their items can be written without reading the ids back.
  const total = sizes.fullExperts + sizes.lightExperts
  let nextExpertId = (await maxId('experts')) + 1
  const firstCloneId = nextExpertId
  const experts: Insertable<DB['experts']>[] = []
  const usernames: Insertable<DB['usernames']>[] = []
  const profileItems: Insertable<DB['profile_items']>[] = []
  const { id: _id, ...expertColumns } = templateExpert
  for (let i = 0; i < total; i++) {
    const id = nextExpertId++
    const username = `bench-expert-${String(i + 1).padStart(6, '0')}`
    const email = `${username}@bench.example`
    experts.push({ ...expertColumns, id, username, email, email_key: email })
    usernames.push({ org_id: org.id, username, created_at: now })
    for (const item of i < sizes.fullExperts ? template : lightTemplate) {
      const { id: _itemId, ...columns } = item
      profileItems.push({ ...columns, expert_id: id })
    }
  }
  await insertBatched(db, 'usernames', usernames)
  await insertBatched(db, 'experts', experts)
  await insertBatched(db, 'profile_items', profileItems)
  const expertIds = (i: number) => firstCloneId + (i % Math.max(1, total))

  // Posts: clones of the demo posts, each tagging two generated experts; every 50th also the measured one.
  const demoPosts = await db.selectFrom('spotlights').selectAll().where('org_id', '=', org.id).execute()
  const demoPostTags = await db.selectFrom('spotlight_tags').selectAll().execute()
  let nextPostId = (await maxId('spotlights')) + 1
  const posts: Insertable<DB['spotlights']>[] = []
  const postExperts: Insertable<DB['spotlight_experts']>[] = []
  const postTags: Insertable<DB['spotlight_tags']>[] = []
  const postsToAdd = Math.max(0, sizes.posts - demoPosts.length)
  for (let i = 0; i < postsToAdd; i++) {
    const source = demoPosts[i % demoPosts.length] as (typeof demoPosts)[number]
    const id = nextPostId++
    const { id: _postId, ...columns } = source
    posts.push({ ...columns, id, external_key: `bench-post-${i + 1}`, published_at: now - i * 60_000 })
    const tagged = [expertIds(2 * i), expertIds(2 * i + 1), ...(i % 50 === 0 ? [templateId] : [])]
    tagged.forEach((expertId, position) => {
      postExperts.push({ spotlight_id: id, expert_id: expertId, position })
    })
    for (const tag of demoPostTags.filter((t) => t.owner_id === source.id)) {
      postTags.push({ owner_id: id, content_tag_id: tag.content_tag_id, position: tag.position })
    }
  }
  await insertBatched(db, 'spotlights', posts)
  await insertBatched(db, 'spotlight_experts', postExperts)
  await insertBatched(db, 'spotlight_tags', postTags)

  // Questions: clones of the demo questions, answered by generated experts (every 50th by the measured one).
  const demoQuestions = await db.selectFrom('questions').selectAll().where('org_id', '=', org.id).execute()
  const demoAnswers = await db.selectFrom('answers').selectAll().execute()
  const demoQuestionTags = await db.selectFrom('question_tags').selectAll().execute()
  let nextQuestionId = (await maxId('questions')) + 1
  const questions: Insertable<DB['questions']>[] = []
  const answers: Insertable<DB['answers']>[] = []
  const questionTags: Insertable<DB['question_tags']>[] = []
  const questionsToAdd = Math.max(0, sizes.questions - demoQuestions.length)
  for (let i = 0; i < questionsToAdd; i++) {
    const source = demoQuestions[i % demoQuestions.length] as (typeof demoQuestions)[number]
    const id = nextQuestionId++
    const { id: _questionId, ...columns } = source
    questions.push({
      ...columns,
      id,
      external_key: `bench-question-${i + 1}`,
      published_at: now - i * 60_000,
    })
    demoAnswers
      .filter((answer) => answer.question_id === source.id)
      .forEach((answer, position) => {
        const { id: _answerId, ...answerColumns } = answer
        answers.push({
          ...answerColumns,
          question_id: id,
          expert_id: i % 50 === 0 ? templateId : expertIds(i + position),
        })
      })
    for (const tag of demoQuestionTags.filter((t) => t.owner_id === source.id)) {
      questionTags.push({ owner_id: id, content_tag_id: tag.content_tag_id, position: tag.position })
    }
  }
  await insertBatched(db, 'questions', questions)
  await insertBatched(db, 'answers', answers)
  await insertBatched(db, 'question_tags', questionTags)

  if (isPostgres(db as unknown as Kysely<unknown>)) {
    // Explicit ids leave the identity sequences behind; later inserts must not collide.
    for (const table of ['experts', 'spotlights', 'questions']) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), (select max(id) from ${sql.table(table)}))`.execute(
        db,
      )
    }
    // Fresh statistics, as autovacuum would gather after a bulk load: without them the planner
    // takes the tables for nearly empty and picks scans.
    await sql`analyze`.execute(db)
  }
  const count = async (table: 'experts' | 'profile_items' | 'spotlights' | 'questions' | 'answers') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      )?.n ?? 0,
    )
  return {
    orgId: org.id,
    client,
    username: templateExpert.username,
    spotlightId: seeded.spotlights[0] as number,
    questionId: seeded.questions[0] as number,
    counts: {
      experts: await count('experts'),
      profileItems: await count('profile_items'),
      posts: await count('spotlights'),
      questions: await count('questions'),
      answers: await count('answers'),
    },
    seconds: (performance.now() - started) / 1000,
  }
}
