import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.js'
import { handlingView } from '../src/inquiries/mapping.js'
import { findInquiry } from '../src/inquiries/repository.js'
import { createOrganization } from '../src/organizations/repository.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

/**
 * Migration 0015 replaces `expert_email` with `recipients`, makes `username` optional (SQLite rebuilds
 * the column) and adds the handling columns: inquiries stored before it keep their expert, address
 * and fields, and come out `new`; going back down restores `expert_email`.
 */
describe('migration 0015_inquiry_desk', async () => {
  for (const { dialect, skip } of await testDialects()) {
    test(`keeps inquiries stored before it and their recipient (${dialect})`, { skip }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { db } = testDatabase.database
      const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
      try {
        const down = await migrator.migrateTo('0012_sanitize_embeds')
        assert.equal(down.error, undefined)
        const org = await createOrganization(db, { name: 'Before 0015' }, Date.now())
        await sql`insert into inquiries (org_id, username, expert_email, firstname, email, message, created_at, kind, kind_fields)
          values (${org.id}, 'grace', 'grace@uni.example', 'Ada', 'ada@example.org', 'Hi', 1700000000000, 'media', '{"media_type":"tv"}')`.execute(
          db,
        )

        assert.ok((await migrateToLatest(db)).includes('0015_inquiry_desk'))
        const [row] = await db.selectFrom('inquiries').select('id').where('org_id', '=', org.id).execute()
        const inquiry = row && (await findInquiry(db, org.id, row.id))
        assert.ok(inquiry)
        assert.equal(inquiry.username, 'grace')
        assert.equal(inquiry.message, 'Hi')
        assert.deepEqual(JSON.parse(inquiry.kind_fields), { media_type: 'tv' })
        const handling = handlingView(inquiry, null)
        assert.deepEqual(handling, {
          status: 'new',
          assignee: null,
          notes: null,
          recipients: [{ role: 'expert', email: 'grace@uni.example' }],
          redacted_at: null,
        })
        await db
          .insertInto('inquiries')
          .values({
            org_id: org.id,
            kind: 'general',
            username: null,
            recipients: '[]',
            firstname: 'Jo',
            email: 'jo@example.org',
            message: 'To the desk',
            kind_fields: '{}',
            created_at: 1700000001000,
          })
          .execute()

        const back = await migrator.migrateTo('0012_sanitize_embeds')
        assert.equal(back.error, undefined)
        const restored = await sql<{ username: string; expert_email: string }>`
          select username, expert_email from inquiries where org_id = ${org.id}`.execute(db)
        assert.deepEqual(
          restored.rows.map((kept) => [kept.username, kept.expert_email]),
          [['grace', 'grace@uni.example']],
        )
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
