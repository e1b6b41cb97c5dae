import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { createClient, revokeClient } from '../src/auth/clients.js'
import type { Config } from '../src/config.js'
import { postgresPoolOf } from '../src/db/database.js'
import { WalIndexHeader } from '../src/db/wal-index.js'
import { createRainContent } from './helpers/content.js'
import {
  describeEachDialect,
  openSecondApp,
  requestToken,
  type SecondApp,
  type TestContext,
} from './helpers/harness.js'
import { listeningPort, wireGet } from './helpers/net.js'

/**
 * The kept-read lane (src/auth/kept-read-lane.ts) answers kept reads before Fastify: each answer it
 * gives must be, on the wire, the one Fastify gives (an app without the lane on the same database is
 * the reference), and whatever it does not answer must reach Fastify.
 */
describeEachDialect('kept-read lane', (ctx: TestContext) => {
  const LANE: Partial<Config> = { logLevel: 'warn', rateLimitApi: 0 }
  // Request log lines at `info` keep the lane out: the same app otherwise.
  const REFERENCE: Partial<Config> = { logLevel: 'info', rateLimitApi: 0 }
  const opened: SecondApp[] = []
  let lane: FastifyInstance
  let reference: FastifyInstance
  let publicToken = ''
  let urls: string[] = []
  const org = () => ctx.tenant.orgId

  async function served(config: Partial<Config>): Promise<FastifyInstance> {
    const second = await openSecondApp(ctx, config)
    opened.push(second)
    await second.app.listen({ host: '127.0.0.1', port: 0 })
    return second.app
  }

  const bearer = (token: string, more: Record<string, string> = {}) => ({
    authorization: `Bearer ${token}`,
    'x-request-id': 'lane-test',
    ...more,
  })

  /** Reads `url` through the lane's app twice (the second is kept) and once through the reference. */
  async function compare(
    url: string,
    headers: Record<string, string>,
    answeredByLane: boolean,
    method = 'GET',
  ) {
    await wireGet(lane, url, headers, method)
    const before = lane.keptReadLane?.answered ?? 0
    const actual = await wireGet(lane, url, headers, method)
    const expected = await wireGet(reference, url, headers, method)
    assert.equal(actual.status, expected.status, `${url}: ${actual.body}`)
    assert.deepEqual(actual.headers, expected.headers, url)
    assert.ok(actual.body.equals(expected.body), url)
    assert.equal(
      lane.keptReadLane?.answered,
      before + (answeredByLane ? 1 : 0),
      `${url}: answered by the lane`,
    )
    return actual
  }

  before(async () => {
    lane = await served(LANE)
    reference = await served(REFERENCE)
    assert.ok(lane.keptReadLane, 'the lane is installed')
    assert.equal(reference.keptReadLane, undefined)
    const write = async (method: 'POST' | 'PUT', url: string, payload: unknown) => {
      const response = await ctx.inject({
        method,
        url,
        payload: payload as Record<string, unknown>,
        headers: { authorization: `Bearer ${ctx.tenant.token}` },
      })
      assert.equal(response.statusCode, 200, response.body)
      return response.json().data as Record<string, unknown>
    }
    const { expertX, expertY, postId, questionId } = await createRainContent(ctx, write, {
      lastname: 'Lane',
      answeredBy: 'x',
    })
    for (const expert of [expertX, expertY])
      await write('PUT', `/v2/organization/${org()}/expert/${expert}`, { is_published: 1 })
    const client = await createClient(ctx.testDatabase.database.db, org(), 'site', ctx.clock.now(), [
      'read:public',
    ])
    publicToken = await requestToken(ctx.app, client)
    const profile = `/v2/organization/${org()}/expert/${expertX}`
    urls = [
      profile,
      `${profile}/biography`,
      `/v2/spotlight/${org()}/${postId}`,
      `/v2/qanda/${org()}/${questionId}`,
      `/v2/organization/${org()}/expert?q=lane`,
      `/v2/spotlight/${org()}/search?q=rain`,
    ]
  })

  after(async () => {
    for (const second of opened) await second.close()
  })

  test('answers a kept read with the status, headers in order and bytes Fastify sends', async () => {
    for (const url of urls) {
      await compare(url, bearer(ctx.tenant.token), true)
      await compare(url, bearer(publicToken), true)
    }
  })

  test('answers 304 to a matching If-None-Match as Fastify does, and 200 to another ETag', async () => {
    for (const url of urls) {
      const { headers } = await wireGet(lane, url, bearer(ctx.tenant.token))
      const etag = headers.find((line) => line.startsWith('etag: '))?.slice('etag: '.length) ?? ''
      const unchanged = await compare(
        url,
        bearer(ctx.tenant.token, { 'if-none-match': `"other", ${etag}` }),
        true,
      )
      assert.equal(unchanged.status, '304 Not Modified')
      assert.equal(unchanged.body.length, 0)
      const changed = await compare(url, bearer(ctx.tenant.token, { 'if-none-match': '"other"' }), true)
      assert.equal(changed.status, '200 OK')
    }
  })

  test('leaves to Fastify what it may not answer: no token, a malformed, unknown or revoked one, another organization, HEAD', async () => {
    const [url = ''] = urls
    await compare(url, { 'x-request-id': 'lane-test' }, false)
    await compare(url, bearer('not a token!'), false)
    await compare(url, bearer('unknown-token'), false)
    await compare(
      url.replace(`/organization/${org()}/`, `/organization/${ctx.other.orgId}/`),
      bearer(ctx.tenant.token),
      false,
    )
    await compare(url, bearer(ctx.other.token), false)
    const client = await createClient(ctx.testDatabase.database.db, org(), 'gone', ctx.clock.now(), ['read'])
    const revoked = await requestToken(ctx.app, client)
    await compare(url, bearer(revoked), true)
    await revokeClient(ctx.testDatabase.database.db, client.client_id, ctx.clock.now())
    const refused = await compare(url, bearer(revoked), false)
    assert.equal(refused.status, '401 Unauthorized')
    const head = await compare(url, bearer(ctx.tenant.token), false, 'HEAD')
    assert.equal(head.status, '200 OK')
  })

  test('a read it hands on (no body kept for the new version) checks the token once', async (t) => {
    const laneApp = opened[0]
    const pool = laneApp && postgresPoolOf(laneApp.database.db)
    if (!pool) return t.skip('PostgreSQL only: on SQLite the token check runs no statement')
    const profile = urls[0] ?? ''
    await wireGet(lane, profile, bearer(ctx.tenant.token))
    const changed = await ctx.inject({
      method: 'PUT',
      url: profile,
      payload: { job_title: 'Handed over' },
      headers: { authorization: `Bearer ${ctx.tenant.token}` },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    let checks = 0
    const query = pool.query
    pool.query = ((...args: Parameters<typeof query>) => {
      if ((args[0] as { name?: string }).name === 'expertdir_principals') checks++
      return Reflect.apply(query, pool, args)
    }) as typeof query
    try {
      const answered = lane.keptReadLane?.answered
      const response = await wireGet(lane, profile, bearer(ctx.tenant.token))
      assert.ok(response.status.startsWith('200'), response.body.toString())
      assert.ok(response.body.toString().includes('Handed over'))
      assert.equal(lane.keptReadLane?.answered, answered, 'Fastify answered it')
      assert.equal(checks, 1, 'the lane checked the token; the bearer hook took its answer')
    } finally {
      pool.query = query
    }
  })

  test('a token without the scope a URL needs gets Fastify’s 403', async () => {
    const url = `/v2/organization/${org()}/expert?q=lane`
    await compare(url, bearer(ctx.tenant.token), true)
    const client = await createClient(ctx.testDatabase.database.db, org(), 'writer', ctx.clock.now(), [
      'write',
    ])
    const writeOnly = await requestToken(ctx.app, client)
    const refused = await compare(url, bearer(writeOnly), false)
    assert.equal(refused.status, '403 Forbidden')
  })

  test('behind a trusted proxy, a read forwarded over HTTPS gets the HTTPS headers Fastify sends', async () => {
    const proxied = await served({ ...LANE, trustProxy: '127.0.0.1' })
    const proxiedReference = await served({ ...REFERENCE, trustProxy: '127.0.0.1' })
    const [url = ''] = urls
    const headers = bearer(ctx.tenant.token, { 'x-forwarded-proto': 'http, https' })
    await wireGet(proxied, url, headers)
    const before = proxied.keptReadLane?.answered ?? 0
    const actual = await wireGet(proxied, url, headers)
    const expected = await wireGet(proxiedReference, url, headers)
    assert.equal(proxied.keptReadLane?.answered, before + 1)
    assert.deepEqual(actual.headers, expected.headers)
    assert.ok(actual.headers.some((line) => line.startsWith('strict-transport-security: ')))
    // Not from an untrusted address: the lane's app above trusts no proxy.
    const direct = await compare(url, headers, true)
    assert.ok(!direct.headers.some((line) => line.startsWith('strict-transport-security: ')))
  })

  test('kept reads received in one turn share one change check (SQLite)', async (t) => {
    if (ctx.dialect !== 'sqlite') return t.skip('SQLite only: the WAL-index check of the read connection')
    const profile = urls[0] ?? ''
    await wireGet(lane, profile, bearer(ctx.tenant.token))
    const checks = t.mock.method(WalIndexHeader.prototype, 'changed')
    const before = lane.keptReadLane?.answered ?? 0
    // Twenty pipelined requests in one write: the server parses them in one turn.
    const request = (last: boolean) =>
      `GET ${profile} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ctx.tenant.token}\r\n` +
      `Connection: ${last ? 'close' : 'keep-alive'}\r\n\r\n`
    const socket = connect(listeningPort(lane.server), '127.0.0.1')
    socket.end(Array.from({ length: 20 }, (_, i) => request(i === 19)).join(''))
    let received = ''
    for await (const chunk of socket) received += String(chunk)
    assert.equal(received.match(/HTTP\/1\.1 200 OK\r\n/g)?.length, 20, received.slice(0, 300))
    assert.equal(lane.keptReadLane?.answered, before + 20, 'all answered by the lane')
    assert.equal(checks.mock.callCount(), 1, 'one check for the twenty')
  })

  test('counts what it answers in the HTTP metrics, as Fastify does', async () => {
    const counted = await served({ ...LANE, metrics: true })
    const url = `/v2/spotlight/${org()}/search?q=rain`
    for (let i = 0; i < 3; i++) await wireGet(counted, url, bearer(ctx.tenant.token))
    assert.equal(counted.keptReadLane?.answered, 2)
    const metrics = (await wireGet(counted, '/metrics', {})).body.toString()
    assert.match(
      metrics,
      /expertdir_http_requests_total\{method="GET",route="\/v2\/spotlight\/:corporation\/search",status="200"\} 3/,
    )
  })

  test('is installed only when nothing else runs on a kept read: no per-token limit, no CORS, no request log', async () => {
    for (const config of [
      { ...LANE, rateLimitApi: 100 },
      { ...LANE, corsOrigins: ['https://site.example'] },
      { ...LANE, logLevel: 'info' as const },
    ]) {
      const second = await openSecondApp(ctx, config)
      opened.push(second)
      assert.equal(second.app.keptReadLane, undefined, JSON.stringify(config))
    }
  })
})
