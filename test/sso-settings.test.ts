import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { buildApp } from '../src/app.js'
import { cliWriteContext } from '../src/audit/write-context.js'
import { insertBinding } from '../src/sso/bindings.js'
import { approveDomain } from '../src/sso/domains.js'
import { NO_NOTICES } from '../src/sso/notices.js'
import { createSecretBox } from '../src/sso/secret-box.js'
import { secretContext } from '../src/sso/settings.js'
import { runCli } from './helpers/cli.js'
import { TestDnsServer } from './helpers/dns-server.js'
import { describeEachDialect, detailsOf, envelope, type Tenant } from './helpers/harness.js'
import { mailText } from './helpers/mail-text.js'
import { addPersonWithPassword, ORIGIN, personToken } from './helpers/people.js'
import { SmtpReceiver } from './helpers/receivers.js'
import { TestSamlIdp } from './helpers/saml-idp.js'

const SECRET_KEY = randomBytes(32).toString('hex')
const CLIENT_SECRET = 'the identity provider told us this secret'

const OIDC = {
  protocol: 'oidc',
  issuer: 'https://login.example.edu/realms/staff',
  client_id: 'expertdir',
  client_secret: CLIENT_SECRET,
  role_mapping: [{ group: 'expertdir-editors', role: 'editor' }],
}

/** Domains no other organization of the file lists (a domain belongs to one organization). */
const uniqueDomain = (label = 'example.edu') => `${randomBytes(4).toString('hex')}.${label}`

// The owners' notices and the DNS verification go to real servers on 127.0.0.1.
const smtp = new SmtpReceiver()
await smtp.start()
const dns = await TestDnsServer.start()
after(async () => {
  await smtp.stop()
  await dns.close()
})

/** The texts of the messages the SMTP receiver got for `address`. */
const mailTo = (address: string) =>
  smtp.messages.filter((message) => message.to.includes(address)).map((message) => mailText(message.raw))

/**
 * The admin API and the CLI of an organization's single sign-on: one service, the client secret
 * encrypted at rest and never shown, every bad setting a 400, and the sign-in page's lookup.
 */
describeEachDialect(
  'single sign-on settings: admin API, CLI and the sign-in page’s lookup',
  (ctx) => {
    let idp: TestSamlIdp
    let tenant: Tenant
    before(async () => {
      idp = await TestSamlIdp.create()
    })

    const url = (orgId: number) => `/v2/organization/${orgId}/sso`
    const put = (orgId: number, payload: object, auth = ctx.tenant.auth) =>
      ctx.inject({ method: 'PUT', url: url(orgId), headers: auth, payload })
    /** A new organization; `auth` is its owner's dashboard token (only an owner changes SSO). */
    const fresh = async () => {
      tenant = await ctx.addTenant('Settings University')
      const owner = await personToken(ctx, tenant.orgId, 'owner')
      return { ...tenant, client: tenant.auth, owner, auth: { authorization: `Bearer ${owner.token}` } }
    }

    test('PUT sets up OIDC: the secret is stored encrypted under EXPERTDIR_SECRET_KEY and never answered', async () => {
      const { orgId, auth } = await fresh()
      const domain = uniqueDomain()
      const response = await put(
        orgId,
        { ...OIDC, allowed_domains: [domain.toUpperCase(), `med.${domain}`] },
        auth,
      )
      assert.equal(response.statusCode, 200, response.body)
      const data = envelope(response).data ?? {}
      assert.equal(data.client_secret_set, true)
      assert.equal('client_secret' in data, false)
      assert.doesNotMatch(response.body, /told us this secret/)
      assert.deepEqual(data.allowed_domains, [domain, `med.${domain}`])
      assert.equal(data.scope, 'openid email profile')
      assert.equal(data.redirect_uri, `${ORIGIN}/auth/sso/oidc/callback`)
      assert.equal(data.sign_in_url, `${ORIGIN}/auth/sso/${orgId}/oidc`)
      const row = await ctx.testDatabase.database.db
        .selectFrom('sso_settings')
        .select('client_secret')
        .where('org_id', '=', orgId)
        .executeTakeFirstOrThrow()
      assert.ok(row.client_secret)
      assert.ok(!row.client_secret.includes(CLIENT_SECRET))
      assert.equal(createSecretBox(SECRET_KEY).open(row.client_secret, secretContext(orgId)), CLIENT_SECRET)
      assert.throws(() => createSecretBox(SECRET_KEY).open(row.client_secret ?? '', secretContext(orgId + 1)))
      const read = await ctx.inject({ method: 'GET', url: url(orgId), headers: auth })
      assert.equal(read.statusCode, 200)
      assert.doesNotMatch(read.body, /told us this secret/)
      assert.deepEqual(envelope(read).data, data)
    })

    test('PUT is partial: later changes keep the secret and the rest; null clears; switching to SAML needs its fields', async () => {
      const { orgId, auth } = await fresh()
      await put(orgId, OIDC, auth)
      const changed = await put(orgId, { passwords_off: 1, default_role: 'inquiries' }, auth)
      assert.equal(changed.statusCode, 200, changed.body)
      const data = envelope(changed).data ?? {}
      assert.equal(data.client_secret_set, true)
      assert.equal(data.issuer, OIDC.issuer)
      assert.equal(data.passwords_off, 1)
      assert.equal(data.default_role, 'inquiries')
      const cleared = envelope(await put(orgId, { client_secret: null, default_role: null }, auth)).data ?? {}
      assert.equal(cleared.client_secret_set, false)
      assert.equal(cleared.default_role, null)
      const saml = await put(orgId, { protocol: 'saml' }, auth)
      assert.deepEqual(Object.keys(detailsOf(saml)).sort(), ['entry_point', 'idp_certificate'])
      const switched = await put(
        orgId,
        { protocol: 'saml', entry_point: TestSamlIdp.ENTRY_POINT, idp_certificate: idp.certificate },
        auth,
      )
      assert.equal(switched.statusCode, 200, switched.body)
      const view = envelope(switched).data ?? {}
      assert.equal(view.sp_entity_id, `${ORIGIN}/auth/sso/${orgId}/saml/metadata`)
      assert.equal(view.acs_url, `${ORIGIN}/auth/sso/${orgId}/saml/acs`)
      assert.match(String(view.idp_certificate), /^-----BEGIN CERTIFICATE-----\n/)
    })

    test('bad settings are 400 with every field named, and nothing is stored', async () => {
      const { orgId, auth } = await fresh()
      assert.deepEqual(Object.keys(detailsOf(await put(orgId, { issuer: OIDC.issuer }, auth))), ['protocol'])
      const bad = await put(
        orgId,
        {
          protocol: 'oidc',
          issuer: 'http://login.example.edu/',
          scope: 'email profile',
          role_mapping: [
            { group: 'a', role: 'owner' },
            { group: 'b', role: 'editor' },
          ],
          allowed_domains: ['not a domain'],
          unknown: 1,
        },
        auth,
      )
      const details = detailsOf(bad)
      for (const field of ['role_mapping[0].role', 'allowed_domains[0]', 'unknown']) {
        assert.ok(
          Object.keys(details).some((name) => name.startsWith(field.split('[')[0] ?? field)),
          `${field}: ${bad.body}`,
        )
      }
      const semantic = detailsOf(
        await put(
          orgId,
          {
            protocol: 'oidc',
            issuer: 'http://login.example.edu/',
            scope: 'email profile',
            role_mapping: [
              { group: 'a', role: 'editor' },
              { group: 'a', role: 'admin' },
            ],
          },
          auth,
        ),
      )
      assert.deepEqual(Object.keys(semantic).sort(), ['client_id', 'issuer', 'role_mapping', 'scope'])
      const certificate = detailsOf(
        await put(
          orgId,
          { protocol: 'saml', entry_point: TestSamlIdp.ENTRY_POINT, idp_certificate: 'not a certificate' },
          auth,
        ),
      )
      assert.deepEqual(Object.keys(certificate), ['idp_certificate'])
      const read = await ctx.inject({ method: 'GET', url: url(orgId), headers: auth })
      assert.equal(read.statusCode, 404)
    })

    test('a client secret is refused, clearly, when the server has no EXPERTDIR_SECRET_KEY', async () => {
      const app = await buildApp({
        config: { ...ctx.config, secretKey: undefined, logLevel: 'silent' },
        database: ctx.testDatabase.database,
        now: ctx.clock.now,
      })
      try {
        const { orgId, auth } = await fresh()
        const refused = await app.inject({ method: 'PUT', url: url(orgId), headers: auth, payload: OIDC })
        const details = detailsOf(refused)
        assert.match(details.client_secret ?? '', /EXPERTDIR_SECRET_KEY/)
        const { client_secret: _secret, ...publicClient } = OIDC
        const accepted = await app.inject({
          method: 'PUT',
          url: url(orgId),
          headers: auth,
          payload: publicClient,
        })
        assert.equal(accepted.statusCode, 200, accepted.body)
        assert.equal(envelope(accepted).data?.client_secret_set, false)
      } finally {
        await app.close()
      }
    })

    test('DELETE removes the settings and their domains; then GET and DELETE are 404', async () => {
      const { orgId, auth } = await fresh()
      await put(orgId, OIDC, auth)
      const removed = await ctx.inject({ method: 'DELETE', url: url(orgId), headers: auth })
      assert.equal(removed.statusCode, 200, removed.body)
      assert.deepEqual(envelope(removed).data, { removed: true })
      assert.equal((await ctx.inject({ method: 'GET', url: url(orgId), headers: auth })).statusCode, 404)
      assert.equal((await ctx.inject({ method: 'DELETE', url: url(orgId), headers: auth })).statusCode, 404)
      const domains = await ctx.testDatabase.database.db
        .selectFrom('sso_domains')
        .selectAll()
        .where('org_id', '=', orgId)
        .execute()
      assert.equal(domains.length, 0)
      const audit = await ctx.testDatabase.database.db
        .selectFrom('audit_log')
        .select(['action', 'record_kind', 'record_id', 'actor_kind'])
        .where('org_id', '=', orgId)
        .where('record_kind', '=', 'sso_settings')
        .orderBy('id')
        .execute()
      assert.deepEqual(
        audit.map((entry) => [entry.action, entry.record_id, entry.actor_kind]),
        [
          [`PUT /v2/organization/:corporation/sso`, String(orgId), 'person'],
          [`DELETE /v2/organization/:corporation/sso`, String(orgId), 'person'],
        ],
        'the setting and the removal are audited; the refused second DELETE is not',
      )
    })

    test('the sign-in page finds the SSO by the email’s domain only, and an organization’s by its id', async () => {
      const { orgId, auth } = await fresh()
      const domain = `${randomBytes(4).toString('hex')}.example.edu`
      await put(orgId, { ...OIDC, allowed_domains: [domain], passwords_off: 1 }, auth)
      await approveDomain(
        {
          ...cliWriteContext(ctx.testDatabase.database.db, orgId, 'sso verify-domain', ctx.clock.now()),
          notices: NO_NOTICES,
        },
        domain,
      )
      const found = await ctx.inject({
        method: 'GET',
        url: `/auth/sso?email=${encodeURIComponent(`anyone@${domain.toUpperCase()}`)}`,
      })
      assert.equal(found.statusCode, 200, found.body)
      assert.deepEqual(envelope(found).data, {
        options: [
          {
            organization: orgId,
            protocol: 'oidc',
            sign_in_url: `${ORIGIN}/auth/sso/${orgId}/oidc`,
            passwords: false,
          },
        ],
      })
      assert.doesNotMatch(found.body, /expertdir|login\.example|secret/, 'no client id, issuer or secret')
      const none = await ctx.inject({ method: 'GET', url: '/auth/sso?email=someone@nowhere.example' })
      assert.deepEqual(envelope(none).data, { options: [] })
      const bad = await ctx.inject({ method: 'GET', url: '/auth/sso?email=not-an-email' })
      assert.equal(bad.statusCode, 400)
      const byId = await ctx.inject({ method: 'GET', url: `/auth/sso/${orgId}` })
      assert.equal(byId.json().data.options[0].organization, orgId)
      assert.equal((await ctx.inject({ method: 'GET', url: `/auth/sso/${ctx.other.orgId}` })).statusCode, 404)
    })

    test('the CLI shares the service: set (secret from standard input), show without the secret, remove', async () => {
      const { orgId, owner } = await fresh()
      const domain = uniqueDomain()
      const dir = await mkdtemp(join(tmpdir(), 'expertdir-sso-'))
      try {
        const env = {
          EXPERTDIR_SECRET_KEY: SECRET_KEY,
          EXPERTDIR_PUBLIC_URL: ORIGIN,
          EXPERTDIR_SMTP_URL: smtp.url,
        }
        const cli = (args: string[], stdin?: string) =>
          runCli(['--db', ctx.testDatabase.url, 'sso', ...args, '--org', String(orgId)], env, stdin)
        const set = await cli(
          [
            'set',
            '--protocol',
            'oidc',
            '--issuer',
            OIDC.issuer,
            '--client-id',
            'expertdir',
            '--client-secret-stdin',
            '--map',
            'expertdir-editors=editor',
            'staff=inquiries',
            '--domain',
            domain,
            '--allow-create',
            'on',
            '--json',
          ],
          `${CLIENT_SECRET}\n`,
        )
        assert.equal(set.code, 0, set.stderr)
        const setView = JSON.parse(set.stdout)
        assert.equal(setView.client_secret_set, true)
        assert.match(mailTo(owner.email).at(-1) ?? '', /By: the service’s operator \(command line\)/)
        assert.deepEqual(setView.role_mapping, [
          { group: 'expertdir-editors', role: 'editor' },
          { group: 'staff', role: 'inquiries' },
        ])
        const off = await cli(['set', '--passwords', 'off', '--json'])
        assert.equal(off.code, 0, off.stderr)
        assert.equal(JSON.parse(off.stdout).passwords_off, 1)
        const shown = await cli(['show', '--json'])
        assert.equal(shown.code, 0, shown.stderr)
        assert.doesNotMatch(shown.stdout, /told us this secret/)
        const api = await ctx.inject({ method: 'GET', url: url(orgId), headers: tenant.auth })
        assert.deepEqual(JSON.parse(shown.stdout), envelope(api).data, 'the CLI and the API show the same')
        const wrong = await cli(['set', '--map', 'a=owner'])
        assert.equal(wrong.code, 2)
        assert.match(wrong.stderr, /role_mapping/)
        const certificate = join(dir, 'idp.pem')
        await writeFile(certificate, idp.certificate)
        const saml = await cli([
          'set',
          '--protocol',
          'saml',
          '--entry-point',
          TestSamlIdp.ENTRY_POINT,
          '--idp-certificate',
          certificate,
        ])
        assert.equal(saml.code, 0, saml.stderr)
        assert.match(saml.stdout, /metadata/)
        const removed = await cli(['remove', '--json'])
        assert.equal(removed.code, 0, removed.stderr)
        const again = await cli(['remove'])
        assert.equal(again.code, 1)
        assert.match(again.stderr, /no single sign-on/)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    })

    test('only an owner changes single sign-on: an admin person and an admin client get 403 and change nothing; both may read it', async () => {
      const { orgId, auth, client } = await fresh()
      await put(orgId, { ...OIDC, allowed_domains: [uniqueDomain()] }, auth)
      const admin = await personToken(ctx, orgId, 'admin')
      const attacker = {
        issuer: 'https://idp.attacker.example',
        client_id: 'mine',
        allowed_domains: [uniqueDomain()],
      }
      for (const [who, headers] of [
        ['admin person', { authorization: `Bearer ${admin.token}` }],
        ['admin client', client],
      ] as const) {
        const refused = await put(orgId, attacker, headers)
        assert.equal(refused.statusCode, 403, `${who}: ${refused.body}`)
        assert.equal(envelope(refused).error?.code, 'forbidden')
        assert.match(envelope(refused).error?.message ?? '', /Only an owner may change single sign-on/)
        const removed = await ctx.inject({ method: 'DELETE', url: url(orgId), headers })
        assert.equal(removed.statusCode, 403, `${who}: ${removed.body}`)
        const read = await ctx.inject({ method: 'GET', url: url(orgId), headers })
        assert.equal(read.statusCode, 200, `${who} reads: ${read.body}`)
        assert.equal(envelope(read).data?.issuer, OIDC.issuer, 'unchanged')
      }
      const cli = await runCli(
        ['--db', ctx.testDatabase.url, 'sso', 'set', '--org', String(orgId), '--passwords', 'off'],
        { EXPERTDIR_PUBLIC_URL: ORIGIN },
      )
      assert.equal(cli.code, 0, `the operator may: ${cli.stderr}`)
    })

    test('every change is emailed to the owners, with a link from the public address only, whatever Host the request names', async () => {
      const { orgId, auth, owner } = await fresh()
      const second = await personToken(ctx, orgId, 'owner')
      const admin = await personToken(ctx, orgId, 'admin')
      const before = smtp.messages.length
      const changed = await ctx.inject({
        method: 'PUT',
        url: url(orgId),
        headers: { ...auth, host: 'evil.example', 'x-forwarded-host': 'evil.example' },
        payload: { ...OIDC, allowed_domains: [uniqueDomain()] },
      })
      assert.equal(changed.statusCode, 200, changed.body)
      const [notice] = mailTo(owner.email).slice(-1)
      assert.ok(notice, 'the owner is told')
      assert.ok(mailTo(second.email).length > 0, 'every owner is told')
      assert.equal(mailTo(admin.email).length, 0, 'admins are not owners')
      assert.match(notice, /Subject: Single sign-on of your expert directory changed/)
      assert.match(notice, new RegExp(`By: ${owner.email.replace('.', '\\.')} \\(owner\\)`))
      assert.match(
        notice,
        /Settings changed: protocol, issuer, client_id, .*allowed_domains, passwords_off, client_secret\r?\n/,
      )
      assert.ok(notice.includes(`${ORIGIN}/admin/sso`), notice)
      assert.doesNotMatch(notice, /evil\.example|told us this secret/)
      await put(orgId, { passwords_off: 1 }, auth)
      assert.match(mailTo(owner.email).at(-1) ?? '', /Settings changed: passwords_off\r?\n/)
      await ctx.inject({ method: 'DELETE', url: url(orgId), headers: auth })
      assert.match(mailTo(owner.email).at(-1) ?? '', /was removed/)
      assert.equal(smtp.messages.length, before + 3, 'one message per change, to all owners at once')
    })

    test('a domain another organization lists is refused with 409, and nothing is stored', async () => {
      const first = await fresh()
      const domain = uniqueDomain()
      assert.equal(
        (await put(first.orgId, { ...OIDC, allowed_domains: [domain] }, first.auth)).statusCode,
        200,
      )
      const second = await fresh()
      const claimed = await put(
        second.orgId,
        { ...OIDC, allowed_domains: [uniqueDomain(), domain.toUpperCase()] },
        second.auth,
      )
      assert.equal(claimed.statusCode, 409, claimed.body)
      assert.equal(envelope(claimed).error?.code, 'conflict')
      assert.match(
        envelope(claimed).error?.message ?? '',
        new RegExp(`${domain} is already claimed by another organization`),
      )
      assert.equal(
        (await ctx.inject({ method: 'GET', url: url(second.orgId), headers: second.auth })).statusCode,
        404,
      )
      const rows = await ctx.testDatabase.database.db
        .selectFrom('sso_domains')
        .select('org_id')
        .where('domain', '=', domain)
        .execute()
      assert.deepEqual(
        rows.map((row) => Number(row.org_id)),
        [first.orgId],
      )
    })

    test('an unverified domain routes no one; its DNS TXT record verifies it (owners only), and then the sign-in page finds it', async () => {
      const { orgId, auth, client } = await fresh()
      const domain = uniqueDomain()
      const set = await put(orgId, { ...OIDC, allowed_domains: [domain] }, auth)
      const [shown] = (envelope(set).data?.domains ?? []) as Record<string, unknown>[]
      assert.ok(shown)
      assert.equal(shown.verified, false)
      assert.equal(shown.txt_name, `_expertdir.${domain}`)
      assert.match(String(shown.txt_value), /^expertdir-verification=[A-Za-z0-9_-]{24}$/)
      const lookup = () => ctx.inject({ method: 'GET', url: `/auth/sso?email=someone@${domain}` })
      assert.deepEqual(envelope(await lookup()).data, { options: [] }, 'unverified: routes no one')
      const verify = (headers: Record<string, string>) =>
        ctx.inject({ method: 'POST', url: `${url(orgId)}/domains/${domain}/verify`, headers })
      const missing = await verify(auth)
      assert.equal(missing.statusCode, 409, missing.body)
      assert.match(
        envelope(missing).error?.message ?? '',
        new RegExp(`No TXT record at _expertdir\\.${domain}`),
      )
      dns.records.set(`_expertdir.${domain}`, [['v=spf1 -all'], ['expertdir-verification=not-this-one']])
      assert.equal((await verify(auth)).statusCode, 409, 'another value proves nothing')
      dns.records.set(`_expertdir.${domain}`, [['v=spf1 -all'], [String(shown.txt_value)]])
      assert.equal((await verify(client)).statusCode, 403, 'a machine client may not')
      const verified = await verify(auth)
      assert.equal(verified.statusCode, 200, verified.body)
      assert.deepEqual(verified.json().data.domain, {
        ...shown,
        verified: true,
        verified_at: verified.json().data.domain.verified_at,
        verified_by: 'dns',
      })
      assert.equal((await lookup()).json().data.options[0]?.organization, orgId)
      const unknown = await ctx.inject({
        method: 'POST',
        url: `${url(orgId)}/domains/${uniqueDomain()}/verify`,
        headers: auth,
      })
      assert.equal(unknown.statusCode, 404, unknown.body)
    })

    test('the operator approves a domain with the CLI, taking it from another organization’s unverified claim', async () => {
      const squatter = await fresh()
      const rightful = await fresh()
      const domain = uniqueDomain()
      await put(squatter.orgId, { ...OIDC, allowed_domains: [domain] }, squatter.auth)
      await put(rightful.orgId, { ...OIDC, allowed_domains: [uniqueDomain()] }, rightful.auth)
      const approve = (orgId: number) =>
        runCli(
          [
            '--db',
            ctx.testDatabase.url,
            'sso',
            'verify-domain',
            '--org',
            String(orgId),
            '--domain',
            domain,
            '--json',
          ],
          {
            EXPERTDIR_PUBLIC_URL: ORIGIN,
          },
        )
      const approved = await approve(rightful.orgId)
      assert.equal(approved.code, 0, approved.stderr)
      assert.equal(JSON.parse(approved.stdout).verified_by, 'operator')
      const lookup = await ctx.inject({ method: 'GET', url: `/auth/sso?email=someone@${domain}` })
      assert.deepEqual(
        lookup.json().data.options.map((option: { organization: number }) => option.organization),
        [rightful.orgId],
      )
      const squatterView = envelope(
        await ctx.inject({ method: 'GET', url: url(squatter.orgId), headers: squatter.auth }),
      ).data
      assert.deepEqual(squatterView?.allowed_domains, [])
      const taken = await approve(squatter.orgId)
      assert.equal(taken.code, 1, 'a verified domain is not taken away')
      assert.match(taken.stderr, /is verified by organization/)
      const bad = await runCli([
        '--db',
        ctx.testDatabase.url,
        'sso',
        'verify-domain',
        '--org',
        String(rightful.orgId),
        '--domain',
        'not a domain',
      ])
      assert.equal(bad.code, 2)
    })

    test('a new identity provider forgets every binding; other changes keep them', async () => {
      const { orgId, auth } = await fresh()
      await put(orgId, { ...OIDC, allowed_domains: [uniqueDomain()] }, auth)
      const { db } = ctx.testDatabase.database
      const bindings = async () =>
        Number(
          (
            await db
              .selectFrom('sso_identities')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('org_id', '=', orgId)
              .executeTakeFirstOrThrow()
          ).n,
        )
      const bind = async () => {
        const person = await addPersonWithPassword(ctx, orgId, 'editor')
        await insertBinding(
          db,
          orgId,
          person.id,
          { issuer: OIDC.issuer, subject: `sub-${person.id}` },
          ctx.clock.now(),
        )
      }
      await bind()
      await bind()
      await put(orgId, { passwords_off: 1, role_mapping: [], scope: 'openid email' }, auth)
      assert.equal(await bindings(), 2, 'the same provider')
      await put(orgId, { issuer: 'https://login.example.edu/realms/other' }, auth)
      assert.equal(await bindings(), 0, 'a new issuer')
      await bind()
      await put(orgId, { client_id: 'another-client' }, auth)
      assert.equal(await bindings(), 0, 'a new client id')
      await bind()
      const saml = await put(
        orgId,
        { protocol: 'saml', entry_point: TestSamlIdp.ENTRY_POINT, idp_certificate: idp.certificate },
        auth,
      )
      assert.equal(saml.statusCode, 200, saml.body)
      assert.equal(await bindings(), 0, 'another protocol')
      await bind()
      const other = await TestSamlIdp.create()
      await put(orgId, { idp_certificate: other.certificate }, auth)
      assert.equal(await bindings(), 0, 'another signing certificate')
      await bind()
      await ctx.inject({ method: 'DELETE', url: url(orgId), headers: auth })
      assert.equal(await bindings(), 0, 'removed')
      assert.match(
        mailTo(
          (
            await db
              .selectFrom('people')
              .select('email')
              .where('org_id', '=', orgId)
              .where('role', '=', 'owner')
              .executeTakeFirstOrThrow()
          ).email,
        ).at(-1) ?? '',
        /1 people will confirm/,
      )
    })
  },
  { config: { publicUrl: ORIGIN, secretKey: SECRET_KEY, smtpUrl: smtp.url, dnsServers: [dns.address] } },
)
