import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { Type } from 'typebox'
import { buildApp } from '../src/app.js'
import { MAX_FAILURES } from '../src/auth/lockout.js'
import { loadConfig } from '../src/config.js'
import { parsed, present } from './helpers/checked.js'
import { createTestDatabase } from './helpers/databases.js'
import { describeEachDialect, envelope, FORM, requestToken } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

describeEachDialect(
  'rate limits (in-process)',
  (ctx) => {
    test('API requests carry RateLimit headers and the one past the limit is 429 with Retry-After', async () => {
      const token = await requestToken(ctx.app, ctx.tenant.client)
      const probe = () =>
        ctx.inject({
          method: 'GET',
          url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody`,
          headers: { authorization: `Bearer ${token}` },
        })
      const first = await probe()
      assert.equal(first.headers['ratelimit-limit'], '5')
      assert.equal(first.headers['ratelimit-remaining'], '4')
      assert.ok(Number(first.headers['ratelimit-reset']) > 0)
      for (let i = 0; i < 4; i++) assert.equal((await probe()).statusCode, 404)
      const limited = await probe()
      assert.equal(limited.statusCode, 429)
      assert.equal(envelope(limited).error?.code, 'rate_limited')
      assert.ok(Number(limited.headers['retry-after']) > 0)
      const fresh = await requestToken(ctx.app, ctx.tenant.client)
      const other = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody`,
        headers: { authorization: `Bearer ${fresh}` },
      })
      assert.equal(other.statusCode, 404, 'the limit is per token')
    })

    test('token requests are limited per client id and IP', async () => {
      const body = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'cl_flood',
        client_secret: 'x',
      })
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) {
        const response = await ctx.inject({
          method: 'POST',
          url: '/v2/oauth/token',
          headers: FORM,
          payload: body.toString(),
        })
        statuses.push(response.statusCode)
      }
      assert.deepEqual(statuses, [401, 401, 401, 429, 429])
      const own = await ctx.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        headers: FORM,
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: ctx.other.client.client_id,
          client_secret: ctx.other.client.client_secret,
        }).toString(),
      })
      assert.equal(own.statusCode, 200, 'another client id is counted apart')
    })

    test('the docs and health routes are not counted', async () => {
      for (let i = 0; i < 10; i++)
        assert.equal((await ctx.inject({ method: 'GET', url: '/healthz' })).statusCode, 200)
    })
  },
  { config: { rateLimitApi: 5, rateLimitToken: 3 } },
)

describeEachDialect(
  'client lock-out',
  (ctx) => {
    test(`after ${MAX_FAILURES} consecutive bad secrets the pair is locked out, with the same answer as a wrong secret`, async () => {
      const { client_id, client_secret } = ctx.tenant.client
      const attempt = (secret: string) =>
        ctx.inject({
          method: 'POST',
          url: '/v2/oauth/token',
          headers: FORM,
          payload: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id,
            client_secret: secret,
          }).toString(),
        })
      const wrong = await attempt('wrong')
      for (let i = 1; i < MAX_FAILURES; i++) assert.equal((await attempt('wrong')).statusCode, 401)
      const locked = await attempt(client_secret)
      assert.equal(locked.statusCode, 401)
      assert.equal(locked.body, wrong.body)
      ctx.clock.advance(15 * 60_000)
      assert.equal((await attempt(client_secret)).statusCode, 200, 'the lock-out ends after 15 minutes')
    })

    test('a success resets the count of consecutive failures', async () => {
      const { client_id, client_secret } = ctx.other.client
      const attempt = (secret: string) =>
        ctx.inject({
          method: 'POST',
          url: '/v2/oauth/token',
          headers: FORM,
          payload: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id,
            client_secret: secret,
          }).toString(),
        })
      for (let i = 1; i < MAX_FAILURES; i++) await attempt('wrong')
      assert.equal((await attempt(client_secret)).statusCode, 200)
      for (let i = 1; i < MAX_FAILURES; i++) await attempt('wrong')
      assert.equal((await attempt(client_secret)).statusCode, 200)
    })
  },
  { config: { rateLimitToken: 0 } },
)

describe('limits shared through Redis by two server processes', () => {
  const prefix = `expertdir-test-${randomUUID()}:`
  const config = loadConfig(
    {
      logLevel: 'silent',
      rateLimitApi: 6,
      rateLimitToken: 0,
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: prefix,
    },
    {},
  )
  let cleanup: () => Promise<void>
  let apps: Awaited<ReturnType<typeof buildApp>>[] = []
  let token = ''
  let client = { client_id: '', client_secret: '', org: 0, scope: '' }

  before(async () => {
    const testDatabase = await createTestDatabase('sqlite')
    apps = [
      await buildApp({ config, database: testDatabase.database }),
      await buildApp({ config, database: testDatabase.database }),
    ]
    const { createOrganization } = await import('../src/organizations/repository.js')
    const { createClient } = await import('../src/auth/clients.js')
    const org = await createOrganization(testDatabase.database.db, { name: 'Shared' }, Date.now())
    client = await createClient(testDatabase.database.db, org.id, null, Date.now())
    token = await requestToken(present(apps[0]), client)
    cleanup = async () => {
      for (const app of apps) await app.close()
      await testDatabase.drop()
    }
  })
  after(() => cleanup?.())

  test('requests spread over two apps share one per-token count', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) {
      const app = present(apps[i % 2])
      const response = await app.inject({
        method: 'GET',
        url: `/v2/organization/${client.org}/expert/nobody`,
        headers: { authorization: `Bearer ${token}` },
      })
      statuses.push(response.statusCode)
    }
    assert.deepEqual(statuses, [404, 404, 404, 404, 404, 404, 429, 429])
    // The shared counter's key names the limit and the token, nothing "undefined".
    const { Redis } = await import('ioredis')
    const redis = new Redis('redis://127.0.0.1:6379')
    const keys = await redis.keys(`${prefix}*`).finally(() => redis.quit())
    assert.deepEqual(
      keys.filter((key) => key.includes('undefined')),
      [],
    )
    assert.ok(
      keys.some((key) => key.startsWith(`${prefix}rate:api:`)),
      keys.join(', '),
    )
  })

  test('a lock-out earned on one app holds on the other', async () => {
    const attempt = (app: (typeof apps)[0], secret: string) =>
      app.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        headers: FORM,
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: secret,
        }).toString(),
      })
    for (let i = 0; i < MAX_FAILURES; i++) await attempt(present(apps[i % 2]), 'wrong')
    assert.equal((await attempt(present(apps[1]), client.client_secret)).statusCode, 401)
    assert.equal((await attempt(present(apps[0]), client.client_secret)).statusCode, 401)
  })
})

describeEachDialect(
  'slow and oversized requests over a real socket',
  (ctx) => {
    let port = 0
    before(async () => {
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      port = listeningPort(ctx.app.server)
    })

    const raw = (text: string, keepOpen = false) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1')
        let received = ''
        socket.on('data', (chunk) => {
          received += chunk
        })
        socket.on('close', () => resolve(received))
        socket.on('error', reject)
        socket.write(text)
        if (!keepOpen) socket.end()
      })

    test('oversized headers are 431 in the envelope', async () => {
      const response = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
      assert.match(response, /^HTTP\/1.1 431 /)
      assert.equal(
        JSON.parse(response.split('\r\n\r\n')[1] ?? '').error.code,
        'request_header_fields_too_large',
      )
    })

    test('a client that never finishes its request gets 408 and is cut off', async () => {
      const response = await raw(
        `POST /v2/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
        true,
      )
      assert.match(response, /^HTTP\/1.1 408 /)
      assert.equal(JSON.parse(response.split('\r\n\r\n')[1] ?? '').error.code, 'request_timeout')
    })

    test('a badly percent-encoded URL is a 400 in the envelope', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v2/organization/1/expert/%E0%A4%A`)
      assert.equal(response.status, 400)
      assert.equal(
        parsed(Type.Object({ error: Type.Object({ code: Type.String() }) }), await response.json()).error
          .code,
        'validation_failed',
      )
    })
  },
  { config: { requestTimeoutMs: 1000 } },
)
