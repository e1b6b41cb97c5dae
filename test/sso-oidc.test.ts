import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import { buildApp } from '../src/app.js'
import { cliWriteContext } from '../src/audit/write-context.js'
import { addPerson } from '../src/people/service.js'
import { describeEachDialect, envelope } from './helpers/harness.js'
import { mailText } from './helpers/mail-text.js'
import {
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  type TestAccount,
  TestOidcProvider,
  throughProvider,
} from './helpers/oidc-provider.js'
import {
  addPersonWithPassword,
  dashboard,
  dashboardToken,
  ORIGIN,
  PASSWORD,
  personToken,
} from './helpers/people.js'
import { SmtpReceiver } from './helpers/receivers.js'

const REDIRECT_URI = `${ORIGIN}/auth/sso/oidc/callback`

let counter = 0
const emailAt = (domain = 'example.edu') => `person${++counter}.${randomBytes(3).toString('hex')}@${domain}`

const SESSION = 'expertdir_session'
const TRANSACTION = 'expertdir_sso'

/** Confirmation links and owners' notices go through a real SMTP server on 127.0.0.1. */
const smtp = new SmtpReceiver()
await smtp.start()
after(() => smtp.stop())

/** The confirmation link of the newest message to `email` (a path and query of this service). */
function confirmationLink(email: string): string {
  const message = smtp.messages.findLast((candidate) => candidate.to.includes(email))
  assert.ok(message, `a message to ${email}`)
  const text = mailText(message.raw)
  const link = /http:\/\/experts\.example\.edu(\/auth\/sso\/confirm\?token=[A-Za-z0-9_-]+)/.exec(text)?.[1]
  assert.ok(link, `a confirmation link in: ${text}`)
  return link
}

/**
 * OpenID Connect sign-in against a real provider (`oidc-provider`) on 127.0.0.1: PKCE, state and nonce,
 * group mapping, people created on first sign-in when allowed, domain and organization refusals, the
 * passwords-off switch.
 */
describeEachDialect(
  'single sign-on with OpenID Connect',
  (ctx) => {
    let provider: TestOidcProvider
    /** The owner's dashboard token: only an owner changes single sign-on. */
    let ownerAuth: Record<string, string>
    before(async () => {
      provider = await TestOidcProvider.start([REDIRECT_URI])
      const owner = await personToken(ctx, ctx.tenant.orgId, 'owner')
      ownerAuth = { authorization: `Bearer ${owner.token}` }
    })
    after(async () => {
      await provider?.close()
    })

    /** Sets the tenant's SSO: the test provider, two mapped groups, people created, example.edu only. */
    async function configure(
      changes: Record<string, unknown> = {},
      orgId = ctx.tenant.orgId,
      headers = ownerAuth,
    ) {
      const response = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${orgId}/sso`,
        headers,
        payload: {
          protocol: 'oidc',
          issuer: provider.issuer,
          client_id: OIDC_CLIENT_ID,
          client_secret: OIDC_CLIENT_SECRET,
          scope: 'openid email profile groups',
          role_mapping: [
            { group: 'faculty-editors', role: 'editor' },
            { group: 'expertdir-admins', role: 'admin' },
          ],
          default_role: null,
          allow_create: 1,
          allowed_domains: ['example.edu'],
          passwords_off: 0,
          ...changes,
        },
      })
      assert.equal(response.statusCode, 200, response.body)
    }

    /** A whole sign-in as a browser makes it: our redirect, the provider, our callback. */
    async function signInAs(
      account: TestAccount,
      options: { sendTransactionCookie?: boolean; orgId?: number } = {},
    ) {
      provider.signInNext(account)
      const start = await ctx.inject({
        method: 'GET',
        url: `/auth/sso/${options.orgId ?? ctx.tenant.orgId}/oidc`,
      })
      assert.equal(start.statusCode, 302, start.body)
      const key = start.cookies.find((cookie) => cookie.name === TRANSACTION)?.value ?? ''
      const back = await throughProvider(provider, String(start.headers.location))
      assert.equal(`${back.origin}${back.pathname}`, REDIRECT_URI)
      const url = `${back.pathname}${back.search}`
      const callback = await ctx.inject({
        method: 'GET',
        url,
        ...(options.sendTransactionCookie === false ? {} : { cookies: { [TRANSACTION]: key } }),
      })
      const session = callback.cookies.find((cookie) => cookie.name === SESSION)
      return { start, key, url, callback, session }
    }

    /**
     * A first sign-in into an existing account: no session, a link to the person's address, which
     * signs in only in the browser that signed in. Returns the session cookie's value.
     */
    async function signInConfirmed(account: TestAccount, options: { orgId?: number } = {}) {
      const first = await signInAs(account, options)
      assert.equal(first.callback.statusCode, 303, first.callback.body)
      assert.equal(first.callback.headers.location, '/admin/?sso=check-email')
      assert.equal(first.session, undefined, 'no session before the person confirms')
      const confirmed = await ctx.inject({
        method: 'GET',
        url: confirmationLink(account.email),
        cookies: { [TRANSACTION]: first.key },
      })
      assert.equal(confirmed.statusCode, 303, confirmed.body)
      assert.equal(confirmed.headers.location, '/admin/')
      const session = confirmed.cookies.find((cookie) => cookie.name === SESSION)
      assert.ok(session, 'signed in once confirmed')
      return session.value
    }

    async function me(cookie: string | undefined) {
      const response = await ctx.inject(dashboard('GET', '/auth/me', { cookie: cookie ?? '' }))
      assert.equal(response.statusCode, 200, response.body)
      return envelope(response).data ?? {}
    }

    async function peopleCount(): Promise<number> {
      const row = await ctx.testDatabase.database.db
        .selectFrom('people')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    }

    test('signs in with PKCE, state and nonce: the callback sets the session cookie as password sign-in does and lands on the dashboard', async () => {
      await configure()
      const email = emailAt()
      const { start, callback, session } = await signInAs({
        email,
        name: 'Ada Okafor',
        groups: ['faculty-editors', 'expertdir-admins', 'unmapped'],
      })
      assert.equal(start.headers['cache-control'], 'no-store')
      const asked = provider.authorizationRequests.at(-1)
      assert.ok(asked)
      assert.equal(asked.searchParams.get('code_challenge_method'), 'S256')
      assert.match(asked.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/)
      assert.ok(asked.searchParams.get('state'))
      assert.ok(asked.searchParams.get('nonce'))
      assert.equal(asked.searchParams.get('redirect_uri'), REDIRECT_URI)
      assert.equal(asked.searchParams.get('scope'), 'openid email profile groups')
      const transactionCookie = String(start.headers['set-cookie'])
      assert.match(transactionCookie, /expertdir_sso=[A-Za-z0-9_-]{43};/)
      assert.match(transactionCookie, /Path=\/auth\/sso/)
      assert.match(transactionCookie, /HttpOnly/)
      assert.match(transactionCookie, /SameSite=Lax/)

      assert.equal(callback.statusCode, 303, callback.body)
      assert.equal(callback.headers.location, '/admin/')
      assert.ok(session, 'a session cookie')
      assert.equal(session.path, '/auth')
      assert.equal(session.httpOnly, true)
      assert.equal(session.sameSite, 'Lax')
      const person = await me(session.value)
      assert.equal(person.email, email)
      assert.equal(person.name, 'Ada Okafor')
      assert.equal(person.role, 'admin', 'the highest mapped role wins')
      assert.equal(person.organization, ctx.tenant.orgId)
      // The session is a session like any other: it mints dashboard tokens for /v2.
      const token = await dashboardToken(ctx, session.value)
      const settings = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${ctx.tenant.orgId}/sso`,
        headers: { authorization: `Bearer ${token}` },
      })
      assert.equal(settings.statusCode, 200, settings.body)
      const left = await ctx.testDatabase.database.db.selectFrom('sso_transactions').selectAll().execute()
      assert.equal(left.length, 0, 'the transaction is used up')
    })

    test('creates a person on first sign-in when allowed, and matches them by email, case-insensitively, the next time', async () => {
      await configure()
      const email = emailAt()
      const before = await peopleCount()
      const first = await signInAs({
        email: email.toUpperCase().replace('EXAMPLE.EDU', 'Example.edu'),
        groups: ['faculty-editors'],
      })
      assert.equal(first.callback.statusCode, 303, first.callback.body)
      assert.equal(await peopleCount(), before + 1)
      const created = await me(first.session?.value)
      assert.equal(created.role, 'editor')
      const links = await ctx.testDatabase.database.db
        .selectFrom('person_links')
        .selectAll()
        .where('person_id', '=', Number(created.id))
        .execute()
      assert.equal(links.length, 0, 'no invitation for a person who signs in through SSO')
      const again = await signInAs({ email, groups: ['faculty-editors'] })
      assert.equal(again.callback.statusCode, 303, again.callback.body)
      assert.equal((await me(again.session?.value)).id, created.id)
      assert.equal(await peopleCount(), before + 1)
    })

    test('a later sign-in gives an existing person the role of their groups; an owner stays owner', async () => {
      await configure()
      const editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      await signInConfirmed({ email: editor.email, groups: [] })
      const promoted = await signInAs({ email: editor.email, groups: ['expertdir-admins'] })
      assert.equal((await me(promoted.session?.value)).role, 'admin')
      const owner = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
      await signInConfirmed({ email: owner.email, groups: [] })
      const kept = await signInAs({ email: owner.email, groups: ['faculty-editors'] })
      assert.equal((await me(kept.session?.value)).role, 'owner')
      const unmapped = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'inquiries')
      await signInConfirmed({ email: unmapped.email, groups: [] })
      const same = await signInAs({ email: unmapped.email, groups: [] })
      assert.equal((await me(same.session?.value)).role, 'inquiries', 'no mapped group: the role stays')
    })

    test('allow_create 0: someone without an account is refused and nobody is created; an invited person signs in once they confirm', async () => {
      await configure({ allow_create: 0 })
      const before = await peopleCount()
      const refused = await signInAs({ email: emailAt(), groups: ['expertdir-admins'] })
      assert.equal(refused.callback.statusCode, 403, refused.callback.body)
      assert.equal(envelope(refused.callback).error?.code, 'forbidden')
      assert.equal(refused.session, undefined)
      assert.equal(await peopleCount(), before)
      const invited = emailAt()
      await addPerson(
        cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'people add', ctx.clock.now()),
        { email: invited, role: 'editor' },
      )
      assert.equal((await me(await signInConfirmed({ email: invited, groups: [] }))).role, 'editor')
    })

    test('no mapped group and no account: refused unless a default role is set', async () => {
      await configure()
      const email = emailAt()
      const refused = await signInAs({ email, groups: ['students'] })
      assert.equal(refused.callback.statusCode, 403, refused.callback.body)
      assert.match(envelope(refused.callback).error?.message ?? '', /None of your groups/)
      await configure({ default_role: 'inquiries' })
      const created = await signInAs({ email, groups: ['students'] })
      assert.equal(created.callback.statusCode, 303, created.callback.body)
      assert.equal((await me(created.session?.value)).role, 'inquiries')
    })

    test('an email outside the allowed domains, or of another organization’s account, is refused', async () => {
      await configure()
      const before = await peopleCount()
      const outside = await signInAs({ email: emailAt('elsewhere.example'), groups: ['expertdir-admins'] })
      assert.equal(outside.callback.statusCode, 403, outside.callback.body)
      assert.match(envelope(outside.callback).error?.message ?? '', /elsewhere\.example/)
      const stranger = await addPersonWithPassword(ctx, ctx.other.orgId, 'owner')
      const other = await signInAs({ email: stranger.email, groups: ['expertdir-admins'] })
      assert.equal(other.callback.statusCode, 403, other.callback.body)
      assert.equal(await peopleCount(), before + 1, 'only the other organization’s owner was added')
    })

    test('the callback is single-use and works only in the browser that started the sign-in', async () => {
      await configure()
      const email = emailAt()
      const stolen = await signInAs({ email, groups: ['faculty-editors'] }, { sendTransactionCookie: false })
      assert.equal(stolen.callback.statusCode, 401, stolen.callback.body)
      assert.equal(envelope(stolen.callback).error?.code, 'unauthorized')
      assert.equal(stolen.session, undefined)
      const used = await signInAs({ email, groups: ['faculty-editors'] })
      assert.equal(used.callback.statusCode, 303, used.callback.body)
      const replay = await ctx.inject({ method: 'GET', url: used.url, cookies: { [TRANSACTION]: used.key } })
      assert.equal(replay.statusCode, 401, replay.body)
    })

    test('the provider’s refusal and a forged state are refused', async () => {
      await configure()
      const start = await ctx.inject({ method: 'GET', url: `/auth/sso/${ctx.tenant.orgId}/oidc` })
      const key = start.cookies.find((cookie) => cookie.name === TRANSACTION)?.value ?? ''
      const state = new URL(String(start.headers.location)).searchParams.get('state') ?? ''
      const denied = await ctx.inject({
        method: 'GET',
        url: `/auth/sso/oidc/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(provider.issuer)}`,
        cookies: { [TRANSACTION]: key },
      })
      assert.equal(denied.statusCode, 401, denied.body)
      assert.match(envelope(denied).error?.message ?? '', /access_denied/)

      provider.signInNext({ email: emailAt(), groups: ['expertdir-admins'] })
      const next = await ctx.inject({ method: 'GET', url: `/auth/sso/${ctx.tenant.orgId}/oidc` })
      const nextKey = next.cookies.find((cookie) => cookie.name === TRANSACTION)?.value ?? ''
      const back = await throughProvider(provider, String(next.headers.location))
      back.searchParams.set('state', 'forged')
      const forged = await ctx.inject({
        method: 'GET',
        url: `${back.pathname}${back.search}`,
        cookies: { [TRANSACTION]: nextKey },
      })
      assert.equal(forged.statusCode, 401, forged.body)
    })

    test('passwords off: password sign-in answers as a wrong password does, resets and links are refused, SSO still signs in', async () => {
      await configure()
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const { db } = ctx.testDatabase.database
      const invited = await addPerson(cliWriteContext(db, ctx.tenant.orgId, 'people add', ctx.clock.now()), {
        email: emailAt(),
        role: 'editor',
      })
      await configure({ passwords_off: 1 })
      try {
        const password = await ctx.inject(
          dashboard('POST', '/auth/sign-in', { payload: { email: person.email, password: PASSWORD } }),
        )
        const wrong = await ctx.inject(
          dashboard('POST', '/auth/sign-in', { payload: { email: person.email, password: `${PASSWORD}x` } }),
        )
        assert.equal(password.statusCode, 401)
        assert.deepEqual(password.json(), wrong.json(), 'the same answer as a wrong password')
        const links = async () => (await db.selectFrom('person_links').selectAll().execute()).length
        const before = await links()
        const reset = await ctx.inject(
          dashboard('POST', '/auth/password-reset', { payload: { email: person.email } }),
        )
        assert.equal(reset.statusCode, 200, 'the same answer whatever the address')
        assert.equal(await links(), before, 'no reset link issued')
        const accept = await ctx.inject(
          dashboard('POST', '/auth/invitation/accept', {
            payload: { token: invited.invitation, password: 'a-brand-new-passphrase-9' },
          }),
        )
        assert.equal(accept.statusCode, 404, accept.body)
        assert.equal(
          (await me(await signInConfirmed({ email: person.email, groups: [] }))).email,
          person.email,
        )
        const lookup = await ctx.inject({ method: 'GET', url: `/auth/sso/${ctx.tenant.orgId}` })
        assert.deepEqual(lookup.json().data.options[0].passwords, false)
      } finally {
        await configure({ passwords_off: 0 })
      }
      const again = await ctx.inject(
        dashboard('POST', '/auth/sign-in', { payload: { email: person.email, password: PASSWORD } }),
      )
      assert.equal(again.statusCode, 200, again.body)
    })

    test('an admin person’s or an admin client’s SSO change cannot sign anyone in as the owner', async () => {
      const victim = await ctx.addTenant('Victim College')
      const owner = await personToken(ctx, victim.orgId, 'owner')
      const admin = await personToken(ctx, victim.orgId, 'admin')
      // The attack: point the organization's SSO at a provider the attacker controls (here, the test
      // provider) that asserts the owner's email, then sign in.
      const takeover = {
        protocol: 'oidc',
        issuer: provider.issuer,
        client_id: OIDC_CLIENT_ID,
        client_secret: OIDC_CLIENT_SECRET,
        allow_create: 1,
        default_role: 'admin',
      }
      for (const headers of [{ authorization: `Bearer ${admin.token}` }, victim.auth]) {
        const refused = await ctx.inject({
          method: 'PUT',
          url: `/v2/organization/${victim.orgId}/sso`,
          headers,
          payload: takeover,
        })
        assert.equal(refused.statusCode, 403, refused.body)
        assert.match(envelope(refused).error?.message ?? '', /Only an owner may change single sign-on/)
        const start = await ctx.inject({ method: 'GET', url: `/auth/sso/${victim.orgId}/oidc` })
        assert.equal(start.statusCode, 404, 'no sign-in through the attacker’s provider')
      }
      // Even a provider the owner set up signs in no one as an existing account on the email alone.
      await configure({ allowed_domains: [] }, victim.orgId, { authorization: `Bearer ${owner.token}` })
      const asOwner = await signInAs(
        { email: owner.email, sub: 'attacker-controlled', groups: [] },
        { orgId: victim.orgId },
      )
      assert.equal(asOwner.callback.statusCode, 303, asOwner.callback.body)
      assert.equal(asOwner.callback.headers.location, '/admin/?sso=check-email')
      assert.equal(asOwner.session, undefined, 'no session as the owner')
      const link = confirmationLink(owner.email)
      const elsewhere = await ctx.inject({ method: 'GET', url: link })
      assert.equal(elsewhere.statusCode, 401, 'the link works only in the browser that signed in')
      assert.equal(
        (await ctx.inject({ method: 'GET', url: link, cookies: { [TRANSACTION]: 'another-browser' } }))
          .statusCode,
        401,
      )
      const bound = await ctx.testDatabase.database.db
        .selectFrom('sso_identities')
        .selectAll()
        .where('org_id', '=', victim.orgId)
        .execute()
      assert.equal(bound.length, 0, 'nobody bound until the owner confirms')
    })

    test('a first sign-in into an existing account binds it once confirmed: the link is single-use, and mail scanners do not use it up', async () => {
      await configure()
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const first = await signInAs({ email: person.email, groups: [] })
      assert.equal(first.callback.headers.location, '/admin/?sso=check-email')
      const cookie = String(first.callback.headers['set-cookie'])
      assert.match(
        cookie,
        /expertdir_sso=.*Max-Age=1800/,
        'the browser keeps its cookie for the link’s 30 minutes',
      )
      const link = confirmationLink(person.email)
      const message = mailText(smtp.messages.findLast((m) => m.to.includes(person.email))?.raw ?? '')
      assert.match(message, /Subject: Confirm your single sign-on to the expert directory/)
      assert.match(message, /in the same browser within 30 minutes/)
      const scanner = await ctx.inject({ method: 'GET', url: link })
      assert.equal(scanner.statusCode, 401, scanner.body)
      assert.match(envelope(scanner).error?.message ?? '', /in the browser where you signed in/)
      const confirmed = await ctx.inject({ method: 'GET', url: link, cookies: { [TRANSACTION]: first.key } })
      assert.equal(confirmed.statusCode, 303, confirmed.body)
      assert.equal((await me(confirmed.cookies.find((c) => c.name === SESSION)?.value)).id, person.id)
      const again = await ctx.inject({ method: 'GET', url: link, cookies: { [TRANSACTION]: first.key } })
      assert.equal(again.statusCode, 401, 'used up')
      const next = await signInAs({ email: person.email, groups: [] })
      assert.equal(next.callback.statusCode, 303, next.callback.body)
      assert.equal(next.callback.headers.location, '/admin/', 'bound: signed in at once')
      assert.equal((await me(next.session?.value)).id, person.id)
    })

    test('a later sign-in with the same email but another subject is refused with a clear message', async () => {
      await configure()
      const email = emailAt()
      const created = await signInAs({ email, sub: 'subject-one', groups: ['faculty-editors'] })
      assert.equal(created.callback.statusCode, 303, created.callback.body)
      assert.ok(created.session, 'a person created by SSO is bound at once')
      const impostor = await signInAs({ email, sub: 'subject-two', groups: ['expertdir-admins'] })
      assert.equal(impostor.callback.statusCode, 403, impostor.callback.body)
      assert.equal(envelope(impostor.callback).error?.code, 'forbidden')
      assert.match(envelope(impostor.callback).error?.message ?? '', /linked to another identity/)
      assert.equal(impostor.session, undefined)
      assert.equal(
        (await me((await signInAs({ email, sub: 'subject-one', groups: [] })).session?.value)).role,
        'editor',
      )
    })

    test('a new identity provider forgets the bindings: the next sign-in is confirmed again', async () => {
      await configure()
      const email = emailAt()
      const created = await signInAs({ email, groups: ['faculty-editors'] })
      assert.ok(created.session)
      await configure({ issuer: 'https://login.example.edu/realms/elsewhere' })
      await configure()
      const after = await signInAs({ email, groups: ['faculty-editors'] })
      assert.equal(after.callback.statusCode, 303, after.callback.body)
      assert.equal(after.callback.headers.location, '/admin/?sso=check-email')
      assert.equal(after.session, undefined)
    })

    test('without an email server or a public address, a first sign-in into an existing account is refused, clearly', async () => {
      await configure()
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const app = await buildApp({
        config: { ...ctx.config, smtpUrl: '', logLevel: 'silent' },
        database: ctx.testDatabase.database,
        now: ctx.clock.now,
      })
      try {
        provider.signInNext({ email: person.email, groups: [] })
        const start = await app.inject({ method: 'GET', url: `/auth/sso/${ctx.tenant.orgId}/oidc` })
        assert.equal(start.statusCode, 302, start.body)
        const key = start.cookies.find((cookie) => cookie.name === TRANSACTION)?.value ?? ''
        const back = await throughProvider(provider, String(start.headers.location))
        const callback = await app.inject({
          method: 'GET',
          url: `${back.pathname}${back.search}`,
          cookies: { [TRANSACTION]: key },
        })
        assert.equal(callback.statusCode, 403, callback.body)
        assert.match(envelope(callback).error?.message ?? '', /cannot send one/)
      } finally {
        await app.close()
      }
    })
  },
  {
    config: {
      publicUrl: ORIGIN,
      smtpUrl: smtp.url,
      secretKey: randomBytes(32).toString('hex'),
      // The lock-out counts every refused sign-in of this file's addresses: out of the way here.
      logLevel: 'silent',
    },
  },
)
