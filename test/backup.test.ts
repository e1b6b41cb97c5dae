import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Type } from 'typebox'
import { cliWriteContext } from '../src/audit/write-context.js'
import { createClient } from '../src/auth/clients.js'
import { openDatabase } from '../src/db/database.js'
import { MIGRATIONS, migrateToLatest } from '../src/db/migrate.js'
import { createExpert } from '../src/experts/service.js'
import { insertInquiry } from '../src/inquiries/repository.js'
import { createOrganization } from '../src/organizations/repository.js'
import { parsed } from './helpers/checked.js'
import { runCli, type ServerProcess, startServerProcess } from './helpers/cli.js'
import { createTestDatabase, type TestDatabase, testDialects } from './helpers/databases.js'
import { eventually } from './helpers/eventually.js'
import { inquiryBody } from './helpers/harness.js'

/** Inquiries stored before the server starts, so that the copy takes many steps. */
const PRELOADED = 3000
const WRITERS = 4

const Acknowledged = Type.Object({ data: Type.Optional(Type.Object({ id: Type.Integer() })) })

async function tokenOf(base: string, client: { client_id: string; client_secret: string }) {
  const response = await fetch(`${base}/v2/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...client }).toString(),
  })
  return parsed(Type.Object({ access_token: Type.String() }), await response.json()).access_token
}

describe('expertdir backup of a serving SQLite database', { timeout: 180_000 }, () => {
  let testDatabase: TestDatabase
  let server: ServerProcess | undefined
  let dir: string
  before(async () => {
    testDatabase = await createTestDatabase('sqlite')
    dir = mkdtempSync(join(tmpdir(), 'expertdir-backup-'))
  })
  after(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL')
      await server.exited
    }
    await testDatabase?.drop()
    rmSync(dir, { recursive: true, force: true })
  })

  test('copies every inquiry acknowledged before it began, while inquiries keep arriving', async (t) => {
    const { db } = testDatabase.database
    const now = Date.now()
    await createOrganization(db, { id: 1, name: 'Backed-up University' }, now)
    const client = await createClient(db, 1, 'backup-test', now)
    const username = await createExpert(cliWriteContext(db, 1, 'test setup', now), {
      firstname: 'Grace',
      lastname: 'Hopper',
      job_title: 'Admiral',
      email: 'grace@navy.example',
      company: 'Navy',
    })
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < PRELOADED; i++) {
        await insertInquiry(trx, {
          org_id: 1,
          username,
          recipients: JSON.stringify([{ role: 'expert', email: 'grace@navy.example' }]),
          kind: 'general',
          firstname: 'Ada',
          lastname: 'Lovelace',
          email: 'ada@example.org',
          message: `preloaded ${i} ${'x'.repeat(1000)}`,
          kind_fields: '{}',
          created_at: now,
        })
      }
    })

    server = await startServerProcess(testDatabase.url)
    const base = server.base
    const token = await tokenOf(base, client)
    const acknowledged: number[] = []
    let stop = false
    let failures = 0
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const response = await fetch(`${base}/v2/organization/1/inquiry/general`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(inquiryBody('general', username, { message: `writer ${w} inquiry ${i}` })),
        })
        const body = parsed(Acknowledged, await response.json())
        if (response.status === 200 && body.data) acknowledged.push(body.data.id)
        else failures++
      }
    }
    const writing = Array.from({ length: WRITERS }, (_, w) => writer(w))
    await eventually(() => acknowledged.length >= 20 || failures > 0, {
      what: 'the writers have 20 inquiries acknowledged',
      timeoutMs: 60_000,
      intervalMs: 20,
    })

    const before = [...acknowledged]
    const file = join(dir, 'copy.sqlite')
    const backup = await runCli(['--db', testDatabase.url, 'backup', file, '--json'])
    const during = acknowledged.length - before.length
    stop = true
    await Promise.all(writing)
    assert.equal(backup.code, 0, backup.stderr)
    assert.equal(failures, 0, 'the server kept answering while the backup ran')
    const result = JSON.parse(backup.stdout)
    assert.deepEqual(Object.keys(result).sort(), ['bytes', 'duration_ms', 'file', 'media', 'pages'])
    assert.equal(result.media, resolve('data/media'), 'it says where photos and documents live')
    assert.equal(result.file, file)
    assert.ok(result.pages > 100)

    const copy = openDatabase(file)
    try {
      assert.deepEqual(await migrateToLatest(copy.db), [], 'the copy is at the latest migration')
      const ids = new Set(
        (await copy.db.selectFrom('inquiries').select('id').execute()).map((row) => Number(row.id)),
      )
      assert.deepEqual(
        before.filter((id) => !ids.has(id)),
        [],
        'every inquiry acknowledged before the backup began is in the copy',
      )
      assert.ok(ids.size >= PRELOADED + before.length)
      const outbox = await copy.db.selectFrom('inquiry_deliveries').select('inquiry_id').execute()
      assert.equal(outbox.length, ids.size * 2, 'one consistent snapshot: every inquiry with its outbox rows')
      const migrations = await copy.db
        .withTables<{ kysely_migration: { name: string } }>()
        .selectFrom('kysely_migration')
        .select('name')
        .execute()
      assert.equal(migrations.length, Object.keys(MIGRATIONS).length)
    } finally {
      await copy.close()
    }
    t.diagnostic(
      `acknowledged before the backup ${before.length}, during it ${during}; copy ${result.pages} pages`,
    )
  })

  test('refuses to replace an existing file unless --force', async () => {
    const file = join(dir, 'copy.sqlite')
    assert.ok(existsSync(file))
    const refused = await runCli(['--db', testDatabase.url, 'backup', file])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /exists.*--force/)
    const forced = await runCli(['--db', testDatabase.url, 'backup', file, '--force'])
    assert.equal(forced.code, 0, forced.stderr)
    assert.match(forced.stdout, /^Backed up \d+ pages/)
    assert.match(forced.stdout, /Photos and documents are not in this copy: they live in /)
  })
})

for (const { dialect, skip } of await testDialects()) {
  if (dialect !== 'postgres') continue
  describe('expertdir backup on PostgreSQL', { skip }, () => {
    test('says to use pg_dump and exits 1', async () => {
      const result = await runCli([
        '--db',
        'postgres://postgres@127.0.0.1:5432/test',
        'backup',
        join(tmpdir(), 'never-written.sqlite'),
      ])
      assert.equal(result.code, 1)
      assert.match(result.stderr, /pg_dump/)
      assert.equal(result.stdout, '')
    })
  })
}
