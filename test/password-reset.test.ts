import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import type { Config } from '../src/config.js'
import { discardingStream } from './helpers/checked.js'
import { describeEachDialect, type TestContext } from './helpers/harness.js'
import { addPersonWithPassword, dashboardToken, signIn } from './helpers/people.js'
import { SmtpReceiver } from './helpers/receivers.js'

/** The links of an emailed (quoted-printable) message. */
function linksIn(raw: string): string[] {
  const decoded = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
  return [...decoded.matchAll(/https?:\/\/[^\s]+#token=[A-Za-z0-9_-]+/g)].map((match) => match[0])
}

/** A reset request as an attacker's client sends it: its own Host, Origin and forwarded host. */
function resetRequest(
  email: string,
  options: { host?: string; origin?: string; client?: string } = {},
): InjectOptions {
  const host = options.host ?? 'attacker.example'
  return {
    method: 'POST',
    url: '/auth/password-reset',
    remoteAddress: options.client ?? '127.0.0.1',
    headers: {
      host,
      origin: options.origin ?? 'https://attacker.example',
      'x-forwarded-host': 'attacker.example',
      'x-forwarded-proto': 'https',
      'content-type': 'application/json',
    },
    payload: JSON.stringify({ email }),
  }
}

/** An app on the suite's database with an SMTP receiver, and `config` over the suite's. */
function appWithMail(ctx: TestContext, smtp: SmtpReceiver, config: () => Partial<Config>) {
  let app: FastifyInstance | undefined
  before(async () => {
    await smtp.start()
    app = await buildApp({
      config: { ...ctx.config, smtpUrl: smtp.url, ...config() },
      database: ctx.testDatabase.database,
      now: ctx.clock.now,
      logStream: discardingStream(),
    })
  })
  after(async () => {
    await app?.close()
    await smtp.stop()
  })
  return (options: InjectOptions) => {
    if (!app) throw new Error('no app')
    return app.inject(options)
  }
}

describeEachDialect('password resets: emailed links point at the configured address only', (ctx) => {
  describe('without EXPERTDIR_PUBLIC_URL, behind a trusted proxy', () => {
    const smtp = new SmtpReceiver()
    const inject = appWithMail(ctx, smtp, () => ({
      publicUrl: undefined,
      trustProxy: '127.0.0.1',
      host: '0.0.0.0',
      port: 8123,
    }))

    test('a reset asked with a foreign Host and X-Forwarded-Host links to the listening address', async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
      const sent = smtp.messages.length
      const response = await inject(resetRequest(person.email))
      assert.equal(response.statusCode, 200, response.body)
      const [mail] = (await smtp.received(sent + 1)).slice(sent)
      assert.deepEqual(mail?.to, [person.email])
      const links = linksIn(mail?.raw ?? '')
      assert.equal(links.length, 1)
      assert.match(links[0] ?? '', /^http:\/\/127\.0\.0\.1:8123\/admin\/reset#token=/)
      assert.doesNotMatch(mail?.raw ?? '', /attacker/)
    })

    test('an invitation asked with a foreign Host links to the listening address', async () => {
      const admin = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'admin')
      const token = await dashboardToken(ctx, await signIn(ctx, admin.email))
      const email = `invited.${Math.random().toString(36).slice(2, 8)}@example.edu`
      const sent = smtp.messages.length
      const response = await inject({
        method: 'POST',
        url: `/v2/organization/${ctx.tenant.orgId}/people`,
        headers: {
          host: 'attacker.example',
          'x-forwarded-host': 'attacker.example',
          authorization: `Bearer ${token}`,
        },
        payload: { email, role: 'editor' },
      })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(response.json().data.invitation, 'sent')
      const [mail] = (await smtp.received(sent + 1)).slice(sent)
      assert.match(linksIn(mail?.raw ?? '')[0] ?? '', /^http:\/\/127\.0\.0\.1:8123\/admin\/invitation#token=/)
    })
  })

  describe('with EXPERTDIR_PUBLIC_URL', () => {
    const smtp = new SmtpReceiver()
    const inject = appWithMail(ctx, smtp, () => ({
      publicUrl: 'https://experts.example.edu',
      trustProxy: '127.0.0.1',
    }))

    test('a reset asked with a foreign Host and X-Forwarded-Host links to the public address', async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
      const sent = smtp.messages.length
      const response = await inject(
        resetRequest(person.email, { host: 'experts.example.edu', origin: 'https://experts.example.edu' }),
      )
      assert.equal(response.statusCode, 200, response.body)
      const [mail] = (await smtp.received(sent + 1)).slice(sent)
      assert.match(linksIn(mail?.raw ?? '')[0] ?? '', /^https:\/\/experts\.example\.edu\/admin\/reset#token=/)
    })
  })
})

describeEachDialect(
  'password resets: the same answer for every address, and a bounded number of emails',
  (ctx) => {
    const smtp = new SmtpReceiver()
    const inject = appWithMail(ctx, smtp, () => ({ publicUrl: 'http://experts.example.edu' }))
    const reset = (email: string, client: string) =>
      inject(
        resetRequest(email, { host: 'experts.example.edu', origin: 'http://experts.example.edu', client }),
      )
    /** Requests are handled one at a time in order: once `marker`'s email arrives, every earlier one is done. */
    const mailsUntil = async (sent: number, marker: string) => {
      await reset(marker, '198.51.100.200')
      for (;;) {
        const mail = (await smtp.received(sent + 1)).slice(sent)
        if (mail.some((m) => m.to.includes(marker))) return mail.filter((m) => !m.to.includes(marker))
        await smtp.received(smtp.messages.length + 1)
      }
    }

    test('an address with an account is answered before its email is composed, as one without', {
      timeout: 20_000,
    }, async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const sent = smtp.messages.length
      let release = () => {}
      smtp.holding = new Promise<void>((resolve) => {
        release = resolve
      })
      try {
        // The mail server does not take the message until released: an answer that waited for the
        // email would never come.
        const known = await reset(person.email, '198.51.100.1')
        const unknown = await reset('nobody.at.all@example.edu', '198.51.100.1')
        assert.equal(smtp.messages.length, sent, 'no email has been taken yet')
        for (const response of [known, unknown]) assert.equal(response.statusCode, 200)
        assert.equal(known.body, unknown.body)
        const headers = (response: typeof known) =>
          Object.keys(response.headers)
            .filter((name) => !['date', 'x-request-id'].includes(name))
            .sort()
            .map((name) => `${name}: ${response.headers[name]}`)
        assert.deepEqual(headers(known), headers(unknown))
      } finally {
        release()
        smtp.holding = undefined
      }
      const [mail] = (await smtp.received(sent + 1)).slice(sent)
      assert.deepEqual(mail?.to, [person.email])
    })

    test('an account receives at most 3 reset emails an hour; more requests get the same answer', async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const marker = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const sent = smtp.messages.length
      const answers = []
      for (let i = 0; i < 5; i++) answers.push(await reset(person.email, `198.51.100.${10 + i}`))
      for (const answer of answers) assert.deepEqual(answer.json(), { success: true, data: { done: true } })
      const mail = await mailsUntil(sent, marker.email)
      assert.equal(mail.filter((m) => m.to.includes(person.email)).length, 3)

      ctx.clock.advance(3600 * 1000 + 1)
      try {
        const again = smtp.messages.length
        await reset(person.email, '198.51.100.20')
        const later = await mailsUntil(again, marker.email)
        assert.equal(
          later.filter((m) => m.to.includes(person.email)).length,
          1,
          'a new hour, a new allowance',
        )
      } finally {
        ctx.clock.advance(-(3600 * 1000 + 1))
      }
    })

    test('a client address asking more than 20 times an hour gets no more emails, and the same answer', async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const marker = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const client = '203.0.113.7'
      for (let i = 0; i < 20; i++) {
        const answer = await reset(`unknown.${i}@example.edu`, client)
        assert.equal(answer.statusCode, 200)
      }
      const sent = smtp.messages.length
      const refused = await reset(person.email, client)
      assert.deepEqual(refused.json(), { success: true, data: { done: true } })
      const mail = await mailsUntil(sent, marker.email)
      assert.deepEqual(mail, [], 'no email for the 21st request')
    })
  },
)
