import assert from 'node:assert/strict'
import { test } from 'node:test'
import { revokeClient } from '../src/auth/clients.js'
import { hashToken } from '../src/auth/secrets.js'
import { purgeExpiredTokens, revokeToken } from '../src/auth/tokens.js'
import { openDatabase } from '../src/db/database.js'
import { describeEachDialect, envelope, FORM, requestToken } from './helpers/harness.js'
import { assertOAuthError } from './helpers/oauth.js'

const DAY = 24 * 3600 * 1000

describeEachDialect('token lifecycle', (ctx) => {
  const probe = (token: string) =>
    ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody`,
      headers: { authorization: `Bearer ${token}` },
    })

  test('POST /v2/oauth/revoke revokes the token at once and answers 200 (RFC 7009)', async () => {
    const token = await requestToken(ctx.app, ctx.tenant.client)
    assert.equal((await probe(token)).statusCode, 404)
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/revoke',
      headers: FORM,
      payload: new URLSearchParams({
        token,
        token_type_hint: 'access_token',
        client_id: ctx.tenant.client.client_id,
        client_secret: ctx.tenant.client.client_secret,
      }).toString(),
    })
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(envelope(response), { success: true, data: {} })
    assert.equal((await probe(token)).statusCode, 401)
  })

  test('revoking an unknown token is 200 too, and a client cannot revoke another client’s token', async () => {
    const foreign = await requestToken(ctx.app, ctx.other.client)
    for (const token of ['unknown-token', foreign]) {
      const response = await ctx.inject({
        method: 'POST',
        url: '/oauth/revoke',
        payload: {
          token,
          client_id: ctx.tenant.client.client_id,
          client_secret: ctx.tenant.client.client_secret,
        },
      })
      assert.equal(response.statusCode, 200)
    }
    const stillValid = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.other.orgId}/expert/nobody`,
      headers: { authorization: `Bearer ${foreign}` },
    })
    assert.equal(stillValid.statusCode, 404)
  })

  test('revocation errors are RFC 6749 bodies: missing token, missing or bad client credentials', async () => {
    const { client_id, client_secret } = ctx.tenant.client
    for (const url of ['/v2/oauth/revoke', '/oauth/revoke']) {
      const noToken = await ctx.inject({ method: 'POST', url, payload: { client_id, client_secret } })
      assertOAuthError(noToken, 400, 'invalid_request')
      assert.match(noToken.json().error_description, /Missing parameter: token/)
      const noClient = await ctx.inject({ method: 'POST', url, payload: { token: 'x' } })
      assertOAuthError(noClient, 400, 'invalid_request')
      const wrongType = await ctx.inject({
        method: 'POST',
        url,
        payload: { token: 7, client_id, client_secret },
      })
      assertOAuthError(wrongType, 400, 'invalid_request')
      const badClient = await ctx.inject({
        method: 'POST',
        url,
        payload: { token: 'x', client_id, client_secret: 'wrong' },
      })
      assertOAuthError(badClient, 401, 'invalid_client')
      assert.equal(badClient.headers['www-authenticate'], undefined)
      const badBasic = await ctx.inject({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client_id}:wrong`).toString('base64')}`,
        },
        payload: 'token=x',
      })
      assertOAuthError(badBasic, 401, 'invalid_client')
      assert.equal(badBasic.headers['www-authenticate'], 'Basic realm="expertdir"')
    }
  })

  test('revoking a client kills every token it holds at once', async () => {
    const client = await ctx.addTenant('Revoked Org')
    const second = await requestToken(ctx.app, client.client)
    assert.equal(
      (
        await ctx.inject({
          method: 'GET',
          url: `/v2/organization/${client.orgId}/expert/x`,
          headers: client.auth,
        })
      ).statusCode,
      404,
    )
    await revokeClient(ctx.testDatabase.database.db, client.client.client_id, ctx.clock.now())
    for (const token of [client.token, second]) {
      const response = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${client.orgId}/expert/x`,
        headers: { authorization: `Bearer ${token}` },
      })
      assert.equal(response.statusCode, 401)
    }
  })

  test('a revocation through another connection (another process, the CLI) is honoured by the next request', async () => {
    const token = await requestToken(ctx.app, ctx.tenant.client)
    assert.equal((await probe(token)).statusCode, 404, 'the token works, and was just checked')
    const elsewhere = openDatabase(ctx.testDatabase.url)
    try {
      await revokeToken(elsewhere.db, ctx.tenant.client.client_id, hashToken(token))
    } finally {
      await elsewhere.close()
    }
    assert.equal((await probe(token)).statusCode, 401)
  })

  test('expired tokens are purged, live ones kept', async () => {
    const { db } = ctx.testDatabase.database
    const token = await requestToken(ctx.app, ctx.tenant.client)
    const before = await db.selectFrom('access_tokens').select('token_hash').execute()
    const purged = await purgeExpiredTokens(db, ctx.clock.now() + 30 * DAY)
    assert.ok(purged >= 1)
    const after = await db.selectFrom('access_tokens').select('token_hash').execute()
    assert.equal(after.length, before.length - purged)
    assert.equal(await purgeExpiredTokens(db, ctx.clock.now()), 0)
    assert.equal((await probe(token)).statusCode, 401)
  })
})
