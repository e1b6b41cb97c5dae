import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { buildApp } from '../src/app.js'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import { addressKey, CHECKS_PER_ADDRESS } from '../src/auth/failure-limit.js'
import { loadConfig } from '../src/config.js'
import { createOrganization } from '../src/organizations/repository.js'
import { present } from './helpers/checked.js'
import { createTestDatabase, type TestDatabase } from './helpers/databases.js'
import { describeEachDialect } from './helpers/harness.js'

/** Failed authentications an address may make per minute in these tests. */
const MAX = 3
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const REDIS_URL = process.env.EXPERTDIR_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

function tokenRequest(
  app: FastifyInstance,
  clientId: string,
  secret: string,
  remoteAddress = '203.0.113.7',
  url = '/v2/oauth/token',
) {
  return app.inject({
    method: 'POST',
    url,
    remoteAddress,
    headers: FORM,
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  })
}

const randomClientId = () => `cl_${randomUUID().replaceAll('-', '')}`

describeEachDialect(
  'token endpoint: failed authentications are limited per address, whatever the client id',
  (ctx) => {
    let client: IssuedClient
    before(async () => {
      client = ctx.tenant.client
    })

    test('random client ids from one address use up its failures; then even the right secret is 429', async () => {
      const address = '198.51.100.1'
      for (let i = 0; i < MAX; i++) {
        const response = await tokenRequest(ctx.app, randomClientId(), 'guess', address)
        assert.equal(response.statusCode, 401)
        assert.equal(response.json().error, 'invalid_client')
      }
      const refused = await tokenRequest(ctx.app, client.client_id, client.client_secret, address)
      assert.equal(refused.statusCode, 429)
      assert.deepEqual(Object.keys(refused.json()).sort(), ['error', 'error_description', 'success'])
      assert.equal(refused.json().error, 'rate_limited')
      assert.equal(refused.json().success, false)
      const retryAfter = Number(refused.headers['retry-after'])
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${retryAfter}`)
      // The revocation endpoint checks client secrets too, and shares the count.
      const revoke = await ctx.inject({
        method: 'POST',
        url: '/v2/oauth/revoke',
        remoteAddress: address,
        headers: FORM,
        payload: `token=x&client_id=${randomClientId()}&client_secret=guess`,
      })
      assert.equal(revoke.statusCode, 429)
    })

    test('another address is not affected', async () => {
      for (let i = 0; i < MAX; i++) await tokenRequest(ctx.app, randomClientId(), 'guess', '198.51.100.2')
      const other = await tokenRequest(ctx.app, client.client_id, client.client_secret, '198.51.100.3')
      assert.equal(other.statusCode, 200)
    })

    test('an IPv6 client counts by its /64: stepping through its own addresses does not help', async () => {
      for (let i = 1; i <= MAX; i++)
        await tokenRequest(ctx.app, randomClientId(), 'guess', `2001:db8:1:2::${i.toString(16)}`)
      const sameNetwork = await tokenRequest(ctx.app, randomClientId(), 'guess', '2001:db8:1:2:ffff::9')
      assert.equal(sameNetwork.statusCode, 429)
      const otherNetwork = await tokenRequest(ctx.app, randomClientId(), 'guess', '2001:db8:1:3::1')
      assert.equal(otherNetwork.statusCode, 401)
    })

    test('successful authentications do not count', async () => {
      const address = '198.51.100.4'
      for (let i = 0; i < MAX * 2; i++) {
        const ok = await tokenRequest(ctx.app, client.client_id, client.client_secret, address)
        assert.equal(ok.statusCode, 200)
      }
      for (let i = 0; i < MAX; i++)
        assert.equal((await tokenRequest(ctx.app, randomClientId(), 'guess', address)).statusCode, 401)
      assert.equal((await tokenRequest(ctx.app, randomClientId(), 'guess', address)).statusCode, 429)
    })

    test('concurrent failures cannot overshoot by more than the checks already running', async () => {
      const address = '198.51.100.6'
      const responses = await Promise.all(
        Array.from({ length: MAX * 4 }, () => tokenRequest(ctx.app, randomClientId(), 'guess', address)),
      )
      const statuses = responses.map((response) => response.statusCode)
      const failed = statuses.filter((status) => status === 401).length
      assert.ok(failed >= MAX && failed <= MAX + CHECKS_PER_ADDRESS - 1, statuses.join(' '))
      assert.equal(statuses.filter((status) => status === 429).length, statuses.length - failed)
    })

    test('a burst of good requests from one address is served in full', async () => {
      const address = '198.51.100.7'
      const responses = await Promise.all(
        Array.from({ length: MAX * 4 }, () =>
          tokenRequest(ctx.app, client.client_id, client.client_secret, address),
        ),
      )
      assert.deepEqual(
        responses.map((response) => response.statusCode),
        responses.map(() => 200),
      )
    })

    test('the next minute the address may try again', async () => {
      const address = '198.51.100.5'
      for (let i = 0; i < MAX; i++) await tokenRequest(ctx.app, randomClientId(), 'guess', address)
      assert.equal((await tokenRequest(ctx.app, randomClientId(), 'guess', address)).statusCode, 429)
      ctx.clock.advance(60_000)
      const again = await tokenRequest(ctx.app, client.client_id, client.client_secret, address)
      assert.equal(again.statusCode, 200)
    })
  },
  { config: { rateLimitTokenFailures: MAX, rateLimitToken: 0 } },
)

describe('failure limit details', () => {
  test('the address key of IPv4, IPv4-mapped and IPv6 addresses', () => {
    assert.equal(addressKey('192.0.2.1'), '192.0.2.1')
    assert.equal(addressKey('::ffff:192.0.2.1'), '192.0.2.1')
    assert.equal(addressKey('2001:db8:0:1:2:3:4:5'), '2001:db8:0:1::/64')
    assert.equal(addressKey('2001:DB8::1'), '2001:db8:0:0::/64')
    assert.equal(addressKey('::1'), '0:0:0:0::/64')
    assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
  })

  test('with EXPERTDIR_RATE_LIMIT_TOKEN_FAILURES=0 failures are not counted', async () => {
    const testDatabase = await createTestDatabase('sqlite')
    const config = loadConfig({ logLevel: 'silent', rateLimitTokenFailures: 0, rateLimitToken: 0 }, {})
    const app = await buildApp({ config, database: testDatabase.database })
    try {
      for (let i = 0; i < 4; i++)
        assert.equal((await tokenRequest(app, randomClientId(), 'guess')).statusCode, 401)
    } finally {
      await app.close()
      await testDatabase.drop()
    }
  })
})

async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0 })
  try {
    await redis.connect()
    return (await redis.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    redis.disconnect()
  }
}

const redisUp = await redisAnswers()

describe('the failure limit is shared through Redis by two server processes', {
  skip: redisUp ? false : `Redis does not answer at ${REDIS_URL}`,
}, () => {
  const config = loadConfig(
    {
      logLevel: 'silent',
      rateLimitToken: 0,
      rateLimitTokenFailures: MAX,
      redisUrl: REDIS_URL,
      redisPrefix: `expertdir-test-${randomUUID()}:`,
    },
    {},
  )
  let testDatabase: TestDatabase
  let apps: FastifyInstance[] = []
  let client: IssuedClient

  before(async () => {
    testDatabase = await createTestDatabase('sqlite')
    apps = [
      await buildApp({ config, database: testDatabase.database }),
      await buildApp({ config, database: testDatabase.database }),
    ]
    const org = await createOrganization(testDatabase.database.db, { name: 'Shared' }, Date.now())
    client = await createClient(testDatabase.database.db, org.id, null, Date.now())
  })
  after(async () => {
    for (const app of apps) await app.close()
    await testDatabase?.drop()
  })

  test('failures spread over two apps share one count per address', async () => {
    const [first, second] = [present(apps[0]), present(apps[1])]
    const address = '192.0.2.50'
    const statuses: number[] = []
    for (let i = 0; i < MAX; i++)
      statuses.push((await tokenRequest(i % 2 ? second : first, randomClientId(), 'g', address)).statusCode)
    statuses.push((await tokenRequest(second, client.client_id, client.client_secret, address)).statusCode)
    statuses.push((await tokenRequest(first, client.client_id, client.client_secret, address)).statusCode)
    assert.deepEqual(statuses, [401, 401, 401, 429, 429])
    const refused = await tokenRequest(first, randomClientId(), 'g', address)
    const retryAfter = Number(refused.headers['retry-after'])
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `${retryAfter}`)
    // Another address, through either app, is unaffected.
    const other = await tokenRequest(second, client.client_id, client.client_secret, '192.0.2.51')
    assert.equal(other.statusCode, 200)
  })

  test('a success through one app gives its slot back on the other', async () => {
    const [first, second] = [present(apps[0]), present(apps[1])]
    const address = '192.0.2.60'
    for (let i = 0; i < MAX * 2; i++)
      assert.equal(
        (await tokenRequest(i % 2 ? second : first, client.client_id, client.client_secret, address))
          .statusCode,
        200,
      )
    for (let i = 0; i < MAX; i++)
      assert.equal((await tokenRequest(first, randomClientId(), 'g', address)).statusCode, 401)
    assert.equal((await tokenRequest(second, randomClientId(), 'g', address)).statusCode, 429)
  })
})
