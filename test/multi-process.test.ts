import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Redis } from 'ioredis'
import { sql } from 'kysely'
import { Type } from 'typebox'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import { MAX_FAILURES } from '../src/auth/lockout.js'
import { MIGRATIONS } from '../src/db/migrate.js'
import { saveWebhook } from '../src/delivery/repository.js'
import { createOrganization } from '../src/organizations/repository.js'
import { parsed, present } from './helpers/checked.js'
import { runCliProcess, type ServerProcess, startServerProcess } from './helpers/cli.js'
import { createTestDatabase, type TestDatabase, testDialects } from './helpers/databases.js'
import { eventually } from './helpers/eventually.js'
import { expertBody, inquiryBody } from './helpers/harness.js'
import { WebhookReceiver } from './helpers/receivers.js'

const MigrateOutput = Type.Object({ applied: Type.Array(Type.String()) })
const TokenAnswer = Type.Object({ access_token: Type.String() })
const CreatedExpert = Type.Object({ data: Type.Object({ username: Type.String() }) })
const CreatedInquiry = Type.Object({ data: Type.Object({ id: Type.Integer() }) })
const ErrorAnswer = Type.Object({ success: Type.Literal(false), error: Type.Object({ code: Type.String() }) })

/** The names of the applied migrations, in Kysely's own table (not among the schema's tables). */
const appliedMigrations = async (db: TestDatabase['database']['db']) =>
  (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((row) => row.name)

/**
 * What must hold when several processes serve one database: migrations, the outbox, revocations,
 * writes, uniqueness, idempotency and limits, each exercised across real `expertdir serve` processes.
 */

const PROCESSES = 3
const ORG = 1

for (const { dialect, skip: dialectSkip } of await testDialects()) {
  describe(`several processes migrating one ${dialect} database`, {
    skip: dialectSkip,
    timeout: 120_000,
  }, () => {
    let testDatabase: TestDatabase
    before(async () => {
      testDatabase = await createTestDatabase(dialect, { migrate: false })
    })
    after(() => testDatabase?.drop())

    test('started together, exactly one applies each migration and all succeed', async () => {
      const runs = await Promise.all(
        Array.from({ length: PROCESSES }, () =>
          runCliProcess(['--db', testDatabase.url, 'migrate', '--json']),
        ),
      )
      for (const run of runs) assert.equal(run.code, 0, run.stderr)
      const applied = runs.flatMap(
        (run) => parsed(MigrateOutput, JSON.parse(run.stdout), 'migrate --json').applied,
      )
      assert.deepEqual(
        applied.sort(),
        Object.keys(MIGRATIONS).sort(),
        'each migration applied once, by one process',
      )
      const recorded = await appliedMigrations(testDatabase.database.db)
      assert.equal(recorded.length, Object.keys(MIGRATIONS).length)
    })
  })
}

/** Redis for the processes' shared limits; its absence skips these tests, unless CI requires PostgreSQL. */
async function redisSkip(): Promise<string | false> {
  const redis = new Redis(REDIS_URL, { connectTimeout: 1000, maxRetriesPerRequest: 0, lazyConnect: true })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
    return false
  } catch {
    if (process.env.EXPERTDIR_TEST_POSTGRES === 'required')
      throw new Error(`Redis does not answer at ${REDIS_URL}`)
    return `Redis does not answer at ${REDIS_URL}`
  } finally {
    redis.disconnect()
  }
}

const REDIS_URL = process.env.EXPERTDIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
const API_LIMIT = 40
const LEASE_MS = 3000

const postgres = (await testDialects()).find((d) => d.dialect === 'postgres')
const skip = postgres ? postgres.skip || (await redisSkip()) : 'PostgreSQL is not among the tested dialects'

describe('three server processes on one PostgreSQL and one Redis', { skip, timeout: 300_000 }, () => {
  let testDatabase: TestDatabase
  let servers: ServerProcess[] = []
  const receiver = new WebhookReceiver()
  const prefix = `expertdir-test:${process.pid}:${Math.random().toString(36).slice(2, 10)}:`
  let client: IssuedClient
  let turn = 0
  /** The next process, round-robin. */
  const nextBase = () => present(servers[turn++ % servers.length], 'a server').base
  const db = () => testDatabase.database.db

  const tokenFor = async (base: string, credentials = client) => {
    const response = await fetch(`${base}/v2/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.client_id,
        client_secret: credentials.client_secret,
      }).toString(),
    })
    assert.equal(response.status, 200, await response.clone().text())
    return parsed(TokenAnswer, await response.json(), 'the token answer').access_token
  }
  const call = async (
    base: string,
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers = {},
  ) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, json: (): unknown => JSON.parse(text) }
  }
  const inquiryIdOf = (response: { json(): unknown }) =>
    parsed(CreatedInquiry, response.json(), 'the created inquiry').data.id
  const expertOf = async (token: string) => {
    const created = await call(nextBase(), token, 'POST', `/v2/organization/${ORG}/expert`, expertBody())
    assert.equal(created.status, 200, created.text)
    return parsed(CreatedExpert, created.json(), 'the created expert').data.username
  }
  const until = (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) =>
    eventually(check, { what, timeoutMs, intervalMs: 100 })
  const webhookDeliveryOf = (inquiryId: number) =>
    db()
      .selectFrom('inquiry_deliveries')
      .selectAll()
      .where('inquiry_id', '=', inquiryId)
      .where('channel', '=', 'webhook')
      .executeTakeFirstOrThrow()
  const requestsFor = (deliveryId: number) =>
    receiver.requests.filter((request) => request.headers['x-expertdir-delivery'] === String(deliveryId))

  before(async () => {
    testDatabase = await createTestDatabase('postgres', { migrate: false })
    await receiver.start()
    const env = {
      EXPERTDIR_REDIS_URL: REDIS_URL,
      EXPERTDIR_REDIS_PREFIX: prefix,
      EXPERTDIR_RATE_LIMIT_API: String(API_LIMIT),
      EXPERTDIR_DELIVERY_POLL_MS: '100',
      EXPERTDIR_DELIVERY_LEASE_MS: String(LEASE_MS),
      EXPERTDIR_DELIVERY_BACKOFF_MS: '60000',
      // The webhook receiver listens on 127.0.0.1.
      EXPERTDIR_WEBHOOK_ALLOW_PRIVATE: '1',
    }
    // Started together on an empty database: they race to migrate it.
    const started = await Promise.allSettled(
      Array.from({ length: PROCESSES }, () => startServerProcess(testDatabase.url, { env })),
    )
    servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
    const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected')
    if (failed) throw failed.reason
    const now = Date.now()
    await createOrganization(db(), { id: ORG, name: 'Many Processes University' }, now)
    client = await createClient(db(), ORG, 'multi-process', now)
    await saveWebhook(db(), ORG, receiver.url, 'whsec_multi_process_test', now)
  })

  after(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGCONT')
        server.child.kill('SIGKILL')
      }
      await server.exited
    }
    await receiver.stop()
    await testDatabase?.drop()
    const redis = new Redis(REDIS_URL, { lazyConnect: true })
    redis.on('error', () => {})
    try {
      await redis.connect()
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
    } finally {
      redis.disconnect()
    }
  })

  test('started together on an empty database, all three serve and each migration ran once', async () => {
    assert.equal(servers.length, PROCESSES)
    assert.deepEqual((await appliedMigrations(db())).sort(), Object.keys(MIGRATIONS).sort())
  })

  test('concurrent creates with the same name get distinct usernames; with the same email, one wins', async () => {
    const token = await tokenFor(nextBase())
    const sameName = await Promise.all(
      Array.from({ length: 9 }, () =>
        call(
          nextBase(),
          token,
          'POST',
          `/v2/organization/${ORG}/expert`,
          expertBody({ firstname: 'Ada', lastname: 'Byron' }),
        ),
      ),
    )
    for (const response of sameName) assert.equal(response.status, 200, response.text)
    const usernames = sameName.map(
      (response) => parsed(CreatedExpert, response.json(), 'a created expert').data.username,
    )
    assert.equal(new Set(usernames).size, usernames.length, `distinct usernames: ${usernames.join(', ')}`)

    const sameEmail = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(
          nextBase(),
          token,
          'POST',
          `/v2/organization/${ORG}/expert`,
          expertBody({ email: 'one@same.example' }),
        ),
      ),
    )
    const statuses = sameEmail.map((response) => response.status).sort()
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409], sameEmail.map((r) => r.text).join('\n'))
  })

  test('one Idempotency-Key retried concurrently on every process stores one inquiry', async () => {
    const token = await tokenFor(nextBase())
    const username = await expertOf(token)
    const body = inquiryBody('general', username, { message: 'idempotent across processes' })
    const responses = await Promise.all(
      Array.from({ length: 9 }, () =>
        call(nextBase(), token, 'POST', `/v2/organization/${ORG}/inquiry/general`, body, {
          'idempotency-key': 'multi-process-key',
        }),
      ),
    )
    for (const response of responses) assert.equal(response.status, 200, response.text)
    const ids = new Set(responses.map((response) => inquiryIdOf(response)))
    assert.equal(ids.size, 1, 'every retry answers with the same inquiry')
    const fresh = responses.filter((response) => response.headers.get('idempotent-replayed') !== 'true')
    assert.equal(fresh.length, 1, 'exactly one request stored it; the others replayed')
    const stored = await db()
      .selectFrom('inquiries')
      .select('id')
      .where('message', '=', 'idempotent across processes')
      .execute()
    assert.equal(stored.length, 1)
  })

  test('inquiries sent to all three are each delivered once', async () => {
    const token = await tokenFor(nextBase())
    const username = await expertOf(token)
    const sent = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        call(
          nextBase(),
          token,
          'POST',
          `/v2/organization/${ORG}/inquiry/general`,
          inquiryBody('general', username, { message: `spread ${i}` }),
        ),
      ),
    )
    const inquiryIds = sent.map((response) => inquiryIdOf(response))
    const deliveries = await Promise.all(inquiryIds.map(webhookDeliveryOf))
    await until('every webhook delivery is delivered', async () =>
      (await Promise.all(inquiryIds.map(webhookDeliveryOf))).every((row) => row.status === 'delivered'),
    )
    for (const delivery of deliveries) {
      assert.equal(requestsFor(delivery.id).length, 1, `delivery ${delivery.id} was sent exactly once`)
      assert.equal((await webhookDeliveryOf(delivery.inquiry_id)).attempts, 1)
    }
  })

  test('a delivery slower than the lease is not taken over while its process lives', async () => {
    const token = await tokenFor(nextBase())
    const username = await expertOf(token)
    receiver.delayMs = LEASE_MS * 2.5
    try {
      const sent = await call(
        nextBase(),
        token,
        'POST',
        `/v2/organization/${ORG}/inquiry/general`,
        inquiryBody('general', username, { message: 'slow receiver' }),
      )
      const inquiryId = inquiryIdOf(sent)
      await until(
        'the slow delivery is delivered',
        async () => (await webhookDeliveryOf(inquiryId)).status === 'delivered',
      )
      const delivery = await webhookDeliveryOf(inquiryId)
      assert.equal(requestsFor(delivery.id).length, 1, 'its lease was renewed, so no other process sent it')
      assert.equal(delivery.attempts, 1)
    } finally {
      receiver.delayMs = 0
    }
  })

  test('a client revoked on one process is refused on the others at once', async () => {
    const base = nextBase()
    const token = await tokenFor(base)
    for (const server of servers) {
      assert.equal((await call(server.base, token, 'GET', `/v2/organization/${ORG}`)).status, 200)
    }
    const revoke = await fetch(`${servers[0]?.base}/v2/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token,
        client_id: client.client_id,
        client_secret: client.client_secret,
      }).toString(),
    })
    assert.equal(revoke.status, 200)
    for (const server of servers) {
      assert.equal((await call(server.base, token, 'GET', `/v2/organization/${ORG}`)).status, 401)
    }
  })

  test('the API rate limit is counted across all three processes', async () => {
    const token = await tokenFor(nextBase())
    for (let i = 0; i < API_LIMIT; i++) {
      const response = await call(nextBase(), token, 'GET', `/v2/organization/${ORG}`)
      assert.equal(response.status, 200, `request ${i + 1} of ${API_LIMIT}: ${response.text}`)
    }
    for (const server of servers) {
      const response = await call(server.base, token, 'GET', `/v2/organization/${ORG}`)
      assert.equal(response.status, 429, response.text)
      assert.equal(parsed(ErrorAnswer, response.json(), 'the refusal').error.code, 'rate_limited')
    }
  })

  test('bad secrets counted across all three lock the client out on every process', async () => {
    const victim = await createClient(db(), ORG, 'lockout', Date.now())
    for (let i = 0; i < MAX_FAILURES; i++) {
      const response = await fetch(`${nextBase()}/v2/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: victim.client_id,
          client_secret: 'wrong',
        }).toString(),
      })
      assert.equal(response.status, 401)
    }
    for (const server of servers) {
      const response = await fetch(`${server.base}/v2/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: victim.client_id,
          client_secret: victim.client_secret,
        }).toString(),
      })
      assert.equal(response.status, 401, 'locked out: even the right secret is refused')
    }
  })

  test('a section written on one process is read on the others at once', async () => {
    const token = await tokenFor(nextBase())
    const username = await expertOf(token)
    const path = `/v2/organization/${ORG}/expert/${username}/tagline`
    for (const [writer, tagline] of [
      [0, 'Explains the weather'],
      [1, 'Explains the climate'],
    ] as const) {
      const written = await call(present(servers[writer], 'the writer').base, token, 'POST', path, {
        tagline,
      })
      assert.equal(written.status, 200, written.text)
      for (const server of servers) {
        const read = await call(server.base, token, 'GET', path)
        assert.equal(read.status, 200, read.text)
        assert.ok(read.text.includes(tagline), `${server.base} reads "${tagline}": ${read.text}`)
      }
    }
  })

  test('a process killed mid-delivery leaves no stuck claim: another delivers it once its lease lapses', async () => {
    const token = await tokenFor(nextBase())
    const username = await expertOf(token)
    const [first, ...others] = servers
    const victim = present(first, 'a server')
    // Only the victim may claim: the others are paused until it is dead.
    for (const other of others) other.child.kill('SIGSTOP')
    receiver.mode = 'hang'
    let deliveryId: number
    try {
      const sent = await call(
        victim.base,
        token,
        'POST',
        `/v2/organization/${ORG}/inquiry/general`,
        inquiryBody('general', username, { message: 'killed mid-delivery' }),
      )
      assert.equal(sent.status, 200, sent.text)
      const delivery = await webhookDeliveryOf(inquiryIdOf(sent))
      deliveryId = delivery.id
      await until('the victim is sending the delivery', async () => requestsFor(deliveryId).length === 1)
      victim.child.kill('SIGKILL')
      await victim.exited
      const claimed = await webhookDeliveryOf(delivery.inquiry_id)
      assert.equal(claimed.status, 'pending')
      assert.ok(claimed.lock_token, 'the dead process still holds its claim')
    } finally {
      receiver.mode = 'ok'
      for (const other of others) other.child.kill('SIGCONT')
    }
    const inquiryId = (
      await db()
        .selectFrom('inquiry_deliveries')
        .select('inquiry_id')
        .where('id', '=', deliveryId)
        .executeTakeFirstOrThrow()
    ).inquiry_id
    await until(
      'another process has delivered it',
      async () => (await webhookDeliveryOf(inquiryId)).status === 'delivered',
    )
    const delivered = await webhookDeliveryOf(inquiryId)
    assert.equal(delivered.attempts, 2)
    assert.equal(delivered.lock_token, null)
    const requests = requestsFor(deliveryId)
    assert.deepEqual(
      requests.map((request) => request.status),
      [0, 204],
      'sent once by the killed process (never answered) and once by its successor, with the same delivery id',
    )
  })
})
