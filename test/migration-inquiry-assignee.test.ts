import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Migrator, sql } from 'kysely'
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.js'
import { readInbox } from '../src/inquiries/inbox.js'
import { createOrganization } from '../src/organizations/repository.js'
import { createTestDatabase, testDialects } from './helpers/databases.js'

const MIGRATION = '0026_inquiry_assignee_people'
const names = Object.keys(MIGRATIONS).sort()
const BEFORE = names[names.indexOf(MIGRATION) - 1] ?? ''

/**
 * Migration 0026 turns an inquiry's assignee address into a person's id: an address that is the email
 * of a person of the same organization becomes that person; any other becomes a line of the notes
 * (the inquiry is then unassigned, its status kept). Going down restores the people's addresses.
 */
describe(`migration ${MIGRATION}`, async () => {
  for (const { dialect, skip } of await testDialects()) {
    test(`maps assignee addresses to people and keeps the others in the notes (${dialect})`, {
      skip,
    }, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const { db } = testDatabase.database
      const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
      try {
        assert.equal((await migrator.migrateTo(BEFORE)).error, undefined)
        const org = await createOrganization(db, { name: 'Before 0026' }, Date.now())
        const other = await createOrganization(db, { name: 'Elsewhere' }, Date.now())
        await sql`insert into people (org_id, email, email_key, name, role, created_at, updated_at)
          values (${org.id}, 'Press@Uni.example', 'press@uni.example', 'Pat Press', 'inquiries', 1, 1),
                 (${other.id}, 'desk@other.example', 'desk@other.example', 'Dee Desk', 'owner', 1, 1)`.execute(
          db,
        )
        const inquiry = (orgId: number, assignee: string | null, notes: string | null, status: string) =>
          sql`insert into inquiries (org_id, kind, username, recipients, firstname, email, message, kind_fields, created_at, status, assignee, notes)
            values (${orgId}, 'general', null, '[]', 'Ada', 'ada@example.org', 'Hi', '{}', 1700000000000, ${status}, ${assignee}, ${notes})`.execute(
            db,
          )
        await inquiry(org.id, 'press@uni.example', null, 'assigned')
        await inquiry(org.id, 'gone@uni.example', 'Call back on Monday', 'assigned')
        // Another organization's person is nobody here.
        await inquiry(org.id, 'desk@other.example', null, 'answered')
        await inquiry(org.id, null, 'Left alone', 'new')

        assert.ok((await migrateToLatest(db)).includes(MIGRATION))
        const rows = await db
          .selectFrom('inquiries')
          .select(['assignee_id', 'notes', 'status'])
          .where('org_id', '=', org.id)
          .orderBy('id')
          .execute()
        const press = await db
          .selectFrom('people')
          .select('id')
          .where('email_key', '=', 'press@uni.example')
          .executeTakeFirstOrThrow()
        assert.deepEqual(
          rows.map((row) => [
            row.assignee_id === null ? null : Number(row.assignee_id),
            row.notes,
            row.status,
          ]),
          [
            [Number(press.id), null, 'assigned'],
            [
              null,
              'Call back on Monday\n\nAssigned to gone@uni.example before assignees were people; no person has that address.',
              'assigned',
            ],
            [
              null,
              'Assigned to desk@other.example before assignees were people; no person has that address.',
              'answered',
            ],
            [null, 'Left alone', 'new'],
          ],
        )
        const page = await readInbox(db, org.id, { assignee: Number(press.id) })
        assert.deepEqual(
          page.items.map((item) => item.assignee),
          [{ id: Number(press.id), name: 'Pat Press', email: 'Press@Uni.example' }],
        )

        assert.equal((await migrator.migrateTo(BEFORE)).error, undefined)
        const restored = await sql<{ assignee: string | null }>`
          select assignee from inquiries where org_id = ${org.id} order by id`.execute(db)
        assert.deepEqual(
          restored.rows.map((row) => row.assignee),
          ['press@uni.example', null, null, null],
        )
      } finally {
        await testDatabase.drop()
      }
    })
  }
})
