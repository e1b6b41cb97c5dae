import assert from 'node:assert/strict'
import { type Agent, request } from 'node:http'
import type { DatabaseSync } from 'node:sqlite'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { cliWriteContext } from '../src/audit/write-context.js'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import { loadConfig } from '../src/config.js'
import { type Database, openDatabase } from '../src/db/database.js'
import { openSqliteConnection } from '../src/db/sqlite.js'
import type { ExpertCreateInput } from '../src/experts/schemas.js'
import { createExpert } from '../src/experts/service.js'
import { findInquiry } from '../src/inquiries/repository.js'
import { createOrganization } from '../src/organizations/repository.js'
import { startServerProcess } from './helpers/cli.js'
import { createTestDatabase, type TestDatabase, testDialects } from './helpers/databases.js'
import { eventually } from './helpers/eventually.js'
import { expertBody, inquiryBody, requestToken } from './helpers/harness.js'
import { TcpProxy } from './helpers/tcp-proxy.js'

const DIALECTS = await testDialects()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Every response the fault tests saw with a 5xx status, by status and code: only 503 `unavailable` is allowed. */
const serverErrors: string[] = []

async function count(database: Database, table: 'experts' | 'inquiries' | 'access_tokens'): Promise<number> {
  const row = await database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

interface Setup {
  testDatabase: TestDatabase
  orgId: number
  client: IssuedClient
  username: string
}

/** A fresh database with an organization, a client and an expert, written directly. */
async function setUp(dialect: 'sqlite' | 'postgres'): Promise<Setup> {
  const testDatabase = await createTestDatabase(dialect)
  const { db } = testDatabase.database
  const now = Date.now()
  const org = await createOrganization(db, { name: 'Fault University' }, now)
  const client = await createClient(db, org.id, 'fault-test', now)
  const username = await createExpert(
    cliWriteContext(db, org.id, 'test setup', now),
    expertBody({ email: 'recipient@navy.example' }) as ExpertCreateInput,
  )
  return { testDatabase, orgId: org.id, client, username }
}

describe('Database faults', () => {
  for (const { dialect, skip } of DIALECTS) {
    describe(dialect, { skip }, () => {
      let setup: Setup
      let proxy: TcpProxy | undefined
      let locker: DatabaseSync | undefined
      let database: Database
      let app: FastifyInstance
      let auth: Record<string, string>

      before(async () => {
        setup = await setUp(dialect)
        let url = setup.testDatabase.url
        if (dialect === 'postgres') {
          const target = new URL(url)
          proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432))
          target.port = String(proxy.port)
          url = target.toString()
        }
        // Short waits so that a fault answers 503 quickly instead of after the 5 s production default.
        database = openDatabase(url, { connectTimeoutMs: 500, busyTimeoutMs: 100 })
        // No token cache: every request verifies its token in the database, so that path is faulted too.
        const config = loadConfig({ logLevel: 'silent', rateLimitApi: 0, rateLimitToken: 0 }, {})
        app = await buildApp({ config, database })
        auth = { authorization: `Bearer ${await requestToken(app, setup.client)}` }
      })

      after(async () => {
        locker?.close()
        await app?.close()
        await database?.close()
        await proxy?.close()
        await setup?.testDatabase.drop()
      })

      const profile = (): InjectOptions => ({
        method: 'GET',
        url: `/v2/organization/${setup.orgId}/expert/${setup.username}`,
        headers: auth,
      })
      const createExpertRequest = (n: string): InjectOptions => ({
        method: 'POST',
        url: `/v2/organization/${setup.orgId}/expert`,
        headers: auth,
        payload: expertBody({ email: `grace.${n}@navy.example` }),
      })
      const inquiry = (n: number): InjectOptions => ({
        method: 'POST',
        url: `/v2/organization/${setup.orgId}/inquiry/event`,
        headers: auth,
        payload: inquiryBody('event', setup.username, { message: `fault-test-${n}` }),
      })
      const token = (): InjectOptions => ({
        method: 'POST',
        url: '/v2/oauth/token',
        payload: {
          grant_type: 'client_credentials',
          client_id: setup.client.client_id,
          client_secret: setup.client.client_secret,
        },
      })

      async function send(options: InjectOptions) {
        const response = await app.inject(options)
        if (response.statusCode >= 500) serverErrors.push(`${response.statusCode} ${response.body}`)
        return response
      }

      async function expectUnavailable(options: InjectOptions, what: string) {
        const response = await send(options)
        assert.equal(response.statusCode, 503, `${what}: ${response.body}`)
        const body = response.json()
        assert.equal(body.success, false)
        // The token endpoint answers in the RFC 6749 shape (`error` is the code), the others in the envelope.
        const [code, message] =
          typeof body.error === 'string'
            ? [body.error, body.error_description]
            : [body.error.code, body.error.message]
        assert.equal(code, 'unavailable', what)
        assert.ok(message.length > 0)
        assert.equal(response.headers['retry-after'], '5')
      }

      async function expectWorking(n: string) {
        const read = await send(profile())
        assert.equal(read.statusCode, 200, read.body)
        assert.equal(read.json().data.account[0].username, setup.username)
        const created = await send(createExpertRequest(n))
        assert.equal(created.statusCode, 200, created.body)
        const username = created.json().data.username
        const stored = await setup.testDatabase.database.db
          .selectFrom('experts')
          .select('email')
          .where('username', '=', username)
          .executeTakeFirst()
        assert.equal(stored?.email, `grace.${n}@navy.example`)
        const ready = await send({ method: 'GET', url: '/readyz' })
        assert.equal(ready.statusCode, 200, ready.body)
      }

      /** The service comes back by itself: no restart, only retries of a client. */
      async function waitUntilReady() {
        await eventually(
          async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200,
          { what: 'the service is ready again', timeoutMs: 5000, intervalMs: 100 },
        )
      }

      if (dialect === 'postgres') {
        for (const mode of ['reset', 'blackhole'] as const) {
          test(`answers 503 unavailable while the PostgreSQL connection is cut (${mode}) and recovers by itself`, async () => {
            await expectWorking(`before-${mode}`)
            const experts = await count(setup.testDatabase.database, 'experts')
            const inquiries = await count(setup.testDatabase.database, 'inquiries')
            proxy?.cut(mode)

            await expectUnavailable(profile(), 'profile read')
            await expectUnavailable(createExpertRequest(`during-${mode}`), 'expert create')
            await expectUnavailable(inquiry(1), 'inquiry')
            await expectUnavailable(token(), 'token request')
            await expectUnavailable({ method: 'GET', url: '/readyz' }, 'readiness')
            const health = await send({ method: 'GET', url: '/healthz' })
            assert.equal(health.statusCode, 200)
            assert.deepEqual(health.json(), { success: true, data: { status: 'ok' } })

            proxy?.restore()
            await waitUntilReady()
            await expectWorking(`after-${mode}`)
            // Nothing of the refused writes was stored; the one create after recovery was.
            assert.equal(await count(setup.testDatabase.database, 'experts'), experts + 1)
            assert.equal(await count(setup.testDatabase.database, 'inquiries'), inquiries)
          })
        }
      } else {
        test('answers 503 unavailable to writes while another connection holds the SQLite write lock, then recovers', async () => {
          await expectWorking('before-lock')
          const experts = await count(setup.testDatabase.database, 'experts')
          const tokens = await count(setup.testDatabase.database, 'access_tokens')
          locker = openSqliteConnection(setup.testDatabase.url)
          locker.exec('BEGIN EXCLUSIVE')

          await expectUnavailable(createExpertRequest('during-lock'), 'expert create')
          await expectUnavailable(inquiry(1), 'inquiry')
          await expectUnavailable(token(), 'token request')
          // WAL mode: readers are not blocked by a writer, so reads and probes keep working.
          const read = await send(profile())
          assert.equal(read.statusCode, 200, read.body)
          assert.equal((await send({ method: 'GET', url: '/readyz' })).statusCode, 200)
          assert.equal((await send({ method: 'GET', url: '/healthz' })).statusCode, 200)

          locker.exec('ROLLBACK')
          locker.close()
          locker = undefined
          await expectWorking('after-lock')
          assert.equal(await count(setup.testDatabase.database, 'experts'), experts + 1)
          assert.equal(await count(setup.testDatabase.database, 'access_tokens'), tokens)
        })
      }

      test('no response during the faults was a 5xx other than 503 unavailable', () => {
        const unexpected = serverErrors.filter(
          (line) => !line.startsWith('503 ') || !line.includes('"unavailable"'),
        )
        assert.deepEqual(unexpected, [])
      })
    })
  }
})

interface Outcome {
  status?: number
  body?: string
  error?: string
}

/** One HTTP request on its own connection; `written` resolves once the whole request is sent. */
function httpRequest(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  agent: Agent | false = false,
): { written: Promise<void>; outcome: Promise<Outcome> } {
  let markWritten: () => void = () => {}
  const written = new Promise<void>((resolve) => {
    markWritten = resolve
  })
  const outcome = new Promise<Outcome>((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(`${base}${path}`, {
      method,
      agent,
      headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
    })
    req.on('finish', markWritten)
    req.on('error', (error: NodeJS.ErrnoException) => {
      markWritten()
      resolve({ error: error.code ?? error.message })
    })
    req.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => {
        text += chunk
      })
      response.on('end', () => resolve({ status: response.statusCode, body: text }))
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }))
    })
    req.end(payload)
  })
  return { written, outcome }
}

const TOKEN_BURST = 30
const INQUIRY_BURST = 10

describe('SIGTERM under load', () => {
  for (const { dialect, skip } of DIALECTS) {
    test(`finishes every in-flight request, refuses new connections and exits 0 (${dialect})`, {
      skip,
    }, async (t) => {
      const setup = await setUp(dialect)
      const { child, base, exited } = await startServerProcess(setup.testDatabase.url)
      try {
        const credentials = {
          grant_type: 'client_credentials',
          client_id: setup.client.client_id,
          client_secret: setup.client.client_secret,
        }
        const first = await httpRequest(base, 'POST', '/v2/oauth/token', credentials).outcome
        assert.equal(first.status, 200, first.body)
        const auth = { authorization: `Bearer ${JSON.parse(first.body ?? '{}').data.accessToken}` }

        // An idle keep-alive connection must not keep the server from exiting.
        const { Agent: HttpAgent } = await import('node:http')
        const keepAlive = new HttpAgent({ keepAlive: true })
        const idle = await httpRequest(base, 'GET', '/healthz', undefined, {}, keepAlive).outcome
        assert.equal(idle.status, 200)

        // Token requests each spend tens of milliseconds in scrypt; inquiries commit a transaction.
        const burst = [
          ...Array.from({ length: TOKEN_BURST }, () =>
            httpRequest(base, 'POST', '/v2/oauth/token', credentials),
          ),
          ...Array.from({ length: INQUIRY_BURST }, (_, i) =>
            httpRequest(
              base,
              'POST',
              `/v2/organization/${setup.orgId}/inquiry/event`,
              inquiryBody('event', setup.username, { message: `fault-test-${i}` }),
              auth,
            ),
          ),
        ]
        await Promise.all(burst.map((entry) => entry.written))
        // Connections the kernel queued but the server has not accepted yet are reset when it stops
        // listening: they were never in flight. The kernel hands queued connections over in the order
        // they arrived, so once a request sent after the burst is answered, the server holds every
        // burst connection. (A fixed pause here was too short on a busy machine: ECONNRESET.)
        const probe = await httpRequest(base, 'GET', '/healthz').outcome
        assert.equal(probe.status, 200, JSON.stringify(probe))
        child.kill('SIGTERM')

        // Keep knocking while the server shuts down: each late request is either served in full
        // (it got in before the close began), refused, or answered 503 unavailable; never cut or a 500.
        const late: Outcome[] = []
        let done = false
        void exited.then(() => {
          done = true
        })
        // A bound, not a timing assertion: an idle keep-alive socket holding the process would hang here.
        const giveUp = Date.now() + 30_000
        while (!done) {
          if (Date.now() > giveUp) assert.fail('the server did not exit within 30 s of SIGTERM')
          late.push(await httpRequest(base, 'GET', '/healthz').outcome)
          await sleep(20)
        }
        const afterExit = await httpRequest(base, 'GET', '/healthz').outcome
        assert.equal(afterExit.error, 'ECONNREFUSED')

        assert.equal(await exited, 0)
        keepAlive.destroy()

        const outcomes = await Promise.all(burst.map((entry) => entry.outcome))
        for (const [i, outcome] of outcomes.entries()) {
          assert.equal(outcome.status, 200, `request ${i}: ${JSON.stringify(outcome)}`)
          assert.equal(JSON.parse(outcome.body ?? '{}').success, true)
        }
        const ids = outcomes
          .slice(TOKEN_BURST)
          .map((outcome) => JSON.parse(outcome.body ?? '{}').data.id as number)
        for (const [i, id] of ids.entries()) {
          const row = await findInquiry(setup.testDatabase.database.db, setup.orgId, id)
          assert.equal(row?.message, `fault-test-${i}`)
        }
        const tally = (outcome: Outcome) => outcome.error ?? String(outcome.status)
        const seen = new Map<string, number>()
        for (const outcome of late) seen.set(tally(outcome), (seen.get(tally(outcome)) ?? 0) + 1)
        t.diagnostic(
          `in flight: ${outcomes.length} x 200; after SIGTERM: ${JSON.stringify(Object.fromEntries(seen))}`,
        )
        for (const outcome of late) {
          if (outcome.error) {
            assert.ok(['ECONNREFUSED', 'ECONNRESET'].includes(outcome.error), JSON.stringify(outcome))
            continue
          }
          if (outcome.status === 200) continue
          assert.equal(outcome.status, 503, JSON.stringify(outcome))
          assert.equal(JSON.parse(outcome.body ?? '{}').error.code, 'unavailable')
        }
        for (const outcome of [...outcomes, ...late]) {
          if ((outcome.status ?? 0) >= 500) serverErrors.push(`${outcome.status} ${outcome.body}`)
        }
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL')
        await setup.testDatabase.drop()
      }
    })
  }
})
