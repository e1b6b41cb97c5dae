import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import { cliWriteContext } from '../src/audit/write-context.js'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import { createExpert } from '../src/experts/service.js'
import { createOrganization } from '../src/organizations/repository.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

/**
 * Migration 0014 makes usernames unique per organization: every username stays as it is, nothing that
 * references an expert is lost (SQLite rebuilds the table), and every name ever handed out stays
 * reserved in its organization, or in every organization when the service never recorded which.
 */
describe('migration 0014_usernames_per_organization', async () => {
  for (const { dialect, skip } of await testDialects()) {
    test(`keeps every username, every expert's records and every reservation (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { db } = testDatabase.database
      try {
        await migrateTo(db, '0012_sanitize_embeds')
        const now = Date.now()
        const one = await createOrganization(db, { name: 'One' }, now)
        const two = await createOrganization(db, { name: 'Two' }, now)
        for (const name of ['ann-lee', 'ann-lee-2', 'gone-with-inquiry', 'gone-without-trace'])
          await sql`insert into usernames (username, created_at) values (${name}, ${now})`.execute(db)
        const expert = (orgId: number, username: string) => ({
          org_id: orgId,
          username,
          firstname: 'Ann',
          lastname: 'Lee',
          job_title: 'Chemist',
          email: `${username}@example.org`,
          email_key: `${username}@example.org`,
          company: 'Lab',
          is_published: 1,
          is_private: 0,
          created_at: now,
          updated_at: now,
        })
        const { id: annId } = await db
          .insertInto('experts')
          .values(expert(one.id, 'ann-lee'))
          .returning('id')
          .executeTakeFirstOrThrow()
        await db.insertInto('experts').values(expert(two.id, 'ann-lee-2')).execute()
        await db
          .insertInto('profile_items')
          .values({
            expert_id: annId,
            org_id: one.id,
            section: 'tagline',
            position: 0,
            external_key: '#0',
            data: '{"tagline":"Kept"}',
          })
          .execute()
        await sql`insert into inquiries (org_id, kind, username, expert_email, firstname, email, message, kind_fields, created_at)
          values (${two.id}, 'general', 'gone-with-inquiry', 'x@example.org', 'Ada', 'ada@example.org', 'Hi', '{}', ${now})`.execute(
          db,
        )

        assert.ok((await migrateToLatest(db)).includes('0014_usernames_per_organization'))

        const experts = await db.selectFrom('experts').select(['org_id', 'username']).orderBy('id').execute()
        assert.deepEqual(
          experts.map((row) => ({ ...row, org_id: Number(row.org_id) })),
          [
            { org_id: one.id, username: 'ann-lee' },
            { org_id: two.id, username: 'ann-lee-2' },
          ],
        )
        const items = await db
          .selectFrom('profile_items')
          .select('data')
          .where('expert_id', '=', annId)
          .execute()
        assert.deepEqual(
          items.map((row) => row.data),
          ['{"tagline":"Kept"}'],
          'the rebuild kept what references the expert',
        )
        const ledger = await db
          .selectFrom('usernames')
          .select(['org_id', 'username'])
          .orderBy('username')
          .orderBy('org_id')
          .execute()
        assert.deepEqual(
          ledger.map((row) => `${row.org_id}:${row.username}`),
          [
            `${one.id}:ann-lee`,
            `${two.id}:ann-lee-2`,
            `${two.id}:gone-with-inquiry`,
            `${one.id}:gone-without-trace`,
            `${two.id}:gone-without-trace`,
          ],
        )
        const input = { firstname: 'Ann', lastname: 'Lee', job_title: 'Chemist', company: 'Lab' }
        assert.equal(
          await createExpert(cliWriteContext(db, two.id, 'test setup', now), {
            ...input,
            email: 'new@example.org',
          }),
          'ann-lee',
          'a name free in its organization is free, whatever another organization holds',
        )
        const three = await createOrganization(db, { name: 'Three' }, now)
        assert.equal(
          await createExpert(cliWriteContext(db, three.id, 'test setup', now), {
            ...input,
            email: 'three@example.org',
          }),
          'ann-lee',
        )
        await assert.rejects(
          db.insertInto('experts').values(expert(one.id, 'ann-lee')).execute(),
          'unique per organization, in the database',
        )
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
