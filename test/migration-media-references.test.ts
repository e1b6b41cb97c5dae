import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import { MIGRATIONS } from '../src/db/migrate.js'
import { createOrganization } from '../src/organizations/repository.js'
import { migrateDatabase } from '../src/system/migrate.js'
import { present } from './helpers/checked.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

const MIGRATION = '0027_media_references'
const NAME = '0123456789abcdef0123456789abcdef'

/**
 * Migration 0027 turns the absolute URLs of stored photos (with the host and port of their upload) into
 * media references, leaves other URLs alone, and drops the expert read documents that held them.
 */
describe(`migration ${MIGRATION}`, async () => {
  const names = Object.keys(MIGRATIONS).sort()
  const before = present(names[names.indexOf(MIGRATION) - 1])
  for (const { dialect, skip } of await testDialects()) {
    test(`stores our own photo URLs as references and drops expert documents (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { database } = testDatabase
      const { db } = database
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
        assert.equal((await migrator.migrateTo(before)).error, undefined)
        const org = await createOrganization(db, { name: 'Before 0027' }, Date.now())
        await sql`insert into usernames (org_id, username, created_at) values (${org.id}, 'ada', 1)`.execute(
          db,
        )
        await sql`insert into experts (org_id, username, firstname, lastname, job_title, email, email_key, company,
          is_published, is_private, created_at, updated_at)
          values (${org.id}, 'ada', 'Ada', 'Lovelace', 'Engineer', 'ada@uni.example', 'ada@uni.example', 'Uni',
          1, 0, 1, 1) returning id`.execute(db)
        const { rows } = await sql<{ id: number }>`select id from experts where username = 'ada'`.execute(db)
        const expertId = Number(rows[0]?.id)
        const old = {
          s: { url: `http://127.0.0.1:3000/media/${org.id}/${NAME}`, width: 64, height: 64 },
          m: { url: `https://old.example.edu/experts/media/${org.id}/${NAME}`, width: 200, height: 200 },
          l: { url: 'https://cdn.example.org/photos/ada.jpg', width: 400, height: 400 },
          o: { url: `http://127.0.0.1:3000/media/${org.id + 1}/${NAME}`, width: 640, height: 480 },
        }
        await sql`insert into profile_items (expert_id, org_id, section, position, external_key, data)
          values (${expertId}, ${org.id}, 'avatar', 0, '#0', ${JSON.stringify(old)})`.execute(db)
        const link = { url: `http://127.0.0.1:3000/media/${org.id}/${NAME}.pdf`, name: 'CV' }
        await sql`insert into profile_items (expert_id, org_id, section, position, external_key, data)
          values (${expertId}, ${org.id}, 'link', 0, '#0', ${JSON.stringify(link)})`.execute(db)
        await sql`insert into read_documents (kind, record_id, audience, org_id, record_version, org_version, etag, body)
          values ('expert', ${expertId}, 'full', ${org.id}, 1, 1, '"old"', ${Buffer.from(JSON.stringify(old))})`.execute(
          db,
        )

        await migrateDatabase(database)

        const items = await sql<{ section: string; data: string }>`select section, data from profile_items
          where expert_id = ${expertId} order by section`.execute(db)
        const bySection = Object.fromEntries(items.rows.map((row) => [row.section, JSON.parse(row.data)]))
        assert.deepEqual(bySection.avatar, {
          s: { url: `/media/${org.id}/${NAME}`, width: 64, height: 64 },
          m: { url: `/media/${org.id}/${NAME}`, width: 200, height: 200 },
          l: { url: 'https://cdn.example.org/photos/ada.jpg', width: 400, height: 400 },
          // Another organization's file is not this one's to claim.
          o: { url: `http://127.0.0.1:3000/media/${org.id + 1}/${NAME}`, width: 640, height: 480 },
        })
        assert.deepEqual(bySection.link, link, 'only photos are converted')
        const documents = await sql<{ n: number }>`select count(*) as n from read_documents
          where kind = 'expert'`.execute(db)
        assert.equal(Number(documents.rows[0]?.n), 0)
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
