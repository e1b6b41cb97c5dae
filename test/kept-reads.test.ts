import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { buildApp } from '../src/app.js'
import { createClient } from '../src/auth/clients.js'
import { hashToken } from '../src/auth/secrets.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { SqliteError } from '../src/db/sqlite.js'
import { KeptBodies } from '../src/kept-reads/kept-bodies.js'
import { KeptRoutes } from '../src/kept-reads/kept-reads.js'
import { ValidatedAnswers } from '../src/kept-reads/validated-answers.js'
import { createOrganization } from '../src/organizations/repository.js'
import { discardingStream } from './helpers/checked.js'
import { runCliProcess, type ServerProcess, startServerProcess } from './helpers/cli.js'
import { createRainContent } from './helpers/content.js'
import {
  createExpert,
  describeEachDialect,
  expertBody,
  openSecondApp,
  requestToken,
  type SecondApp,
  type TestContext,
} from './helpers/harness.js'
import { wireGet } from './helpers/net.js'

/**
 * Kept reads (src/auth/kept-reads.ts) against what the routes answer without them: every write here
 * is made by another process (a served app, the CLI, a script), and the very next read through this
 * process must equal, in status, headers and bytes, what an app that keeps nothing answers.
 */
describeEachDialect(
  'kept reads',
  (ctx: TestContext) => {
    let writer: ServerProcess
    let reference: SecondApp
    let lane: SecondApp
    let publicToken = ''
    let expertX = ''
    let expertY = ''
    let postId = 0
    let questionId = 0
    let educationId = 0
    let answerId = 0
    let staffMember = ''
    const watched: string[] = []
    const org = () => ctx.tenant.orgId

    before(async () => {
      writer = await startServerProcess(ctx.testDatabase.url)
      reference = await openSecondApp(ctx, { readCacheBytes: 0 })
      lane = await openSecondApp(ctx, { logLevel: 'warn', rateLimitApi: 0 })
      await lane.app.listen({ host: '127.0.0.1', port: 0 })
      const { db } = ctx.testDatabase.database
      const publicClient = await createClient(db, org(), 'site', ctx.clock.now(), ['read:public'])
      publicToken = await requestToken(ctx.app, publicClient)
      ;({ expertX, expertY, postId, questionId, answerId } = await createRainContent(ctx, write, {
        lastname: 'Kept',
        answeredBy: 'y',
      }))
      await write('PUT', `/v2/organization/${org()}/expert/${expertX}`, { is_published: 1 })
      await write('PUT', `/v2/organization/${org()}/expert/${expertY}`, { is_published: 1 })
      educationId = Number(
        (
          await write('POST', `/v2/organization/${org()}/expert/${expertX}/education`, {
            institution: 'Rain College',
            degree: 'BSc',
          })
        ).id,
      )
      staffMember = String(
        (
          await write(
            'POST',
            `/v2/organization/${org()}/staff`,
            expertBody({ firstname: 'Stan', lastname: 'Kept' }),
          )
        ).username,
      )
      await write('PUT', `/v2/organization/${org()}/staff/${staffMember}`, { is_published: 1 })
      const profile = `/v2/organization/${org()}/expert/${expertX}`
      watched.push(
        profile,
        `${profile}/biography`,
        `${profile}/education`,
        `${profile}/education/${educationId}`,
        `${profile}/corporationprofile`,
        `${profile}/spotlight`,
        `/v2/organization/${org()}/expert/${expertY}`,
        `/v2/organization/${org()}/staff/${staffMember}`,
        `/v2/organization/${org()}/staff/${staffMember}/biography`,
        `/v2/spotlight/${org()}/${postId}`,
        `/v2/qanda/${org()}/${questionId}`,
        `/v2/organization/${org()}/expert`,
        `/v2/organization/${org()}/expert?q=kept&sort=name`,
        `/v2/spotlight/${org()}/search?q=rain`,
        `/v2/qanda/${org()}/search`,
      )
    })

    after(async () => {
      if (writer && writer.child.exitCode === null) writer.child.kill('SIGKILL')
      await writer?.exited
      await reference?.close()
      await lane?.close()
    })

    /** A write through the other process's HTTP API. */
    async function write(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
      const response = await fetch(`${writer.base}${url}`, {
        method,
        headers: {
          authorization: `Bearer ${ctx.tenant.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      assert.equal(response.status, 200, `${method} ${url}: ${text}`)
      return JSON.parse(text).data
    }

    const read = (app: FastifyInstance, url: string, token: string) =>
      app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${token}`, 'x-request-id': 'kept' },
      })

    function sameResponse(actual: LightMyRequestResponse, expected: LightMyRequestResponse, where: string) {
      assert.equal(actual.statusCode, expected.statusCode, `${where}: ${actual.body}`)
      const { date: _a, ...actualHeaders } = actual.headers
      const { date: _b, ...expectedHeaders } = expected.headers
      assert.deepEqual(actualHeaders, expectedHeaders, where)
      assert.equal(actual.body, expected.body, where)
    }

    /** Every watched read, for both audiences, read twice (the second is kept) equals the reference. */
    async function assertCurrent(label: string) {
      for (const url of watched) {
        for (const [audience, token] of [
          ['read', ctx.tenant.token],
          ['read:public', publicToken],
        ] as const) {
          const expected = await read(reference.app, url, token)
          for (const attempt of ['first', 'second']) {
            const actual = await read(ctx.app, url, token)
            sameResponse(actual, expected, `${url} as ${audience}, ${attempt} read after ${label}`)
          }
          // Through the kept-read lane of a served app, which answers kept reads before Fastify.
          for (const attempt of ['first', 'second']) {
            const where = `${url} as ${audience}, ${attempt} read through the lane after ${label}`
            const actual = await wireGet(lane.app, url, {
              authorization: `Bearer ${token}`,
              'x-request-id': 'kept',
            })
            assert.equal(actual.status.split(' ')[0], String(expected.statusCode), `${where}: ${actual.body}`)
            const { date: _date, connection: _connection, ...expectedHeaders } = expected.headers
            const wire = actual.headers
              .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)])
              .filter(([name]) => name !== 'Connection' && name !== 'Keep-Alive')
            assert.deepEqual(Object.fromEntries(wire), expectedHeaders, where)
            assert.equal(actual.body.toString(), expected.body, where)
          }
        }
      }
    }

    test('every write through another process is seen by the very next read of every kept route', async () => {
      const x = `/v2/organization/${org()}/expert/${expertX}`
      await assertCurrent('the setup')
      const staff = `/v2/organization/${org()}/staff/${staffMember}`
      const http =
        (method: string, url: string, body?: unknown): (() => Promise<unknown>) =>
        () =>
          write(method, url, body)
      const writes: [string, () => Promise<unknown>][] = [
        ['an account change', http('PUT', x, { job_title: 'Rainmaker' })],
        ['a single section set', http('POST', `${x}/biography`, { biography: 'Studies <b>rain</b>.' })],
        ['a list element change', http('PUT', `${x}/education/${educationId}`, { degree: 'MSc' })],
        ['a name added', http('POST', `${x}/topic`, { name: 'Kept hydrology' })],
        ['made private', http('PUT', x, { is_private: 1 })],
        ['made public again', http('PUT', x, { is_private: 0 })],
        [
          'the organization profile',
          http('PUT', `/v2/organization/${org()}`, { description: 'A wet campus.' }),
        ],
        ['a staff account change', http('PUT', staff, { job_title: 'Kept registrar' })],
        ['a staff section set', http('POST', `${staff}/biography`, { biography: 'Keeps the records.' })],
        [
          'a post change',
          http('PUT', `/v2/spotlight/${org()}/${postId}`, { title: 'Kept rain', tagged: [expertX] }),
        ],
        ['a post unpublished', http('PUT', `/v2/spotlight/${org()}/${postId}`, { published: 0 })],
        [
          'a question change',
          http('PUT', `/v2/qanda/${org()}/${questionId}`, { details: 'Kept <i>why</i>.' }),
        ],
        [
          'an answer',
          http('POST', `/v2/qanda/${org()}/${questionId}/answer`, { username: expertX, answer: 'Wind.' }),
        ],
        ['an answer deleted', http('DELETE', `/v2/qanda/${org()}/${questionId}/answer/${answerId}`)],
        [
          'an expert created',
          http(
            'POST',
            `/v2/organization/${org()}/expert`,
            expertBody({ firstname: 'Nia', lastname: 'Kept' }),
          ),
        ],
        ['an import by the CLI in another process', () => importByCli(ctx.testDatabase.url, org())],
        ['a list element deleted', http('DELETE', `${x}/education/${educationId}`)],
        ['a single section cleared', http('DELETE', `${x}/biography`)],
        ['a post deleted', http('DELETE', `/v2/spotlight/${org()}/${postId}`)],
        ['a question deleted', http('DELETE', `/v2/qanda/${org()}/${questionId}`)],
        ['another expert deleted', http('DELETE', `/v2/organization/${org()}/expert/${expertY}`)],
        ['a staff member deleted', http('DELETE', staff)],
        ['a rename', http('PUT', x, { username: `${expertX}-renamed` })],
      ]
      for (const [label, change] of writes) {
        await change()
        await assertCurrent(label)
      }
      // The second reads of the routes a write left as they were came from the lane.
      assert.ok((lane.app.keptReadLane?.answered ?? 0) > writes.length * watched.length)
    })

    test('the public directory sees every write through another process at the next page view', async () => {
      /** Each page viewed twice: the second view is answered from what the first kept. */
      async function expectPage(path: string, status: number, where: string, text?: string) {
        for (const attempt of ['first', 'second']) {
          const response = await ctx.app.inject({ method: 'GET', url: `/directory/${org()}${path}` })
          const seen = `${path}, ${attempt} view after ${where}`
          assert.equal(response.statusCode, status, `${seen}: ${response.body.slice(0, 300)}`)
          if (text) assert.ok(response.body.includes(text), `${seen}: shows ${text}`)
        }
      }
      const organization = `/v2/organization/${org()}`
      await write('PUT', organization, { public_directory: 1, description: 'A dry campus.' })
      const created = await write(
        'POST',
        `${organization}/expert`,
        expertBody({ firstname: 'Dora', lastname: 'Page' }),
      )
      const username = String(created.username)
      const expert = `${organization}/expert/${username}`
      await write('PUT', expert, { is_published: 1, job_title: 'Cloud reader' })
      const post = (
        await write('POST', `/v2/spotlight/${org()}`, {
          title: 'Paged rain',
          html: '<p>Kept.</p>',
          published: 1,
        })
      ).id
      const question = (
        await write('POST', `/v2/qanda/${org()}`, { question: 'Why paged rain?', published: 1 })
      ).id

      await expectPage(`/${username}`, 200, 'the setup', 'Cloud reader')
      await expectPage(`/spotlight/${post}`, 200, 'the setup', 'Paged rain')
      await expectPage(`/qanda/${question}`, 200, 'the setup', 'Why paged rain?')
      await expectPage('/', 200, 'the setup', 'A dry campus.')
      await expectPage('/?q=dora', 200, 'the setup', 'Cloud reader')
      /** A page and what it must answer: its status and, for a 200, a text it shows. */
      type Expected = [path: string, status: number, text?: string]
      const postUrl = `/v2/spotlight/${org()}/${post}`
      const steps: [where: string, change: () => Promise<unknown>, pages: Expected[]][] = [
        [
          'a job title change',
          () => write('PUT', expert, { job_title: 'Storm reader' }),
          [
            [`/${username}`, 200, 'Storm reader'],
            ['/?q=dora', 200, 'Storm reader'],
          ],
        ],
        ['made private', () => write('PUT', expert, { is_private: 1 }), [[`/${username}`, 404]]],
        [
          'made public again',
          () => write('PUT', expert, { is_private: 0 }),
          [[`/${username}`, 200, 'Storm reader']],
        ],
        [
          'the organization profile',
          () => write('PUT', organization, { description: 'A wet campus.' }),
          [['/', 200, 'A wet campus.']],
        ],
        [
          'a post change',
          () => write('PUT', postUrl, { title: 'Paged storm' }),
          [[`/spotlight/${post}`, 200, 'Paged storm']],
        ],
        ['a post unpublished', () => write('PUT', postUrl, { published: 0 }), [[`/spotlight/${post}`, 404]]],
        [
          'a question change',
          () => write('PUT', `/v2/qanda/${org()}/${question}`, { question: 'Why paged storms?' }),
          [[`/qanda/${question}`, 200, 'Why paged storms?']],
        ],
        [
          'the directory switched off',
          () => write('PUT', organization, { public_directory: 0 }),
          [[`/${username}`, 404]],
        ],
        [
          'the directory switched on',
          () => write('PUT', organization, { public_directory: 1 }),
          [[`/${username}`, 200, 'Storm reader']],
        ],
        [
          'a rename',
          () => write('PUT', expert, { username: `${username}-renamed` }),
          [[`/${username}`, 308]],
        ],
      ]
      for (const [where, change, pages] of steps) {
        await change()
        for (const [path, status, text] of pages) await expectPage(path, status, where, text)
      }
    })

    test('a read its parameters or query string fail is answered 400 each time, never from what is kept', async () => {
      const refused = [
        `/v2/qanda/${org()}/0`,
        `/v2/spotlight/${org()}/not-a-number`,
        `/v2/organization/${org()}/expert?sort=nonsense`,
        `/v2/spotlight/${org()}/search?q=rain&q=snow&sort=nonsense`,
      ]
      for (const url of refused) {
        const expected = await read(reference.app, url, ctx.tenant.token)
        assert.equal(expected.statusCode, 400, `${url}: ${expected.body}`)
        for (const attempt of ['first', 'second']) {
          sameResponse(await read(ctx.app, url, ctx.tenant.token), expected, `${url}, ${attempt} read`)
        }
      }
    })

    /** The status of a read now, through this app and through the lane's (the two must agree). */
    async function statusNow(url: string, token: string): Promise<number> {
      const direct = (await read(ctx.app, url, token)).statusCode
      const laned = await wireGet(lane.app, url, { authorization: `Bearer ${token}` })
      assert.equal(laned.status.split(' ')[0], String(direct), `${url} through the lane: ${laned.body}`)
      return direct
    }

    test('a client revoked by the CLI in another process is refused at the next request', async () => {
      const { db } = ctx.testDatabase.database
      const client = await createClient(db, org(), 'revoked', ctx.clock.now(), ['read'])
      const token = await requestToken(ctx.app, client)
      const url = `/v2/organization/${org()}/expert`
      for (let i = 0; i < 2; i++) assert.equal(await statusNow(url, token), 200)
      const revoked = await runCliProcess([
        '--db',
        ctx.testDatabase.url,
        'client',
        'revoke',
        client.client_id,
      ])
      assert.equal(revoked.code, 0, revoked.stderr)
      assert.equal(await statusNow(url, token), 401)
      assert.equal((await read(ctx.app, url, token)).json().error.code, 'invalid_token')
    })

    test('a token revoked through another process is refused at the next request', async () => {
      const { db } = ctx.testDatabase.database
      const client = await createClient(db, org(), 'self-revoking', ctx.clock.now(), ['read'])
      const token = await requestToken(ctx.app, client)
      const url = `/v2/qanda/${org()}/search`
      for (let i = 0; i < 2; i++) assert.equal(await statusNow(url, token), 200)
      const response = await fetch(`${writer.base}/v2/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token,
          client_id: client.client_id,
          client_secret: client.client_secret,
        }),
      })
      assert.equal(response.status, 200, await response.text())
      assert.equal(await statusNow(url, token), 401)
    })

    test('a scope change made by another process is honoured at the next request', async () => {
      const { db } = ctx.testDatabase.database
      const client = await createClient(db, org(), 'narrowed', ctx.clock.now(), ['read', 'read:public'])
      const token = await requestToken(ctx.app, client)
      const hidden = await createExpert(ctx, ctx.tenant, { firstname: 'Hidden', lastname: 'Kept' })
      const url = `/v2/organization/${org()}/expert/${hidden}`
      for (let i = 0; i < 2; i++) assert.equal(await statusNow(url, token), 200)
      await runScript(
        ctx.testDatabase.url,
        `update access_tokens set scope = 'read:public' where token_hash = '${hashToken(token)}'`,
      )
      // Unpublished: the public audience cannot see it.
      assert.equal(await statusNow(url, token), 404)
      await runScript(
        ctx.testDatabase.url,
        `update access_tokens set scope = '' where token_hash = '${hashToken(token)}'`,
      )
      assert.equal(await statusNow(url, token), 403)
    })
  },
  { config: { rateLimitApi: 0 } },
)

test('kept bodies stay within their bytes under 100,000 distinct keys', () => {
  const maxBytes = 1024 * 1024
  const bodies = new KeptBodies(maxBytes)
  const body = Buffer.alloc(1000, 'x')
  for (let i = 0; i < 100_000; i++)
    bodies.set(`all 1 /v2/organization/1/expert?q=term${i}`, { body, etag: '"e"' })
  assert.ok(bodies.stats.bytes <= maxBytes, `${bodies.stats.bytes} bytes kept`)
  assert.ok(bodies.stats.entries < 1000, `${bodies.stats.entries} entries kept`)
  assert.ok(bodies.get('all 1 /v2/organization/1/expert?q=term99999'), 'the newest entry is kept')
  assert.equal(bodies.get('all 1 /v2/organization/1/expert?q=term0'), undefined)
})

test('the routes of kept URLs stay within their bytes under 100,000 distinct URLs', () => {
  const routes = new KeptRoutes(256 * 1024)
  const route = {
    target: { kind: 'search', orgId: 1 },
    scope: 'read:public',
    route: '/v2/organization/:corporation/expert',
  } as const
  for (let i = 0; i < 100_000; i++) routes.set(`/v2/organization/1/expert?q=term${i}`, route)
  assert.ok(routes.size < 2000, `${routes.size} routes kept`)
  assert.deepEqual(routes.get('/v2/organization/1/expert?q=term99999'), route, 'the newest route is kept')
  assert.equal(routes.get('/v2/organization/1/expert?q=term0'), undefined)
})

test('kept answers stay within their bytes under 100,000 distinct keys, and a commit forgets them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'expertdir-answers-'))
  const database = openDatabase(join(dir, 'answers.sqlite'))
  try {
    await sql`create table t (x integer)`.execute(database.db)
    const connection = database.readConnection()
    assert.ok(connection)
    const answers = new ValidatedAnswers(connection)
    const maxBytes = 256 * 1024
    const versions = answers.map<{ version: string }>(maxBytes, ({ version }) => 2 * version.length)
    answers.refresh()
    let reads = 0
    for (let i = 0; i < 100_000; i++)
      versions.get(`expert:1:expert:user-${i}`, () => {
        reads++
        return { version: `${i}.1` }
      })
    assert.equal(reads, 100_000)
    assert.ok(versions.size * 64 <= maxBytes, `${versions.size} answers kept`)
    versions.get('expert:1:expert:user-99999', () => assert.fail('a kept answer is read again'))
    await sql`insert into t values (1)`.execute(database.db)
    answers.refresh()
    let again = false
    versions.get('expert:1:expert:user-99999', () => {
      again = true
      return null
    })
    assert.ok(again, 'an answer kept before a commit is read again')
  } finally {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('a read that finds the read-only connection locked answers from the main connection, fresh', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'expertdir-busy-'))
  const database = openDatabase(join(dir, 'busy.sqlite'))
  const now = () => Date.now()
  try {
    await migrateToLatest(database.db)
    const org = await createOrganization(database.db, { name: 'Busy University' }, now())
    const client = await createClient(database.db, org.id, 'busy', now(), ['read'])
    const app = await buildApp({
      config: loadConfig({ logLevel: 'warn', mediaDir: dir, rateLimitApi: 0 }, {}),
      database,
      now,
      logStream: discardingStream(),
    })
    const token = await requestToken(app, client)
    const setScope = (scope: string) =>
      sql`update access_tokens set scope = ${scope} where token_hash = ${hashToken(token)}`.execute(
        database.db,
      )
    const list = () =>
      app.inject({
        method: 'GET',
        url: `/v2/organization/${org.id}/expert`,
        headers: { authorization: `Bearer ${token}` },
      })
    try {
      // The app's own writer takes the file for itself (a real lock, as a WAL recovery would): the
      // read-only connection, never used yet, gets SQLITE_BUSY at once and the reads fall back.
      await sql`pragma locking_mode = exclusive`.execute(database.db)
      await setScope('')
      const reads = database.readConnection()
      assert.ok(reads)
      assert.throws(
        () => reads.dataVersion(),
        (error) => error instanceof SqliteError && error.code === 'SQLITE_BUSY',
      )
      assert.equal((await list()).statusCode, 403, 'the scope removed under the lock')
      await setScope('read')
      const answered = await list()
      assert.equal(answered.statusCode, 200, answered.body)
      assert.equal(answered.json().success, true)
      assert.throws(() => reads.dataVersion(), SqliteError, 'still locked: the fallback answered')

      await sql`pragma locking_mode = normal`.execute(database.db)
      await sql`select 1 from organizations`.execute(database.db)
      reads.dataVersion()
      assert.equal((await list()).statusCode, 200, 'through the read connection again')
      await setScope('')
      assert.equal((await list()).statusCode, 403, 'a change after the lock is seen at once')
    } finally {
      await app.close()
    }
  } finally {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

/** Imports one expert ("Kept" by name, so the watched search finds it) with the CLI in another process. */
async function importByCli(url: string, orgId: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'expertdir-kept-import-'))
  try {
    const file = join(dir, 'import.json')
    const expert = {
      key: 'kept-import-1',
      ...expertBody({ firstname: 'Ivo', lastname: 'Kept' }),
      is_published: 1,
    }
    writeFileSync(file, JSON.stringify({ experts: [expert] }))
    const result = await runCliProcess(['--db', url, 'import', file, '--org', String(orgId)])
    assert.equal(result.code, 0, result.stderr)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs one SQL statement on the database from a separate Node process. */
async function runScript(url: string, statement: string): Promise<void> {
  const script = `
    const { openDatabase } = await import('./src/db/database.ts')
    const { sql } = await import('kysely')
    const database = openDatabase(process.env.TARGET_URL)
    await sql.raw(process.env.STATEMENT).execute(database.db)
    await database.close()`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('..', import.meta.url),
    env: { ...process.env, TARGET_URL: url, STATEMENT: statement },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  assert.equal(code, 0, `script failed: ${statement}`)
}
