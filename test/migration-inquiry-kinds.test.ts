import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.js'
import { inquiryFields } from '../src/inquiries/mapping.js'
import { findInquiry } from '../src/inquiries/repository.js'
import { createOrganization } from '../src/organizations/repository.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

/**
 * Migration 0007 moves the donor and event columns into `kind_fields`: inquiries stored before it
 * keep every field, and going back down restores the columns.
 */
describe('migration 0007_inquiry_kinds', async () => {
  for (const { dialect, skip } of await testDialects()) {
    test(`keeps the fields of donor and event inquiries stored before it (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { db } = testDatabase.database
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
        const down = await migrator.migrateTo('0006_search')
        assert.equal(down.error, undefined)
        assert.ok(down.results?.some((result) => result.migrationName === '0007_inquiry_kinds'))
        const org = await createOrganization(db, { name: 'Before 0007' }, Date.now())
        const common = sql`${org.id}, 'grace', 'grace@uni.example', 'Ada', 'ada@example.org', 'Hi', 1700000000000`
        await sql`insert into inquiries (org_id, username, expert_email, firstname, email, message, created_at, kind, donor_type, donor_focus)
          values (${common}, 'donor', 'ngo', 'bequests')`.execute(db)
        await sql`insert into inquiries (org_id, username, expert_email, firstname, email, message, created_at, kind, event_name, event_location, event_date, event_description)
          values (${common}, 'event', 'Gala', 'Toronto', 1767225600, 'Dinner')`.execute(db)

        assert.ok((await migrateToLatest(db)).includes('0007_inquiry_kinds'))
        const rows = await db
          .selectFrom('inquiries')
          .select('id')
          .where('org_id', '=', org.id)
          .orderBy('id')
          .execute()
        const [donor, event] = await Promise.all(rows.map((row) => findInquiry(db, org.id, row.id)))
        assert.ok(donor && event)
        assert.deepEqual(JSON.parse(donor.kind_fields), { donor_type: 'ngo', donor_focus: 'bequests' })
        assert.deepEqual(JSON.parse(event.kind_fields), {
          event_name: 'Gala',
          event_location: 'Toronto',
          event_date: 1767225600,
          event_description: 'Dinner',
        })
        assert.equal(inquiryFields(event).event_date, 1767225600)
        assert.ok(!('donor_type' in donor), 'the old columns are gone')
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
