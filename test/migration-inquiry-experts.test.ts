import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import type { Queryable } from '../src/db/database.js'
import { MIGRATIONS } from '../src/db/migrate.js'
import { createOrganization } from '../src/organizations/repository.js'
import { searchQuestions } from '../src/search/service.js'
import { migrateDatabase } from '../src/system/migrate.js'
import { present } from './helpers/checked.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

const MIGRATION = '0020_inquiry_experts_and_hidden_answers'

async function insertExpert(
  db: Queryable,
  orgId: number,
  username: string,
  flags: { is_published: number; is_private: number },
): Promise<number> {
  await sql`insert into usernames (org_id, username, created_at) values (${orgId}, ${username}, 1)`.execute(
    db,
  )
  const { rows } = await sql<{ id: number }>`insert into experts (org_id, username, firstname, lastname,
    job_title, email, email_key, company, is_published, is_private, created_at, updated_at)
    values (${orgId}, ${username}, 'First', ${username}, 'Professor', ${`${username}@uni.example`},
    ${`${username}@uni.example`}, 'Uni', ${flags.is_published}, ${flags.is_private}, 1, 1)
    returning id`.execute(db)
  return Number(rows[0]?.id)
}

async function insertInquiry(db: Queryable, orgId: number, username: string | null): Promise<number> {
  const { rows } = await sql<{ id: number }>`insert into inquiries (org_id, kind, username, firstname,
    email, message, created_at) values (${orgId}, 'general', ${username}, 'Sam', 'sam@example.org',
    'Hello', 1) returning id`.execute(db)
  return Number(rows[0]?.id)
}

/**
 * Migration 0020: inquiries learn their expert's id (found through its username now, or through a
 * rename's redirect), and the Q&A index keeps hidden experts' answers apart, rebuilt by the step after
 * the migrations.
 */
describe(`migration ${MIGRATION}`, async () => {
  const names = Object.keys(MIGRATIONS).sort()
  const before = present(names[names.indexOf(MIGRATION) - 1])
  for (const { dialect, skip } of await testDialects()) {
    test(`gives existing inquiries their expert and indexes hidden answers apart (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { db } = testDatabase.database
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
        const down = await migrator.migrateTo(before)
        assert.equal(down.error, undefined)
        assert.ok(down.results?.some((result) => result.migrationName === MIGRATION))

        const org = await createOrganization(db, { name: 'Before 0020' }, Date.now())
        const ada = await insertExpert(db, org.id, 'ada', { is_published: 1, is_private: 0 })
        const renamed = await insertExpert(db, org.id, 'bo-new', { is_published: 1, is_private: 0 })
        const draft = await insertExpert(db, org.id, 'cy', { is_published: 0, is_private: 0 })
        await sql`insert into username_redirects (org_id, username, expert_id, created_at)
          values (${org.id}, 'bo-old', ${renamed}, 1)`.execute(db)
        const toAda = await insertInquiry(db, org.id, 'ada')
        const beforeRename = await insertInquiry(db, org.id, 'bo-old')
        const toGone = await insertInquiry(db, org.id, 'gone')
        const toDesk = await insertInquiry(db, org.id, null)

        const { rows } = await sql<{ id: number }>`insert into questions (org_id, external_key, question,
          published, created_at, updated_at) values (${org.id}, 'q', 'Where is wisdom?', 1, 1, 1)
          returning id`.execute(db)
        const question = Number(rows[0]?.id)
        for (const [position, expert, answer] of [
          [0, ada, '<p>Visible wisdom</p>'],
          [1, draft, '<p>Secret wisdom</p>'],
        ] as const) {
          await sql`insert into answers (question_id, expert_id, external_key, position, answer, created_at)
            values (${question}, ${expert}, ${`a${position}`}, ${position}, ${answer}, 1)`.execute(db)
        }
        await sql`insert into question_search (question_id, org_id, question, details, answers, published,
          sort_date, year, month) values (${question}, ${org.id}, 'Where is wisdom?', '',
          'Visible wisdom Secret wisdom', 1, 1, 1970, 1)`.execute(db)

        const run = await migrateDatabase(testDatabase.database)
        assert.ok(run.applied.includes(MIGRATION))
        assert.deepEqual(run.rebuiltSearch, [org.id], 'the answered question is indexed again')

        const experts = await db.selectFrom('inquiries').select(['id', 'expert_id']).orderBy('id').execute()
        assert.deepEqual(
          experts.map((row) => [row.id, row.expert_id === null ? null : Number(row.expert_id)]),
          [
            [toAda, ada],
            [beforeRename, renamed],
            [toGone, null],
            [toDesk, null],
          ],
        )
        const indexed = await db
          .selectFrom('question_search')
          .select(['answers', 'hidden_answers'])
          .where('question_id', '=', question)
          .executeTakeFirstOrThrow()
        assert.deepEqual({ ...indexed }, { answers: 'Visible wisdom', hidden_answers: 'Secret wisdom' })

        const target = { db, dialect: testDatabase.database.dialect }
        const search = (q: string, audience: 'public' | 'all') =>
          searchQuestions(target, org.id, { q }, audience).then((result) => result.total)
        assert.equal(await search('secret', 'public'), 0)
        assert.equal(await search('secret', 'all'), 1)
        assert.equal(await search('visible wisdom', 'public'), 1)
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
