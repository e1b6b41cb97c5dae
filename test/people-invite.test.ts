import assert from 'node:assert/strict'
import { test } from 'node:test'
import { hashToken } from '../src/auth/secrets.js'
import { runCli } from './helpers/cli.js'
import { describeEachDialect } from './helpers/harness.js'
import { addPersonWithPassword, dashboard, PASSWORD, signIn } from './helpers/people.js'

/** The token of a printed link (`...#token=...`). */
function linkToken(url: string): string {
  const match = /#token=([A-Za-z0-9_-]+)$/.exec(url)
  assert.ok(match?.[1], `a link: ${url}`)
  return match[1]
}

/**
 * `expertdir people invite`: without a mail server, the operator hands a person a new link; it points
 * at the service's public address, else at the address `serve` is configured to listen on.
 */
describeEachDialect('people invite: a new link printed for the operator to hand over', (ctx) => {
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(['--db', ctx.testDatabase.url, ...args], env)
  const email = () => `invitee.${Math.random().toString(36).slice(2, 8)}@example.edu`

  /** Adds a person by `people add` (an invitation link); returns its email and first token. */
  async function invited() {
    const address = email()
    const added = await cli([
      'people',
      'add',
      '--org',
      String(ctx.tenant.orgId),
      '--email',
      address,
      '--role',
      'editor',
      '--json',
    ])
    assert.equal(added.code, 0, added.stderr)
    return { email: address, first: linkToken(JSON.parse(added.stdout).invite_url) }
  }

  test('re-issues an invitation for a person who has not set a password; only the newest link works, and accepting it signs the person in', async () => {
    const person = await invited()
    const again = await cli(['people', 'invite', '--email', person.email.toUpperCase(), '--json'])
    assert.equal(again.code, 0, again.stderr)
    const json = JSON.parse(again.stdout)
    assert.deepEqual(Object.keys(json).sort(), ['email', 'expires_at', 'id', 'kind', 'org', 'url'])
    assert.equal(json.kind, 'invitation')
    assert.equal(json.org, ctx.tenant.orgId)
    assert.match(json.url, /^http:\/\/127\.0\.0\.1:3000\/admin\/invitation#token=/)
    const token = linkToken(json.url)
    const stored = await ctx.testDatabase.database.db
      .selectFrom('person_links')
      .select(['purpose', 'token_hash'])
      .where('person_id', '=', json.id)
      .execute()
    assert.deepEqual(
      stored.map((row) => ({ ...row })),
      [{ purpose: 'invitation', token_hash: hashToken(token) }],
    )
    const accept = (t: string) =>
      ctx.inject(dashboard('POST', '/auth/invitation/accept', { payload: { token: t, password: PASSWORD } }))
    const stale = await accept(person.first)
    assert.equal(stale.statusCode, 404, 'the first link stopped working')
    assert.equal(stale.cookies.length, 0, 'no session for a refused link')
    const accepted = await accept(token)
    assert.equal(accepted.statusCode, 200)
    // Accepting signs the person in: the cookie it sets is a live session of theirs.
    const cookie = accepted.cookies.find((c) => c.name === 'expertdir_session')
    assert.ok(cookie, 'a session cookie')
    const me = await ctx.inject(dashboard('GET', '/auth/me', { cookie: cookie.value }))
    assert.equal(me.statusCode, 200, me.body)
    assert.equal(me.json().data.email, person.email)
    assert.ok(await signIn(ctx, person.email))
  })

  test('the printed link uses EXPERTDIR_PUBLIC_URL, else the configured host and port', async () => {
    const person = await invited()
    const human = await cli(['people', 'invite', '--email', person.email], {
      EXPERTDIR_PUBLIC_URL: 'https://experts.example.edu/',
    })
    assert.equal(human.code, 0, human.stderr)
    assert.match(
      human.stdout,
      /^Invitation link for invitee\.\w+@example\.edu \(organization \d+\), valid 7 days and usable once: https:\/\/experts\.example\.edu\/admin\/invitation#token=[\w-]+\n$/,
    )
    const listening = await cli(['people', 'invite', '--email', person.email, '--json'], {
      HOST: '0.0.0.0',
      PORT: '8080',
    })
    assert.match(JSON.parse(listening.stdout).url, /^http:\/\/127\.0\.0\.1:8080\/admin\/invitation#token=/)
  })

  test('a person who has set a password: refused, unless --reset prints a reset link', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const refused = await cli(['people', 'invite', '--email', person.email])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /already set a password.*Forgot password.*--reset/s)
    const reset = await cli(['people', 'invite', '--email', person.email, '--reset', '--json'])
    assert.equal(reset.code, 0, reset.stderr)
    const json = JSON.parse(reset.stdout)
    assert.equal(json.kind, 'reset')
    assert.match(json.url, /^http:\/\/127\.0\.0\.1:3000\/admin\/reset#token=/)
    const complete = await ctx.inject(
      dashboard('POST', '/auth/password-reset/complete', {
        payload: { token: linkToken(json.url), password: 'a-brand-new-passphrase-7' },
      }),
    )
    assert.equal(complete.statusCode, 200, complete.body)
    assert.ok(await signIn(ctx, person.email, 'a-brand-new-passphrase-7'))
  })

  test('an unknown person, another organization’s person, and --reset without a password are refused', async () => {
    const unknown = await cli(['people', 'invite', '--email', 'nobody.at.all@example.edu'])
    assert.equal(unknown.code, 1)
    assert.match(unknown.stderr, /No person nobody\.at\.all@example\.edu/)
    const person = await invited()
    const elsewhere = await cli([
      'people',
      'invite',
      '--email',
      person.email,
      '--org',
      String(ctx.other.orgId),
    ])
    assert.equal(elsewhere.code, 1)
    assert.match(elsewhere.stderr, new RegExp(`No person .* in organization ${ctx.other.orgId}`))
    const noPassword = await cli(['people', 'invite', '--email', person.email, '--reset'])
    assert.equal(noPassword.code, 1)
    assert.match(noPassword.stderr, /has not set a password yet/)
    const usage = await cli(['people', 'invite'])
    assert.equal(usage.code, 2)
  })
})
