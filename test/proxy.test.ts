import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { MAX_FAILURES } from '../src/auth/lockout.js'
import { describeEachDialect } from './helpers/harness.js'

/** Behind a load balancer (docs/deploy.md): the client's address comes from the trusted proxy. */
describeEachDialect(
  'behind a trusted proxy',
  (ctx) => {
    const tokenRequest = (clientId: string, secret: string, forwardedFor: string) =>
      ctx.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': forwardedFor },
        payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
      })

    test('a lock-out applies to the address the proxy forwarded, not to the proxy', async () => {
      const client = await createClient(
        ctx.testDatabase.database.db,
        ctx.tenant.orgId,
        'proxied',
        ctx.clock.now(),
      )
      for (let i = 0; i < MAX_FAILURES; i++) {
        assert.equal((await tokenRequest(client.client_id, 'wrong', '203.0.113.7')).statusCode, 401)
      }
      const attacker = await tokenRequest(client.client_id, client.client_secret, '203.0.113.7')
      assert.equal(attacker.statusCode, 401, 'the guessing address is locked out')
      const owner = await tokenRequest(client.client_id, client.client_secret, '198.51.100.20')
      assert.equal(owner.statusCode, 200, 'the owner, behind the same proxy, is not')
    })
  },
  { config: { trustProxy: '127.0.0.1', rateLimitToken: 0 } },
)
