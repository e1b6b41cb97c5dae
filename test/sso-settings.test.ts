import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { before, test } from 'node:test'
import { buildApp } from '../src/app.js'
import { createSecretBox } from '../src/sso/secret-box.js'
import { secretContext } from '../src/sso/settings.js'
import { runCli } from './helpers/cli.js'
import { describeEachDialect, detailsOf, envelope, type Tenant } from './helpers/harness.js'
import { ORIGIN } from './helpers/people.js'
import { TestSamlIdp } from './helpers/saml-idp.js'

const SECRET_KEY = randomBytes(32).toString('hex')
const CLIENT_SECRET = 'the identity provider told us this secret'

const OIDC = {
  protocol: 'oidc',
  issuer: 'https://login.example.edu/realms/staff',
  client_id: 'expertdir',
  client_secret: CLIENT_SECRET,
  role_mapping: [{ group: 'expertdir-editors', role: 'editor' }],
  allowed_domains: ['Example.EDU', 'med.example.edu'],
}

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
    const fresh = async () => {
      tenant = await ctx.addTenant('Settings University')
      return tenant
    }

    test('PUT sets up OIDC: the secret is stored encrypted under EXPERTDIR_SECRET_KEY and never answered', async () => {
      const { orgId, auth } = await fresh()
      const response = await put(orgId, OIDC, auth)
      assert.equal(response.statusCode, 200, response.body)
      const data = envelope(response).data ?? {}
      assert.equal(data.client_secret_set, true)
      assert.equal('client_secret' in data, false)
      assert.doesNotMatch(response.body, /told us this secret/)
      assert.deepEqual(data.allowed_domains, ['example.edu', 'med.example.edu'])
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
          [`PUT /v2/organization/:corporation/sso`, String(orgId), 'client'],
          [`DELETE /v2/organization/:corporation/sso`, String(orgId), 'client'],
        ],
        'the setting and the removal are audited; the refused second DELETE is not',
      )
    })

    test('the sign-in page finds the SSO by the email’s domain only, and an organization’s by its id', async () => {
      const { orgId, auth } = await fresh()
      const domain = `${randomBytes(4).toString('hex')}.example.edu`
      await put(orgId, { ...OIDC, allowed_domains: [domain], passwords_off: 1 }, auth)
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
      const { orgId } = await fresh()
      const dir = await mkdtemp(join(tmpdir(), 'expertdir-sso-'))
      try {
        const env = { EXPERTDIR_SECRET_KEY: SECRET_KEY, EXPERTDIR_PUBLIC_URL: ORIGIN }
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
            'example.edu',
            '--allow-create',
            'on',
            '--json',
          ],
          `${CLIENT_SECRET}\n`,
        )
        assert.equal(set.code, 0, set.stderr)
        const setView = JSON.parse(set.stdout)
        assert.equal(setView.client_secret_set, true)
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
  },
  { config: { publicUrl: ORIGIN, secretKey: SECRET_KEY } },
)
