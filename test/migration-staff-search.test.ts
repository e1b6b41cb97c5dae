import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import type { Queryable } from '../src/db/database.js'
import { MIGRATIONS } from '../src/db/migrate.js'
import { createOrganization } from '../src/organizations/repository.js'
import { listPeople } from '../src/staff/service.js'
import { migrateDatabase } from '../src/system/migrate.js'
import { present } from './helpers/checked.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

const MIGRATION = '0024_staff_search'

async function insertProfile(db: Queryable, orgId: number, username: string, type: 'expert' | 'staff') {
  await sql`insert into usernames (org_id, username, created_at) values (${orgId}, ${username}, 1)`.execute(
    db,
  )
  await sql`insert into experts (org_id, username, firstname, lastname, job_title, email, email_key, company,
    is_published, is_private, created_at, updated_at, type)
    values (${orgId}, ${username}, 'Sam', ${username}, 'Registrar', ${`${username}@uni.example`},
    ${`${username}@uni.example`}, 'Uni', 1, 0, 1, 1, ${type})`.execute(db)
}

async function indexed(db: Queryable, orgId: number) {
  const { rows } = await sql<{ username: string }>`select username from expert_search
    where org_id = ${orgId} order by username`.execute(db)
  return rows.map((row) => row.username)
}

/**
 * Migration 0024 types the search index's rows; the step after the migrations indexes the staff members
 * stored before it, so the staff lists' `q` finds them; down removes their rows and keeps the experts'.
 */
describe(`migration ${MIGRATION}`, async () => {
  const names = Object.keys(MIGRATIONS).sort()
  const before = present(names[names.indexOf(MIGRATION) - 1])
  for (const { dialect, skip } of await testDialects()) {
    test(`indexes existing staff members with their type, and down drops them (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { database } = testDatabase
      const { db } = database
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
        assert.equal((await migrator.migrateTo(before)).error, undefined)
        const org = await createOrganization(db, { name: 'Before 0024' }, Date.now())
        await insertProfile(db, org.id, 'old-expert', 'expert')
        await insertProfile(db, org.id, 'old-staff', 'staff')
        await migrateDatabase(database)
        assert.deepEqual(await indexed(db, org.id), ['old-expert', 'old-staff'])
        const { rows } = await sql<{ username: string; type: string }>`select username, type
          from expert_search where org_id = ${org.id} order by username`.execute(db)
        assert.deepEqual(
          rows.map((row) => [row.username, row.type]),
          [
            ['old-expert', 'expert'],
            ['old-staff', 'staff'],
          ],
        )
        const found = await listPeople({ db, dialect }, org.id, ['staff'], { q: 'registrar' }, 'public')
        assert.deepEqual(
          found.people.map((person) => person.username),
          ['old-staff'],
        )
        assert.equal(found.total, 1)

        assert.equal((await migrator.migrateTo(before)).error, undefined)
        assert.deepEqual(await indexed(db, org.id), ['old-expert'])
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
