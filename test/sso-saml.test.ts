import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import { TRANSACTION_TTL_MS } from '../src/sso/transactions.js'
import { chores } from '../src/system/housekeeping.js'
import { describeEachDialect, envelope, FORM } from './helpers/harness.js'
import { mailText } from './helpers/mail-text.js'
import { addPersonWithPassword, dashboard, ORIGIN, personToken } from './helpers/people.js'
import { SmtpReceiver } from './helpers/receivers.js'
import { type ResponseOptions, TestSamlIdp } from './helpers/saml-idp.js'

const MAIL = 'urn:oid:0.9.2342.19200300.100.1.3'
const DISPLAY_NAME = 'urn:oid:2.16.840.1.113730.3.1.241'
const AFFILIATION = 'urn:oid:1.3.6.1.4.1.5923.1.1.1.1'
const ENTITLEMENT = 'urn:oid:1.3.6.1.4.1.5923.1.1.1.7'
const ADMIN_ENTITLEMENT = 'urn:mace:example.edu:entitlement:expertdir-admin'

const TRANSACTION = 'expertdir_sso'
const SESSION = 'expertdir_session'
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'
const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient'

/** A persistent NameID, as identity providers send for a person who signs in to this service. */
const persistentId = (value = `_${randomBytes(12).toString('hex')}`) => ({ value, format: PERSISTENT })

/** Confirmation links go through a real SMTP server on 127.0.0.1. */
const smtp = new SmtpReceiver()
await smtp.start()
after(() => smtp.stop())

let counter = 0
const emailAt = (domain = 'example.edu') => `scholar${++counter}.${randomBytes(3).toString('hex')}@${domain}`

/**
 * SAML 2.0 sign-in with responses built and signed in the test by an identity provider's key: signed
 * assertions accepted, eduPerson attributes mapped, and unsigned, tampered, wrong-audience, expired
 * and replayed responses refused.
 */
describeEachDialect(
  'single sign-on with SAML 2.0',
  (ctx) => {
    let idp: TestSamlIdp
    const sp = () => ({
      audience: `${ORIGIN}/auth/sso/${ctx.tenant.orgId}/saml/metadata`,
      acsUrl: `${ORIGIN}/auth/sso/${ctx.tenant.orgId}/saml/acs`,
    })

    /** The owner's dashboard token: only an owner changes single sign-on. */
    let ownerAuth: Record<string, string>
    let ownerEmail: string
    before(async () => {
      idp = await TestSamlIdp.create()
      const owner = await personToken(ctx, ctx.tenant.orgId, 'owner')
      ownerAuth = { authorization: `Bearer ${owner.token}` }
      ownerEmail = owner.email
      const response = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${ctx.tenant.orgId}/sso`,
        headers: ownerAuth,
        payload: {
          protocol: 'saml',
          entry_point: TestSamlIdp.ENTRY_POINT,
          idp_certificate: idp.certificate,
          role_mapping: [
            { group: 'faculty', role: 'editor' },
            { group: ADMIN_ENTITLEMENT, role: 'admin' },
            { group: 'expertdir:inquiries', role: 'inquiries' },
          ],
          allow_create: 1,
          allowed_domains: ['example.edu'],
        },
      })
      assert.equal(response.statusCode, 200, response.body)
    })

    /** The browser's first step: our redirect to the identity provider, with its AuthnRequest. */
    async function start() {
      const response = await ctx.inject({ method: 'GET', url: `/auth/sso/${ctx.tenant.orgId}/saml` })
      assert.equal(response.statusCode, 302, response.body)
      const location = String(response.headers.location)
      assert.ok(location.startsWith(`${TestSamlIdp.ENTRY_POINT}?SAMLRequest=`), location)
      const key = response.cookies.find((cookie) => cookie.name === TRANSACTION)?.value ?? ''
      return { key, requestId: TestSamlIdp.requestIdOf(location) }
    }

    /** The identity provider's auto-submitted form: cross-site, no cookie of ours. */
    function post(samlResponse: string) {
      return ctx.inject({
        method: 'POST',
        url: `/auth/sso/${ctx.tenant.orgId}/saml/acs`,
        headers: { ...FORM, origin: 'https://idp.example.org', 'sec-fetch-site': 'cross-site' },
        payload: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: '' }).toString(),
      })
    }

    function complete(key: string | undefined) {
      return ctx.inject({
        method: 'GET',
        url: '/auth/sso/saml/complete',
        ...(key === undefined ? {} : { cookies: { [TRANSACTION]: key } }),
      })
    }

    function response(requestId: string, options: Partial<ResponseOptions> = {}) {
      return idp.response({
        inResponseTo: requestId,
        ...sp(),
        attributes: { [MAIL]: [emailAt()], [AFFILIATION]: ['member', 'faculty'] },
        nameId: persistentId(),
        ...options,
      })
    }

    async function me(cookie: string | undefined) {
      const answer = await ctx.inject(dashboard('GET', '/auth/me', { cookie: cookie ?? '' }))
      assert.equal(answer.statusCode, 200, answer.body)
      return envelope(answer).data ?? {}
    }

    async function peopleCount(): Promise<number> {
      const row = await ctx.testDatabase.database.db
        .selectFrom('people')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    }

    async function expectRefused(samlResponse: string) {
      const before = await peopleCount()
      const answer = await post(samlResponse)
      assert.equal(answer.statusCode, 401, answer.body)
      assert.equal(envelope(answer).error?.code, 'unauthorized')
      assert.equal(answer.cookies.length, 0)
      assert.equal(await peopleCount(), before, 'nobody created')
    }

    test('the SP metadata names the entity id and the ACS URL, and asks for signed assertions', async () => {
      const metadata = await ctx.inject({ method: 'GET', url: `/auth/sso/${ctx.tenant.orgId}/saml/metadata` })
      assert.equal(metadata.statusCode, 200)
      assert.match(String(metadata.headers['content-type']), /^application\/samlmetadata\+xml/)
      assert.match(metadata.body, new RegExp(`entityID="${sp().audience}"`))
      assert.match(metadata.body, /WantAssertionsSigned="true"/)
      assert.ok(metadata.body.includes(`Location="${sp().acsUrl}"`))
      const none = await ctx.inject({ method: 'GET', url: `/auth/sso/${ctx.other.orgId}/saml/metadata` })
      assert.equal(none.statusCode, 404)
    })

    test('a signed assertion signs in: eduPerson attributes by OID give the email, the name and the highest role', async () => {
      const { key, requestId } = await start()
      const email = emailAt()
      const accepted = await post(
        response(requestId, {
          attributes: {
            [MAIL]: [email],
            [DISPLAY_NAME]: ['Amara Nwosu'],
            [AFFILIATION]: ['member', 'faculty'],
            [ENTITLEMENT]: [ADMIN_ENTITLEMENT],
          },
        }),
      )
      assert.equal(accepted.statusCode, 303, accepted.body)
      assert.equal(accepted.headers.location, '/auth/sso/saml/complete')
      assert.equal(accepted.cookies.length, 0, 'no session from the cross-site POST itself')
      const done = await complete(key)
      assert.equal(done.statusCode, 303, done.body)
      assert.equal(done.headers.location, '/admin/')
      const session = done.cookies.find((cookie) => cookie.name === SESSION)
      assert.ok(session)
      assert.equal(session.httpOnly, true)
      const person = await me(session.value)
      assert.equal(person.email, email)
      assert.equal(person.name, 'Amara Nwosu')
      assert.equal(person.role, 'admin')
    })

    test('isMemberOf by friendly name maps a role; an email-format NameID stands in for a missing mail attribute', async () => {
      const { key, requestId } = await start()
      const email = emailAt()
      const accepted = await post(
        response(requestId, {
          attributes: { isMemberOf: ['expertdir:inquiries', 'library'] },
          nameId: { value: email, format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress' },
        }),
      )
      assert.equal(accepted.statusCode, 303, accepted.body)
      const done = await complete(key)
      const person = await me(done.cookies.find((cookie) => cookie.name === SESSION)?.value)
      assert.equal(person.email, email)
      assert.equal(person.role, 'inquiries')
    })

    test('an unsigned response is refused', async () => {
      const { requestId } = await start()
      await expectRefused(response(requestId, { sign: false }))
    })

    test('a response altered after signing is refused', async () => {
      const { requestId } = await start()
      const signed = Buffer.from(
        response(requestId, { attributes: { [MAIL]: ['student@example.edu'], [AFFILIATION]: ['student'] } }),
        'base64',
      ).toString('utf8')
      const tampered = signed.replace('>student<', '>faculty<')
      assert.notEqual(tampered, signed)
      await expectRefused(Buffer.from(tampered).toString('base64'))
    })

    test('a response for another service (wrong audience) is refused', async () => {
      const { requestId } = await start()
      await expectRefused(response(requestId, { audience: 'https://other-service.example.org/sp' }))
    })

    test('an expired response, and one not yet valid, are refused', async () => {
      const first = await start()
      await expectRefused(response(first.requestId, { notBefore: -20 * 60_000, notOnOrAfter: -10 * 60_000 }))
      const second = await start()
      await expectRefused(response(second.requestId, { notBefore: 10 * 60_000, notOnOrAfter: 20 * 60_000 }))
    })

    test('a response to a request never made is refused', async () => {
      await expectRefused(response('_never-asked-for'))
    })

    test('a replayed response is refused, and so is a seen assertion id in a response to a new request', async () => {
      const { key, requestId } = await start()
      const assertionId = `_${randomBytes(16).toString('hex')}`
      const original = response(requestId, { assertionId })
      assert.equal((await post(original)).statusCode, 303)
      await expectRefused(original)
      assert.equal((await complete(key)).statusCode, 303)
      await expectRefused(original)
      const next = await start()
      await expectRefused(response(next.requestId, { assertionId }))
      const { rows } = {
        rows: await ctx.testDatabase.database.db.selectFrom('sso_assertions').selectAll().execute(),
      }
      const seen = rows.find((row) => row.assertion_id === assertionId)
      assert.ok(seen && Number(seen.expires_at) > Date.now(), 'kept until its NotOnOrAfter')
    })

    test('of two concurrent posts of one response, exactly one is accepted', async () => {
      const { requestId } = await start()
      const once = response(requestId)
      const answers = await Promise.all([post(once), post(once)])
      assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [303, 401])
    })

    test('the sign-in completes only in the browser that started it, and once', async () => {
      const { key, requestId } = await start()
      assert.equal((await post(response(requestId))).statusCode, 303)
      const elsewhere = await complete(undefined)
      assert.equal(elsewhere.statusCode, 401)
      const wrong = await complete('not-the-key-of-this-browser')
      assert.equal(wrong.statusCode, 401)
      assert.equal((await complete(key)).statusCode, 303)
      assert.equal((await complete(key)).statusCode, 401)
    })

    test('an email outside the allowed domains is refused', async () => {
      const { requestId } = await start()
      const before = await peopleCount()
      const answer = await post(
        response(requestId, {
          attributes: { [MAIL]: [emailAt('gmail.example')], [AFFILIATION]: ['faculty'] },
        }),
      )
      assert.equal(answer.statusCode, 403, answer.body)
      assert.equal(await peopleCount(), before)
    })

    test('a sign-in left unfinished for 10 minutes is refused, and housekeeping forgets it and the assertion ids past their end', async () => {
      const { key, requestId } = await start()
      assert.equal((await post(response(requestId))).statusCode, 303)
      const later = ctx.clock.now() + TRANSACTION_TTL_MS + 60_000
      const { db } = ctx.testDatabase.database
      assert.ok((await db.selectFrom('sso_assertions').selectAll().execute()).length > 0)
      const removed = await chores({}).expired_sso_sign_ins?.(db, later)
      assert.ok((removed ?? 0) >= 2, `removed ${removed}`)
      assert.equal((await db.selectFrom('sso_transactions').selectAll().execute()).length, 0)
      assert.equal((await db.selectFrom('sso_assertions').selectAll().execute()).length, 0)
      assert.equal((await complete(key)).statusCode, 401)
    })

    test('an admin person’s or an admin client’s SAML change cannot sign anyone in as the owner', async () => {
      const attackerIdp = await TestSamlIdp.create()
      const admin = await personToken(ctx, ctx.tenant.orgId, 'admin')
      for (const headers of [{ authorization: `Bearer ${admin.token}` }, ctx.tenant.auth]) {
        const refused = await ctx.inject({
          method: 'PUT',
          url: `/v2/organization/${ctx.tenant.orgId}/sso`,
          headers,
          payload: { idp_certificate: attackerIdp.certificate, default_role: 'admin' },
        })
        assert.equal(refused.statusCode, 403, refused.body)
        assert.match(envelope(refused).error?.message ?? '', /Only an owner may change single sign-on/)
      }
      // The attacker's key signs an assertion for the owner: the configured certificate refuses it.
      const { requestId } = await start()
      await expectRefused(
        attackerIdp.response({
          inResponseTo: requestId,
          ...sp(),
          attributes: { [MAIL]: [ownerEmail] },
          nameId: persistentId(),
        }),
      )
      // The organization's own provider asserting the owner's email: no session until the owner
      // opens the emailed link in the browser that signed in.
      const next = await start()
      const accepted = await post(
        response(next.requestId, {
          attributes: { [MAIL]: [ownerEmail] },
          nameId: persistentId('owner-at-idp'),
        }),
      )
      assert.equal(accepted.statusCode, 303, accepted.body)
      assert.equal(accepted.cookies.length, 0)
      const done = await complete(next.key)
      assert.equal(done.statusCode, 303, done.body)
      assert.equal(done.headers.location, '/admin/?sso=check-email')
      assert.equal(
        done.cookies.find((cookie) => cookie.name === SESSION),
        undefined,
        'no session as the owner',
      )
      const message = smtp.messages.findLast((candidate) => candidate.to.includes(ownerEmail))
      const link = /http:\/\/experts\.example\.edu(\/auth\/sso\/confirm\?token=[A-Za-z0-9_-]+)/.exec(
        mailText(message?.raw ?? ''),
      )?.[1]
      assert.ok(link, 'the link went to the owner’s own address')
      assert.equal((await ctx.inject({ method: 'GET', url: link })).statusCode, 401, 'not in another browser')
      const confirmed = await ctx.inject({ method: 'GET', url: link, cookies: { [TRANSACTION]: next.key } })
      assert.equal(confirmed.statusCode, 303, confirmed.body)
      assert.equal((await me(confirmed.cookies.find((c) => c.name === SESSION)?.value)).email, ownerEmail)
      // Bound now: the same subject signs in at once, another one with the owner's email is refused.
      const again = await start()
      await post(
        response(again.requestId, {
          attributes: { [MAIL]: [ownerEmail] },
          nameId: persistentId('owner-at-idp'),
        }),
      )
      const direct = await complete(again.key)
      assert.equal(direct.headers.location, '/admin/')
      const impostor = await start()
      const refused = await post(
        response(impostor.requestId, {
          attributes: { [MAIL]: [ownerEmail] },
          nameId: persistentId('someone-else'),
        }),
      )
      assert.equal(refused.statusCode, 403, refused.body)
      assert.match(envelope(refused).error?.message ?? '', /linked to another identity/)
    })

    test('a transient NameID alone names nobody: refused, clearly; a subject-id attribute stands in for it', async () => {
      const first = await start()
      const transient = await post(
        response(first.requestId, {
          nameId: { value: `_${randomBytes(8).toString('hex')}`, format: TRANSIENT },
        }),
      )
      assert.equal(transient.statusCode, 403, transient.body)
      assert.match(envelope(transient).error?.message ?? '', /persistent NameID or the subject-id attribute/)
      const second = await start()
      const email = emailAt()
      const withSubjectId = await post(
        response(second.requestId, {
          nameId: { value: `_${randomBytes(8).toString('hex')}`, format: TRANSIENT },
          attributes: {
            [MAIL]: [email],
            [AFFILIATION]: ['faculty'],
            'urn:oasis:names:tc:SAML:attribute:subject-id': ['a1b2c3@example.edu'],
          },
        }),
      )
      assert.equal(withSubjectId.statusCode, 303, withSubjectId.body)
      assert.equal(
        (await me((await complete(second.key)).cookies.find((c) => c.name === SESSION)?.value)).email,
        email,
      )
    })

    test('an existing person’s first SAML sign-in is confirmed by the emailed link; then their NameID signs them in', async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const first = await start()
      await post(
        response(first.requestId, {
          attributes: { [MAIL]: [person.email] },
          nameId: persistentId('editor-1'),
        }),
      )
      assert.equal((await complete(first.key)).headers.location, '/admin/?sso=check-email')
      const bound = async () =>
        (
          await ctx.testDatabase.database.db
            .selectFrom('sso_identities')
            .selectAll()
            .where('person_id', '=', person.id)
            .execute()
        ).length
      assert.equal(await bound(), 0)
      const message = smtp.messages.findLast((candidate) => candidate.to.includes(person.email))
      const link = /http:\/\/experts\.example\.edu(\/auth\/sso\/confirm\?token=[A-Za-z0-9_-]+)/.exec(
        mailText(message?.raw ?? ''),
      )?.[1]
      assert.ok(link)
      assert.equal(
        (await ctx.inject({ method: 'GET', url: link, cookies: { [TRANSACTION]: first.key } })).statusCode,
        303,
      )
      assert.equal(await bound(), 1)
    })
  },
  { config: { publicUrl: ORIGIN, smtpUrl: smtp.url, logLevel: 'silent' } },
)
