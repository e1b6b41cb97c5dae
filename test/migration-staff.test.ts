import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.js'
import { findExpert } from '../src/experts/repository.js'
import { createOrganization } from '../src/organizations/repository.js'
import { present } from './helpers/checked.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

/** Migration 0016 adds the profile type: every profile stored before it is an expert, and stays one. */
describe('migration 0016_staff', async () => {
  const names = Object.keys(MIGRATIONS).sort()
  const before = present(names[names.indexOf('0016_staff') - 1])
  for (const { dialect, skip } of await testDialects()) {
    test(`makes every existing profile an expert and accepts only the two types (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { db } = testDatabase.database
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
        const down = await migrator.migrateTo(before)
        assert.equal(down.error, undefined)
        assert.ok(down.results?.some((result) => result.migrationName === '0016_staff'))
        const org = await createOrganization(db, { name: 'Before 0016' }, Date.now())
        await sql`insert into usernames (org_id, username, created_at) values (${org.id}, 'old-timer', 1)`.execute(
          db,
        )
        await sql`insert into experts (org_id, username, firstname, lastname, job_title, email, email_key, company,
          is_published, is_private, created_at, updated_at)
          values (${org.id}, 'old-timer', 'Old', 'Timer', 'Professor', 'old@uni.example', 'old@uni.example', 'Uni',
          1, 0, 1, 1)`.execute(db)

        assert.ok((await migrateToLatest(db)).includes('0016_staff'))
        const expert = await findExpert(db, org.id, 'old-timer', 'expert')
        assert.equal(expert?.type, 'expert')
        assert.equal(await findExpert(db, org.id, 'old-timer', 'staff'), undefined)
        await assert.rejects(
          sql`update experts set type = 'robot' where username = 'old-timer'`.execute(db),
          'the column accepts only expert and staff',
        )
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
