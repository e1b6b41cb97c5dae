import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { hashToken } from '../src/auth/secrets.js'
import { describeEachDialect, FORM, requestToken } from './helpers/harness.js'
import { assertOAuthError } from './helpers/oauth.js'

function form(values: Record<string, string>): string {
  return new URLSearchParams(values).toString()
}

describeEachDialect('POST /v2/oauth/token', (ctx) => {
  const grant = () => ({
    grant_type: 'client_credentials',
    client_id: ctx.tenant.client.client_id,
    client_secret: ctx.tenant.client.client_secret,
  })

  test('issues a token from a form body with the seed fields and the RFC 6749 members', async () => {
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      headers: FORM,
      payload: form(grant()),
    })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['cache-control'], 'no-store')
    const body = response.json()
    assert.deepEqual(Object.keys(body).sort(), [
      'access_token',
      'data',
      'expires_in',
      'scope',
      'success',
      'token_type',
    ])
    assert.equal(body.success, true)
    assert.deepEqual(Object.keys(body.data).sort(), [
      'accessToken',
      'accessTokenExpiresAt',
      'client',
      'scope',
      'user',
    ])
    assert.match(body.data.accessToken, /^[A-Za-z0-9_-]{43,}$/)
    assert.equal(body.access_token, body.data.accessToken)
    assert.equal(body.token_type, 'Bearer')
    assert.equal(body.expires_in, 30 * 24 * 3600)
    assert.equal(body.data.client, ctx.tenant.client.client_id)
    assert.equal(body.data.user, ctx.tenant.orgId)
    assert.equal(body.data.scope, true)
    // The test client holds every scope, the two outside the defaults too.
    assert.equal(body.scope, 'read read:public write inquiries:create inquiries:read inquiries:handle admin')
    assert.match(body.data.accessTokenExpiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.equal(Date.parse(body.data.accessTokenExpiresAt), ctx.clock.now() + 30 * 24 * 3600 * 1000)
  })

  test('accepts a JSON body and the /oauth/token alias', async () => {
    for (const url of ['/v2/oauth/token', '/oauth/token']) {
      const response = await ctx.inject({ method: 'POST', url, payload: grant() })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(response.json().data.scope, true)
    }
  })

  test('accepts HTTP Basic client credentials (RFC 6749 §2.3.1)', async () => {
    const { client_id, client_secret } = ctx.tenant.client
    const basic = Buffer.from(
      `${encodeURIComponent(client_id)}:${encodeURIComponent(client_secret)}`,
    ).toString('base64')
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      headers: { ...FORM, authorization: `Basic ${basic}` },
      payload: form({ grant_type: 'client_credentials' }),
    })
    assert.equal(response.statusCode, 200, response.body)
  })

  test('rejects credentials sent both as HTTP Basic and in the body: 400 invalid_request', async () => {
    const basic = Buffer.from(`${ctx.tenant.client.client_id}:${ctx.tenant.client.client_secret}`).toString(
      'base64',
    )
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      headers: { ...FORM, authorization: `Basic ${basic}` },
      payload: form(grant()),
    })
    assertOAuthError(response, 400, 'invalid_request')
  })

  test('a missing or empty parameter is 400 invalid_request naming it, in form and JSON bodies', async () => {
    for (const missing of ['grant_type', 'client_id', 'client_secret']) {
      for (const absent of [undefined, '']) {
        const values: Record<string, string> = grant()
        if (absent === undefined) delete values[missing]
        else values[missing] = absent
        for (const request of [{ headers: FORM, payload: form(values) }, { payload: values }]) {
          const response = await ctx.inject({ method: 'POST', url: '/v2/oauth/token', ...request })
          assertOAuthError(response, 400, 'invalid_request')
          assert.match(response.json().error_description, new RegExp(`Missing parameter: .*${missing}`))
        }
      }
    }
  })

  test('malformed requests are 400 invalid_request: wrong types, bad JSON, no body', async () => {
    const wrongType = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      payload: { ...grant(), client_secret: 12345 },
    })
    assertOAuthError(wrongType, 400, 'invalid_request')
    assert.match(wrongType.json().error_description, /client_secret/)
    const badJson = await ctx.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type": ',
    })
    assertOAuthError(badJson, 400, 'invalid_request')
    const noBody = await ctx.inject({ method: 'POST', url: '/v2/oauth/token' })
    assertOAuthError(noBody, 400, 'invalid_request')
  })

  test('other failures of the token endpoint keep the RFC 6749 shape with their own code', async () => {
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      headers: { 'content-type': 'text/plain' },
      payload: 'grant_type=client_credentials',
    })
    assertOAuthError(response, 415, 'unsupported_media_type')
  })

  test('a grant other than client_credentials is 400 unsupported_grant_type', async () => {
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      headers: FORM,
      payload: form({ ...grant(), grant_type: 'password' }),
    })
    assertOAuthError(response, 400, 'unsupported_grant_type')
  })

  test('unknown client, wrong secret and revoked client are the same 401 invalid_client, without a Basic challenge for body credentials', async () => {
    const { db } = ctx.testDatabase.database
    const revoked = await createClient(db, ctx.tenant.orgId, null, ctx.clock.now())
    await db
      .updateTable('clients')
      .set({ revoked_at: ctx.clock.now() })
      .where('client_id', '=', revoked.client_id)
      .execute()
    const attempts = [
      { ...grant(), client_id: 'cl_unknown' },
      { ...grant(), client_secret: 'wrong-secret' },
      { ...grant(), client_id: revoked.client_id, client_secret: revoked.client_secret },
    ]
    const bodies = new Set<string>()
    for (const attempt of attempts) {
      const response = await ctx.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        headers: FORM,
        payload: form(attempt),
      })
      assertOAuthError(response, 401, 'invalid_client')
      assert.equal(response.headers['www-authenticate'], undefined)
      bodies.add(response.body)
    }
    assert.equal(bodies.size, 1, 'the three failures must be indistinguishable')
  })

  test('a client that tried HTTP Basic gets 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const { client_id } = ctx.tenant.client
    for (const header of [
      `Basic ${Buffer.from(`${client_id}:wrong-secret`).toString('base64')}`,
      `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
    ]) {
      for (const url of ['/v2/oauth/token', '/oauth/token']) {
        const response = await ctx.inject({
          method: 'POST',
          url,
          headers: { ...FORM, authorization: header },
          payload: form({ grant_type: 'client_credentials' }),
        })
        assertOAuthError(response, 401, 'invalid_client')
        assert.equal(response.headers['www-authenticate'], 'Basic realm="expertdir"')
      }
    }
  })

  test('a scope parameter narrows the token; the response names the granted scopes', async () => {
    for (const [requested, granted] of [
      ['read inquiries:create', 'read inquiries:create'],
      ['inquiries:create  read read', 'read inquiries:create'],
      ['inquiries:read', 'inquiries:read'],
    ] as const) {
      const response = await ctx.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        headers: FORM,
        payload: form({ ...grant(), scope: requested }),
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(response.json().scope, granted)
      assert.equal(response.json().data.scope, granted, 'data.scope is the string when not every scope')
      const stored = await ctx.testDatabase.database.db
        .selectFrom('access_tokens')
        .select('scope')
        .where('token_hash', '=', hashToken(response.json().access_token))
        .executeTakeFirstOrThrow()
      assert.equal(stored.scope, granted)
    }
    const narrowed = (
      await ctx.inject({ method: 'POST', url: '/v2/oauth/token', payload: { ...grant(), scope: 'read' } })
    ).json().access_token
    const read = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody`,
      headers: { authorization: `Bearer ${narrowed}` },
    })
    assert.equal(read.statusCode, 404, 'a read token reads')
    const write = await ctx.inject({
      method: 'DELETE',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody`,
      headers: { authorization: `Bearer ${narrowed}` },
    })
    assert.equal(write.statusCode, 403, 'a read token cannot delete')
  })

  test('asking for every default scope, or an empty scope, gives data.scope true', async () => {
    for (const [scope, granted] of [
      ['inquiries:read inquiries:create write read', 'read write inquiries:create inquiries:read'],
      ['', 'read read:public write inquiries:create inquiries:read inquiries:handle admin'],
      [' ', 'read read:public write inquiries:create inquiries:read inquiries:handle admin'],
    ]) {
      const response = await ctx.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        payload: { ...grant(), scope },
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(response.json().data.scope, true)
      assert.equal(response.json().scope, granted)
    }
    const narrower = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      payload: { ...grant(), scope: 'read admin' },
    })
    assert.equal(narrower.json().data.scope, 'read admin')
  })

  test('an unknown scope, or one the client lacks, is 400 invalid_scope and issues nothing', async () => {
    const { db } = ctx.testDatabase.database
    const readOnly = await createClient(db, ctx.tenant.orgId, 'read only', ctx.clock.now(), ['read'])
    const defaults = await createClient(db, ctx.tenant.orgId, 'default scopes', ctx.clock.now())
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('access_tokens')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()
    for (const [client, scope, hint] of [
      [ctx.tenant.client, 'superuser', /Unknown scope: superuser/],
      [defaults, 'admin', /may not request: admin/],
      [defaults, 'read inquiries:handle', /may not request: inquiries:handle/],
      [ctx.tenant.client, 'read everything', /Unknown scope: everything/],
      [readOnly, 'write', /may not request: write/],
      [readOnly, 'read inquiries:create', /may not request: inquiries:create/],
    ] as const) {
      const response = await ctx.inject({
        method: 'POST',
        url: '/v2/oauth/token',
        headers: FORM,
        payload: form({
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
          scope,
        }),
      })
      assertOAuthError(response, 400, 'invalid_scope')
      assert.match(response.json().error_description, hint)
    }
    assert.equal(await count(), before)
    const own = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      payload: {
        grant_type: 'client_credentials',
        client_id: readOnly.client_id,
        client_secret: readOnly.client_secret,
      },
    })
    assert.equal(own.json().scope, 'read', "without a scope parameter a token gets its client's scopes")
    assert.equal(own.json().data.scope, 'read')
  })

  test('a wrong secret with a bad scope is still invalid_client: scopes are checked after authentication', async () => {
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      payload: { ...grant(), client_secret: 'wrong', scope: 'superuser' },
    })
    assertOAuthError(response, 401, 'invalid_client')
  })

  test('every request issues a new token and older ones stay valid', async () => {
    const first = await requestToken(ctx.app, ctx.tenant.client)
    const second = await requestToken(ctx.app, ctx.tenant.client)
    assert.notEqual(first, second)
    for (const token of [first, second]) {
      const response = await ctx.inject({
        method: 'POST',
        url: `/v2/organization/${ctx.tenant.orgId}/expert`,
        headers: { authorization: `Bearer ${token}` },
        payload: {
          firstname: 'Token',
          lastname: 'Check',
          job_title: 'x',
          email: `${token.slice(0, 8)}@t.example`,
          company: 'c',
        },
      })
      assert.equal(response.statusCode, 200)
    }
  })

  test('a token is valid until the second before its expiry, not after', async () => {
    const token = await requestToken(ctx.app, ctx.tenant.client)
    const probe = () =>
      ctx.inject({
        method: 'DELETE',
        url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody-here`,
        headers: { authorization: `Bearer ${token}` },
      })
    const lifetime = 30 * 24 * 3600 * 1000
    ctx.clock.advance(lifetime - 1000)
    try {
      assert.equal((await probe()).statusCode, 404)
      ctx.clock.advance(1000)
      assert.equal((await probe()).statusCode, 401)
    } finally {
      ctx.clock.advance(-lifetime)
    }
  })

  test('tokens and client secrets are stored only as hashes', async () => {
    const { db } = ctx.testDatabase.database
    const token = await requestToken(ctx.app, ctx.tenant.client)
    const tokens = await db.selectFrom('access_tokens').selectAll().execute()
    const clients = await db.selectFrom('clients').selectAll().execute()
    const stored = JSON.stringify([tokens, clients])
    assert.ok(!stored.includes(token), 'token in clear')
    assert.ok(!stored.includes(ctx.tenant.client.client_secret), 'client secret in clear')
    assert.ok(tokens.some((row) => row.token_hash === hashToken(token)))
    assert.ok(clients.every((row) => row.secret_hash.startsWith('scrypt$')))
  })

  test('logs one line per request and never a token or a secret', async () => {
    const token = await requestToken(ctx.app, ctx.tenant.client)
    await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/nobody?secret=x`,
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'log-check-1' },
    })
    const lines = ctx.logs.join('')
    assert.ok(!lines.includes(token))
    assert.ok(!lines.includes(ctx.tenant.token))
    assert.ok(!lines.includes(ctx.tenant.client.client_secret))
    const entries = ctx.logs
      .flatMap((chunk) => chunk.split('\n').filter(Boolean))
      .map((line) => JSON.parse(line))
    const mine = entries.filter((entry) => entry.reqId === 'log-check-1')
    assert.equal(mine.length, 1)
    assert.equal(mine[0].status, 404)
    assert.equal(mine[0].route, '/v2/organization/:corporation/expert/:username')
    assert.equal(typeof mine[0].duration_ms, 'number')
  })
})
