import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.js'
import { cliWriteContext } from '../src/audit/write-context.js'
import { hashToken } from '../src/auth/secrets.js'
import { loadConfig } from '../src/config.js'
import { addPerson, updatePerson } from '../src/people/service.js'
import { discardingStream } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { createExpert, describeEachDialect, envelope } from './helpers/harness.js'
import { addPersonWithPassword, dashboard, PASSWORD, signIn } from './helpers/people.js'
import { SmtpReceiver } from './helpers/receivers.js'

const DAY = 24 * 3600 * 1000

/** The token of an emailed (quoted-printable) or printed link (`...#token=...`). */
function linkToken(text: string): string {
  const decoded = text.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
  const match = /#token=([A-Za-z0-9_-]+)/.exec(decoded)
  assert.ok(match?.[1], `a link in: ${text}`)
  return match[1]
}

test("password hashes cost OWASP's minimum unless EXPERTDIR_PASSWORD_MEMORY_KIB says more", () => {
  assert.equal(loadConfig({}, {}).passwordMemoryKib, 19_456)
  assert.equal(loadConfig({}, { EXPERTDIR_PASSWORD_MEMORY_KIB: '65536' }).passwordMemoryKib, 65_536)
  assert.throws(
    () => loadConfig({}, { EXPERTDIR_PASSWORD_MEMORY_KIB: '512' }),
    /EXPERTDIR_PASSWORD_MEMORY_KIB/,
  )
})

describeEachDialect('people: the CLI, passwords, invitations and resets', (ctx) => {
  const cli = (args: string[], stdin?: string) => runCli(['--db', ctx.testDatabase.url, ...args], {}, stdin)
  const org = () => String(ctx.tenant.orgId)

  test('people add prints a single-use invitation link; accepting it sets the password once', async () => {
    const added = await cli([
      'people',
      'add',
      '--org',
      org(),
      '--email',
      'New.Editor@Example.edu',
      '--role',
      'editor',
      '--json',
    ])
    assert.equal(added.code, 0, added.stderr)
    const json = JSON.parse(added.stdout)
    assert.deepEqual(Object.keys(json).sort(), ['email', 'id', 'invite_url', 'role'])
    assert.equal(json.role, 'editor')
    assert.match(json.invite_url, /^http:\/\/127\.0\.0\.1:3000\/admin\/invitation#token=/)
    const token = linkToken(json.invite_url)
    const { db } = ctx.testDatabase.database
    // Every link of the person, so that a failure shows what is stored.
    const links = await db
      .selectFrom('person_links')
      .select(['purpose', 'token_hash'])
      .where('person_id', '=', json.id)
      .execute()
    assert.deepEqual(
      links.map((link) => ({ ...link })),
      [{ purpose: 'invitation', token_hash: hashToken(token) }],
      'one link, only its hash stored',
    )
    const weak = await ctx.inject(
      dashboard('POST', '/auth/invitation/accept', { payload: { token, password: 'qwerty123456' } }),
    )
    assert.equal(weak.statusCode, 400, weak.body)
    assert.match(envelope(weak).error?.details?.[0]?.message ?? '', /common/)
    const accept = () =>
      ctx.inject(dashboard('POST', '/auth/invitation/accept', { payload: { token, password: PASSWORD } }))
    assert.equal((await accept()).statusCode, 200, 'a refused password left the link usable')
    const again = await accept()
    assert.equal(again.statusCode, 404)
    assert.equal(envelope(again).error?.code, 'not_found')
    assert.ok(await signIn(ctx, 'new.editor@example.edu'))
  })

  test('an invitation link expires after 7 days', async () => {
    const added = await addPerson(
      cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'people add', ctx.clock.now()),
      { email: 'late@example.edu', role: 'editor' },
    )
    ctx.clock.advance(7 * DAY + 1)
    try {
      const response = await ctx.inject(
        dashboard('POST', '/auth/invitation/accept', {
          payload: { token: added.invitation, password: PASSWORD },
        }),
      )
      assert.equal(response.statusCode, 404, response.body)
    } finally {
      ctx.clock.advance(-(7 * DAY + 1))
    }
  })

  test('--password-stdin sets an argon2id hash; short and common passwords are refused', async () => {
    const good = await cli(
      [
        'people',
        'add',
        '--org',
        org(),
        '--email',
        'stdin@example.edu',
        '--role',
        'admin',
        '--password-stdin',
        '--json',
      ],
      `${PASSWORD}\n`,
    )
    assert.equal(good.code, 0, good.stderr)
    assert.equal(JSON.parse(good.stdout).invite_url, null)
    const { db } = ctx.testDatabase.database
    const row = await db
      .selectFrom('people')
      .select('password_hash')
      .where('email_key', '=', 'stdin@example.edu')
      .executeTakeFirstOrThrow()
    // The CLI runs here with an empty environment: the production parameters, not the tests' cheaper ones.
    assert.match(row.password_hash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    assert.ok(!(row.password_hash ?? '').includes(PASSWORD))
    assert.ok(await signIn(ctx, 'stdin@example.edu'))
    const short = await cli(
      [
        'people',
        'add',
        '--org',
        org(),
        '--email',
        'short@example.edu',
        '--role',
        'editor',
        '--password-stdin',
      ],
      'Short-pw-1\n',
    )
    assert.equal(short.code, 1)
    assert.match(short.stderr, /password must be at least 12 characters/)
    const common = await cli(
      [
        'people',
        'add',
        '--org',
        org(),
        '--email',
        'common@example.edu',
        '--role',
        'editor',
        '--password-stdin',
      ],
      '1q2w3e4r5t6y\n',
    )
    assert.equal(common.code, 1)
    assert.match(common.stderr, /most common passwords/)
    assert.equal(
      await db
        .selectFrom('people')
        .select('id')
        .where('email_key', 'in', ['short@example.edu', 'common@example.edu'])
        .executeTakeFirst(),
      undefined,
    )
  })

  test('emails are unique across the service, whatever their case', async () => {
    await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor').then(async (person) => {
      const clash = await cli([
        'people',
        'add',
        '--org',
        String(ctx.other.orgId),
        '--email',
        person.email.toUpperCase(),
        '--role',
        'owner',
      ])
      assert.equal(clash.code, 1)
      assert.match(clash.stderr, /already used/)
    })
  })

  test('an expert person needs an expert of its organization; other roles take none', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const missing = await cli([
      'people',
      'add',
      '--org',
      org(),
      '--email',
      'e1@example.edu',
      '--role',
      'expert',
    ])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /expert is required/)
    const foreign = await cli([
      'people',
      'add',
      '--org',
      String(ctx.other.orgId),
      '--email',
      'e2@example.edu',
      '--role',
      'expert',
      '--expert',
      username,
    ])
    assert.equal(foreign.code, 1)
    assert.match(foreign.stderr, /names no expert/)
    const editor = await cli([
      'people',
      'add',
      '--org',
      org(),
      '--email',
      'e3@example.edu',
      '--role',
      'editor',
      '--expert',
      username,
    ])
    assert.equal(editor.code, 1)
    const ok = await cli([
      'people',
      'add',
      '--org',
      org(),
      '--email',
      'e4@example.edu',
      '--role',
      'expert',
      '--expert',
      username,
      '--json',
    ])
    assert.equal(ok.code, 0, ok.stderr)
    const bad = await cli(['people', 'add', '--org', org(), '--email', 'e5@example.edu', '--role', 'boss'])
    assert.equal(bad.code, 1)
    assert.match(bad.stderr, /role must be one of: owner, admin, editor, inquiries, expert/)
  })

  test('people list shows roles and invitations, never a hash; remove keeps the last owner', async () => {
    const tenant = await ctx.addTenant('People Org')
    const orgId = String(tenant.orgId)
    const owner = await cli([
      'people',
      'add',
      '--org',
      orgId,
      '--email',
      'only.owner@example.edu',
      '--role',
      'owner',
    ])
    assert.equal(owner.code, 0, owner.stderr)
    await cli(['people', 'add', '--org', orgId, '--email', 'helper@example.edu', '--role', 'inquiries'])
    const list = await cli(['people', 'list', '--org', orgId, '--json'])
    const people = JSON.parse(list.stdout).people
    assert.deepEqual(
      people.map((p: { email: string; role: string; has_password: boolean }) => [
        p.email,
        p.role,
        p.has_password,
      ]),
      [
        ['only.owner@example.edu', 'owner', false],
        ['helper@example.edu', 'inquiries', false],
      ],
    )
    assert.doesNotMatch(list.stdout, /argon2|hash/)
    const last = await cli(['people', 'remove', '--org', orgId, '--email', 'only.owner@example.edu'])
    assert.equal(last.code, 1)
    assert.match(last.stderr, /must keep an owner/)
    const removed = await cli(['people', 'remove', '--org', orgId, '--email', 'HELPER@example.edu', '--json'])
    assert.equal(removed.code, 0, removed.stderr)
    assert.equal(JSON.parse(removed.stdout).removed, true)
    const unknown = await cli(['people', 'remove', '--org', orgId, '--email', 'helper@example.edu'])
    assert.equal(unknown.code, 1)
  })

  test('an admin may not make an owner nor demote one; the last owner keeps the role', async () => {
    const { db } = ctx.testDatabase.database
    const tenant = await ctx.addTenant('Roles Org')
    const owner = await addPersonWithPassword(ctx, tenant.orgId, 'owner')
    const editor = await addPersonWithPassword(ctx, tenant.orgId, 'editor')
    const asAdmin = { actor: { kind: 'person', id: 1, role: 'admin' }, action: 'test' } as const
    const asOwner = { actor: { kind: 'person', id: 2, role: 'owner' }, action: 'test' } as const
    await assert.rejects(
      updatePerson({ db, orgId: tenant.orgId, now: ctx.clock.now(), trail: asAdmin }, editor.id, {
        role: 'owner',
      }),
      /Only an owner/,
    )
    await assert.rejects(
      updatePerson({ db, orgId: tenant.orgId, now: ctx.clock.now(), trail: asAdmin }, owner.id, {
        role: 'editor',
      }),
      /Only an owner/,
    )
    await assert.rejects(
      updatePerson({ db, orgId: tenant.orgId, now: ctx.clock.now(), trail: asOwner }, owner.id, {
        role: 'editor',
      }),
      /must keep an owner/,
    )
    const promoted = await updatePerson(
      { db, orgId: tenant.orgId, now: ctx.clock.now(), trail: asOwner },
      editor.id,
      { role: 'owner' },
    )
    assert.equal(promoted.role, 'owner')
    const demoted = await updatePerson(
      cliWriteContext(db, tenant.orgId, 'people update', ctx.clock.now()),
      owner.id,
      { role: 'admin', name: 'Former Owner' },
    )
    assert.deepEqual([demoted.role, demoted.name], ['admin', 'Former Owner'])
  })
})

describeEachDialect('people: password resets by email', (ctx) => {
  const smtp = new SmtpReceiver()
  let app: FastifyInstance
  before(async () => {
    await smtp.start()
    app = await buildApp({
      config: { ...ctx.config, smtpUrl: smtp.url, publicUrl: 'http://experts.example.edu' },
      database: ctx.testDatabase.database,
      now: ctx.clock.now,
      logStream: discardingStream(),
    })
  })
  after(async () => {
    await app?.close()
    await smtp.stop()
  })

  const requestReset = (email: string) =>
    app.inject(dashboard('POST', '/auth/password-reset', { payload: { email } }))
  const complete = (token: string, password: string) =>
    app.inject(dashboard('POST', '/auth/password-reset/complete', { payload: { token, password } }))

  test('a reset link is emailed, works once, and ends every session', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const session = await signIn(ctx, person.email)
    const sent = smtp.messages.length
    const response = await requestReset(person.email.toUpperCase())
    assert.equal(response.statusCode, 200, response.body)
    const mail = (await smtp.received(sent + 1)).slice(sent)
    assert.equal(mail.length, 1)
    assert.deepEqual(mail[0]?.to, [person.email])
    assert.match(
      (mail[0]?.raw ?? '').replace(/=\r?\n/g, ''),
      /http:\/\/experts\.example\.edu\/admin\/reset#token=/,
    )
    const token = linkToken(mail[0]?.raw ?? '')
    assert.equal((await complete(token, 'a-brand-new-passphrase-1')).statusCode, 200)
    assert.equal((await complete(token, 'a-second-new-passphrase-2')).statusCode, 404, 'single use')
    assert.equal((await ctx.inject(dashboard('GET', '/auth/me', { cookie: session }))).statusCode, 401)
    assert.ok(await signIn(ctx, person.email, 'a-brand-new-passphrase-1'))
  })

  test('an unknown address gets the same answer and no email', async () => {
    const sent = smtp.messages.length
    const response = await requestReset('nobody.here@example.edu')
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { success: true, data: { done: true } })
    // Requests are handled in order: once a later one's email arrives, the unknown one is done.
    const later = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    await requestReset(later.email)
    const mail = (await smtp.received(sent + 1)).slice(sent)
    assert.deepEqual(
      mail.map((m) => m.to),
      [[later.email]],
    )
  })

  test('a reset link expires after an hour, and only the newest link works', async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const sent = smtp.messages.length
    await requestReset(person.email)
    await requestReset(person.email)
    const [older, newer] = (await smtp.received(sent + 2)).slice(sent).map((m) => linkToken(m.raw))
    assert.ok(older && newer)
    assert.equal((await complete(older, 'a-brand-new-passphrase-1')).statusCode, 404)
    ctx.clock.advance(3600 * 1000 + 1)
    try {
      assert.equal((await complete(newer, 'a-brand-new-passphrase-1')).statusCode, 404)
    } finally {
      ctx.clock.advance(-(3600 * 1000 + 1))
    }
    assert.ok(await signIn(ctx, person.email, PASSWORD), 'the password is unchanged')
  })
})
