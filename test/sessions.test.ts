import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { buildApp } from '../src/app.js'
import { cliWriteContext } from '../src/audit/write-context.js'
import { hashToken } from '../src/auth/secrets.js'
import { chores } from '../src/system/housekeeping.js'
import { discardingStream } from './helpers/checked.js'
import { createExpert, describeEachDialect, envelope, type TestContext } from './helpers/harness.js'
import {
  addPersonWithPassword,
  dashboard,
  dashboardToken,
  HOST,
  ORIGIN,
  PASSWORD,
  personToken,
  signIn,
} from './helpers/people.js'

const MINUTE = 60_000

async function expectError(
  ctx: TestContext,
  request: Parameters<TestContext['inject']>[0],
  status: number,
  code: string,
) {
  const response = await ctx.inject(request)
  assert.equal(response.statusCode, status, response.body)
  assert.equal(envelope(response).error?.code, code)
  return response
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describeEachDialect('sessions: sign-in, cookies, dashboard tokens', (ctx) => {
  const expertUrl = (username: string) => `/v2/organization/${ctx.tenant.orgId}/expert/${username}`

  test('signing in sets an HttpOnly, SameSite=Lax session cookie scoped to /auth, stored only as a hash', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const response = await ctx.inject(
      dashboard('POST', '/auth/sign-in', {
        payload: { email: person.email.toUpperCase(), password: PASSWORD },
      }),
    )
    assert.equal(response.statusCode, 200, response.body)
    const data = envelope(response).data ?? {}
    assert.equal(data.email, person.email)
    assert.equal(data.role, 'editor')
    assert.equal(data.scope, 'read write')
    assert.equal(data.organization, ctx.tenant.orgId)
    const header = String(response.headers['set-cookie'])
    assert.match(header, /^expertdir_session=[A-Za-z0-9_-]{43};/)
    assert.match(header, /; Path=\/auth/)
    assert.match(header, /; HttpOnly/)
    assert.match(header, /; SameSite=Lax/)
    assert.doesNotMatch(header, /; Secure/, 'plain HTTP: no Secure flag')
    const value = response.cookies[0]?.value ?? ''
    const { db } = ctx.testDatabase.database
    const rows = await db.selectFrom('person_sessions').select('token_hash').execute()
    assert.ok(rows.some((row) => row.token_hash === hashToken(value)))
    assert.ok(rows.every((row) => row.token_hash !== value))
  })

  test('the cookie is Secure when the request came over HTTPS (public URL https)', async () => {
    const app = await buildApp({
      config: { ...ctx.config, publicUrl: 'https://experts.example.edu' },
      database: ctx.testDatabase.database,
      now: ctx.clock.now,
      logStream: discardingStream(),
    })
    try {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const response = await app.inject({
        ...dashboard('POST', '/auth/sign-in', { payload: { email: person.email, password: PASSWORD } }),
        headers: { host: HOST, origin: 'https://experts.example.edu', 'content-type': 'application/json' },
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.match(String(response.headers['set-cookie']), /; Secure/)
    } finally {
      await app.close()
    }
  })

  test('a wrong password and an unknown email get the same 401 invalid_credentials', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const wrong = await expectError(
      ctx,
      dashboard('POST', '/auth/sign-in', {
        payload: { email: person.email, password: 'not the password at all' },
      }),
      401,
      'invalid_credentials',
    )
    const unknown = await expectError(
      ctx,
      dashboard('POST', '/auth/sign-in', { payload: { email: 'nobody@example.edu', password: PASSWORD } }),
      401,
      'invalid_credentials',
    )
    assert.deepEqual(envelope(wrong).error, envelope(unknown).error)
    assert.equal(wrong.headers['set-cookie'], undefined)
  })

  test('an invited person without a password cannot sign in', async () => {
    const { addPerson } = await import('../src/people/service.js')
    const added = await addPerson(
      cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'people add', ctx.clock.now()),
      { email: 'invited.only@example.edu', role: 'editor' },
    )
    assert.ok(added.invitation)
    await expectError(
      ctx,
      dashboard('POST', '/auth/sign-in', {
        payload: { email: 'invited.only@example.edu', password: PASSWORD },
      }),
      401,
      'invalid_credentials',
    )
  })

  test('ten failures lock the account for 15 minutes, answered as a wrong password, even with the right one', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const attempt = (password: string) =>
      ctx.inject(
        dashboard('POST', '/auth/sign-in', {
          payload: { email: person.email, password },
        }),
      )
    const first = await attempt('wrong password number 0')
    for (let i = 1; i < 10; i++) await attempt(`wrong password number ${i}`)
    const locked = await attempt(PASSWORD)
    assert.equal(locked.statusCode, 401)
    assert.deepEqual(locked.json(), first.json())
    ctx.clock.advance(15 * MINUTE + 1)
    assert.equal((await attempt(PASSWORD)).statusCode, 200)
  })

  test('past 50 failures from one address, every account is locked from it', async () => {
    const victim = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    for (let i = 0; i < 50; i++) {
      await ctx.inject(
        dashboard('POST', '/auth/sign-in', {
          payload: { email: `guess${i}@example.edu`, password: 'some guessed password' },
        }),
      )
    }
    // Every injected request comes from 127.0.0.1: that address is now locked out, whatever the account.
    await expectError(
      ctx,
      dashboard('POST', '/auth/sign-in', { payload: { email: victim.email, password: PASSWORD } }),
      401,
      'invalid_credentials',
    )
    ctx.clock.advance(15 * MINUTE + 1)
    assert.ok(await signIn(ctx, victim.email))
  })

  test('CSRF: a foreign or missing Origin, a form body, and a missing cookie are refused', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const cookie = await signIn(ctx, person.email)
    const base = dashboard('POST', '/auth/token', { cookie })
    const headers = { ...base.headers }
    await expectError(
      ctx,
      { ...base, headers: { ...headers, origin: 'https://evil.example' } },
      403,
      'forbidden',
    )
    const { origin: _dropped, ...noOrigin } = headers
    await expectError(ctx, { ...base, headers: noOrigin }, 403, 'forbidden')
    await expectError(
      ctx,
      { ...base, headers: { ...headers, 'sec-fetch-site': 'cross-site' } },
      403,
      'forbidden',
    )
    await expectError(
      ctx,
      {
        ...base,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'a=1',
      },
      415,
      'unsupported_media_type',
    )
    await expectError(
      ctx,
      { ...base, headers: { ...headers, 'content-type': 'text/plain' } },
      415,
      'unsupported_media_type',
    )
    await expectError(ctx, dashboard('POST', '/auth/token'), 401, 'unauthorized')
    await expectError(
      ctx,
      dashboard('POST', '/auth/sign-in', {
        payload: { email: person.email, password: PASSWORD },
        headers: { origin: 'https://evil.example' },
      }),
      403,
      'forbidden',
    )
    const { db } = ctx.testDatabase.database
    const tokens = await db.selectFrom('person_tokens').select('token_hash').execute()
    assert.equal(
      (await ctx.inject(dashboard('POST', '/auth/token', { cookie }))).statusCode,
      200,
      'the control request works',
    )
    assert.equal(
      (await db.selectFrom('person_tokens').select('token_hash').execute()).length,
      tokens.length + 1,
    )
  })

  test('the session cookie never authenticates /v2', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
    const cookie = await signIn(ctx, person.email)
    const username = await createExpert(ctx, ctx.tenant)
    await expectError(
      ctx,
      { method: 'GET', url: expertUrl(username), headers: { cookie: `expertdir_session=${cookie}` } },
      401,
      'unauthorized',
    )
    await expectError(
      ctx,
      { method: 'GET', url: expertUrl(username), headers: bearer(cookie) },
      401,
      'invalid_token',
    )
  })

  test('a dashboard token carries the role’s scopes, expires, and reads /v2 like a client token', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const editor = await personToken(ctx, ctx.tenant.orgId, 'editor')
    assert.match(editor.token, /^p\./)
    const read = await ctx.inject({ method: 'GET', url: expertUrl(username), headers: bearer(editor.token) })
    assert.equal(read.statusCode, 200, read.body)
    await expectError(
      ctx,
      { method: 'GET', url: `/v2/organization/${ctx.tenant.orgId}/inquiry`, headers: bearer(editor.token) },
      403,
      'insufficient_scope',
    )
    await expectError(
      ctx,
      {
        method: 'GET',
        url: `/v2/organization/${ctx.other.orgId}/expert/${username}`,
        headers: bearer(editor.token),
      },
      403,
      'forbidden',
    )
    ctx.clock.advance(10 * MINUTE + 1)
    await expectError(
      ctx,
      { method: 'GET', url: expertUrl(username), headers: bearer(editor.token) },
      401,
      'invalid_token',
    )
  })

  test('sign-out ends the session and its tokens at once, in another app instance too', async () => {
    const second = await buildApp({
      config: ctx.config,
      database: ctx.testDatabase.database,
      now: ctx.clock.now,
      logStream: discardingStream(),
    })
    after(() => second.close())
    const username = await createExpert(ctx, ctx.tenant)
    const person = await personToken(ctx, ctx.tenant.orgId, 'editor')
    const viaSecond = () =>
      second.inject({ method: 'GET', url: expertUrl(username), headers: bearer(person.token) })
    assert.equal((await viaSecond()).statusCode, 200)
    assert.equal(
      (await second.inject(dashboard('GET', '/auth/me', { cookie: person.cookie }))).statusCode,
      200,
    )
    const out = await ctx.inject(dashboard('POST', '/auth/sign-out', { cookie: person.cookie }))
    assert.equal(out.statusCode, 200, out.body)
    assert.match(String(out.headers['set-cookie']), /expertdir_session=;/)
    assert.equal((await viaSecond()).statusCode, 401)
    assert.equal(
      (await second.inject(dashboard('GET', '/auth/me', { cookie: person.cookie }))).statusCode,
      401,
    )
    await expectError(ctx, dashboard('POST', '/auth/token', { cookie: person.cookie }), 401, 'unauthorized')
  })

  test('removing a person and changing a role take effect on the next request', async () => {
    const { removePerson, updatePerson } = await import('../src/people/service.js')
    const { db } = ctx.testDatabase.database
    const username = await createExpert(ctx, ctx.tenant)
    const person = await personToken(ctx, ctx.tenant.orgId, 'owner')
    const inbox = {
      method: 'GET' as const,
      url: `/v2/organization/${ctx.tenant.orgId}/inquiry`,
      headers: bearer(person.token),
    }
    assert.equal((await ctx.inject(inbox)).statusCode, 200)
    await updatePerson(cliWriteContext(db, ctx.tenant.orgId, 'people update', ctx.clock.now()), person.id, {
      role: 'editor',
    })
    await expectError(ctx, inbox, 403, 'insufficient_scope')
    await removePerson(cliWriteContext(db, ctx.tenant.orgId, 'people remove', ctx.clock.now()), person.id)
    await expectError(
      ctx,
      { method: 'GET', url: expertUrl(username), headers: bearer(person.token) },
      401,
      'invalid_token',
    )
    await expectError(ctx, dashboard('GET', '/auth/me', { cookie: person.cookie }), 401, 'unauthorized')
  })

  test('a password change ends every other session of the person, and refuses a weak password', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const laptop = await signIn(ctx, person.email)
    const phone = await signIn(ctx, person.email)
    const phoneToken = await dashboardToken(ctx, phone)
    const weak = await expectError(
      ctx,
      dashboard('POST', '/auth/password', {
        cookie: laptop,
        payload: { current_password: PASSWORD, new_password: 'password1234' },
      }),
      400,
      'validation_failed',
    )
    assert.equal(envelope(weak).error?.details?.[0]?.field, 'password')
    await expectError(
      ctx,
      dashboard('POST', '/auth/password', {
        cookie: laptop,
        payload: { current_password: 'not my password really', new_password: 'another-long-passphrase-7' },
      }),
      400,
      'validation_failed',
    )
    const changed = await ctx.inject(
      dashboard('POST', '/auth/password', {
        cookie: laptop,
        payload: { current_password: PASSWORD, new_password: 'another-long-passphrase-7' },
      }),
    )
    assert.equal(changed.statusCode, 200, changed.body)
    assert.equal((await ctx.inject(dashboard('GET', '/auth/me', { cookie: laptop }))).statusCode, 200)
    assert.equal((await ctx.inject(dashboard('GET', '/auth/me', { cookie: phone }))).statusCode, 401)
    await expectError(
      ctx,
      { method: 'GET', url: `/v2/organization/${ctx.tenant.orgId}/expert`, headers: bearer(phoneToken) },
      401,
      'invalid_token',
    )
    assert.ok(await signIn(ctx, person.email, 'another-long-passphrase-7'))
  })

  test('a session ends after its idle lifetime, and after its absolute lifetime however used', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const idle = await signIn(ctx, person.email)
    ctx.clock.advance(ctx.config.sessionIdleSeconds * 1000 + 1)
    await expectError(ctx, dashboard('GET', '/auth/me', { cookie: idle }), 401, 'unauthorized')
    const busy = await signIn(ctx, person.email)
    const step = (ctx.config.sessionIdleSeconds * 1000) / 2
    for (let used = 0; used + step < ctx.config.sessionMaxSeconds * 1000; used += step) {
      assert.equal((await ctx.inject(dashboard('GET', '/auth/me', { cookie: busy }))).statusCode, 200)
      ctx.clock.advance(step)
    }
    ctx.clock.advance(step)
    await expectError(ctx, dashboard('GET', '/auth/me', { cookie: busy }), 401, 'unauthorized')
  })

  test('a generated one-time password must be changed before a token is minted', async () => {
    const { addPerson } = await import('../src/people/service.js')
    await addPerson(
      cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'people add', ctx.clock.now()),
      { email: 'first.owner@example.edu', role: 'owner', password: 'Generated-Once-9x7', mustChange: true },
    )
    const cookie = await signIn(ctx, 'first.owner@example.edu', 'Generated-Once-9x7')
    const me = await ctx.inject(dashboard('GET', '/auth/me', { cookie }))
    assert.equal(me.json().data.password_change_required, true)
    await expectError(ctx, dashboard('POST', '/auth/token', { cookie }), 403, 'forbidden')
    const changed = await ctx.inject(
      dashboard('POST', '/auth/password', {
        cookie,
        payload: { current_password: 'Generated-Once-9x7', new_password: 'chosen-by-the-owner-2026' },
      }),
    )
    assert.equal(changed.statusCode, 200, changed.body)
    assert.ok(await dashboardToken(ctx, cookie))
  })

  test('the Origin must be the public URL’s when one is set', async () => {
    const app = await buildApp({
      config: { ...ctx.config, publicUrl: 'https://experts.example.edu' },
      database: ctx.testDatabase.database,
      now: ctx.clock.now,
      logStream: discardingStream(),
    })
    try {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const request = dashboard('POST', '/auth/sign-in', {
        payload: { email: person.email, password: PASSWORD },
      })
      assert.equal((await app.inject(request)).statusCode, 403, `${ORIGIN} is not the public origin`)
    } finally {
      await app.close()
    }
  })

  test('no password, cookie or dashboard token ever reaches the log', async () => {
    const before = ctx.logs.length
    const person = await personToken(ctx, ctx.tenant.orgId, 'editor')
    await ctx.inject(
      dashboard('POST', '/auth/password', {
        cookie: person.cookie,
        payload: { current_password: PASSWORD, new_password: 'log-test-passphrase-2026' },
      }),
    )
    await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert`,
      headers: bearer(person.token),
    })
    const written = ctx.logs.slice(before).join('\n')
    assert.ok(ctx.logs.length > before, 'requests were logged')
    for (const secret of [
      PASSWORD,
      'log-test-passphrase-2026',
      person.cookie,
      person.token,
      person.token.slice(2),
    ]) {
      assert.ok(!written.includes(secret), 'a secret was logged')
    }
  })

  test('housekeeping deletes sessions, dashboard tokens and links past their end, and nothing live', async () => {
    const { addPerson } = await import('../src/people/service.js')
    const { db } = ctx.testDatabase.database
    const person = await personToken(ctx, ctx.tenant.orgId, 'editor')
    await addPerson(cliWriteContext(db, ctx.tenant.orgId, 'people add', ctx.clock.now()), {
      email: 'housekeeping@example.edu',
      role: 'editor',
    })
    const count = async () => ({
      sessions: (await db.selectFrom('person_sessions').select('id').execute()).length,
      tokens: (await db.selectFrom('person_tokens').select('token_hash').execute()).length,
      links: (await db.selectFrom('person_links').select('token_hash').execute()).length,
    })
    const runChores = () =>
      Promise.all(
        [chores({}).expired_sessions, chores({}).expired_person_links].map((chore) =>
          chore?.(db, ctx.clock.now()),
        ),
      )
    await runChores()
    const live = await count()
    assert.ok(live.sessions > 0 && live.tokens > 0 && live.links > 0)
    assert.ok(
      await db
        .selectFrom('person_tokens')
        .select('token_hash')
        .where('token_hash', '=', hashToken(person.token))
        .executeTakeFirst(),
    )
    ctx.clock.advance(8 * 24 * 3600 * 1000)
    try {
      await runChores()
      assert.deepEqual(await count(), { sessions: 0, tokens: 0, links: 0 })
    } finally {
      ctx.clock.advance(-8 * 24 * 3600 * 1000)
    }
  })
})
