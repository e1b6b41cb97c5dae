import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { createClient } from '../src/auth/clients.js'
import { SCOPES } from '../src/auth/scopes.js'
import { verifySecret } from '../src/auth/secrets.js'
import { discardingStream } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { importDocument } from './helpers/content.js'
import {
  createExpert,
  describeEachDialect,
  envelope,
  expertBody,
  inquiryBody,
  requestToken,
} from './helpers/harness.js'
import { testImage, testPdf } from './helpers/images.js'
import { dashboard, PASSWORD, personToken, signIn } from './helpers/people.js'
import { SmtpReceiver, verifySignature, WebhookReceiver } from './helpers/receivers.js'

const PUBLIC_URL = 'http://experts.example.edu'

describeEachDialect(
  'admin API and audit log',
  (ctx) => {
    const smtp = new SmtpReceiver()
    const receiver = new WebhookReceiver()
    let app: FastifyInstance
    before(async () => {
      await smtp.start()
      await receiver.start()
      // One app for the file, with a real SMTP server for the invitation emails.
      app = await buildApp({
        config: { ...ctx.config, smtpUrl: smtp.url, publicUrl: PUBLIC_URL },
        database: ctx.testDatabase.database,
        now: ctx.clock.now,
        logStream: discardingStream(),
      })
    })
    after(async () => {
      await app?.close()
      await smtp.stop()
      await receiver.stop()
    })

    const db = () => ctx.testDatabase.database.db
    const org = () => ctx.tenant.orgId
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
    /** A request to `/v2/organization/<main>` + `path` with the main tenant's token (every scope) unless told. */
    const call = (
      method: InjectOptions['method'],
      path: string,
      payload?: object,
      headers: Record<string, string> = ctx.tenant.auth,
    ) =>
      app.inject({
        method,
        url: `/v2/organization/${org()}${path}`,
        headers,
        ...(payload === undefined ? {} : { payload }),
      })
    const ok = async (response: Awaited<ReturnType<typeof call>>) => {
      assert.equal(response.statusCode, 200, response.body)
      return response.json().data
    }
    const lastId = async () => {
      const row = await db()
        .selectFrom('audit_log')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst()
      return Number(row?.id ?? 0)
    }
    /** Runs `write` and returns the audit rows it added, oldest first. */
    const entriesOf = async (write: () => Promise<unknown>) => {
      const before = await lastId()
      await write()
      return db().selectFrom('audit_log').selectAll().where('id', '>', before).orderBy('id').execute()
    }
    const summary = (rows: { action: string; record_kind: string; record_id: string | null }[]) =>
      rows.map((row) => [row.action, row.record_kind, row.record_id])
    type KindAndId = { kind: string; id: string | null }
    /** An entry's actor or record without the names the log adds. */
    const ids = ({ kind, id }: KindAndId) => ({ kind, id })

    test('a client is created with its secret shown once and stored as a hash, gets tokens of its scopes, and revoking it stops them at once', async () => {
      const [entry] = await entriesOf(async () => {
        const issued = await ok(await call('POST', '/client', { label: 'website', scope: 'read:public' }))
        assert.match(issued.client_id, /^cl_/)
        assert.equal(issued.scope, 'read:public')
        const row = await db()
          .selectFrom('clients')
          .selectAll()
          .where('client_id', '=', issued.client_id)
          .executeTakeFirstOrThrow()
        assert.notEqual(row.secret_hash, issued.client_secret)
        assert.ok(await verifySecret(issued.client_secret, row.secret_hash))
        const listed = await ok(await call('GET', '/client'))
        const shown = listed.clients.find((c: { client_id: string }) => c.client_id === issued.client_id)
        assert.deepEqual(shown, {
          client_id: issued.client_id,
          label: 'website',
          scope: 'read:public',
          created_at: Math.floor(ctx.clock.now() / 1000),
          revoked_at: null,
        })
        assert.doesNotMatch(JSON.stringify(listed), new RegExp(issued.client_secret))
        const token = await requestToken(app, { ...issued, org: org() })
        assert.equal((await call('GET', '/expert?page_size=1', undefined, bearer(token))).statusCode, 200)
        assert.equal((await call('GET', '/inquiry', undefined, bearer(token))).statusCode, 403)

        const revoked = await ok(await call('DELETE', `/client/${issued.client_id}`))
        assert.deepEqual(revoked, {
          client_id: issued.client_id,
          revoked: true,
          revoked_at: Math.floor(ctx.clock.now() / 1000),
        })
        const refused = await call('GET', '/expert?page_size=1', undefined, bearer(token))
        assert.equal(refused.statusCode, 401)
        assert.equal(envelope(refused).error?.code, 'invalid_token')
        // Revoking again changes nothing and says when it was revoked.
        ctx.clock.advance(1000)
        assert.deepEqual(await ok(await call('DELETE', `/client/${issued.client_id}`)), revoked)
      })
      assert.equal(entry?.record_kind, 'client')
    })

    test('client writes are audited: create and revoke, each with the client that did it', async () => {
      const rows = await entriesOf(async () => {
        const { client_id } = await ok(await call('POST', '/client', {}))
        await ok(await call('DELETE', `/client/${client_id}`))
      })
      assert.deepEqual(
        rows.map((row) => [row.actor_kind, row.actor_id, row.action, row.record_kind]),
        [
          ['client', ctx.tenant.client.client_id, 'POST /v2/organization/:corporation/client', 'client'],
          [
            'client',
            ctx.tenant.client.client_id,
            'DELETE /v2/organization/:corporation/client/:client_id',
            'client',
          ],
        ],
      )
      assert.equal(rows[0]?.record_id, rows[1]?.record_id)
    })

    test('a client with an unknown scope, or a form repeating a key, is 400 and stores and records nothing', async () => {
      const clients = async () => (await db().selectFrom('clients').select('client_id').execute()).length
      const [count, audit] = [await clients(), await lastId()]
      const unknown = await call('POST', '/client', { scope: 'read everything' })
      assert.equal(unknown.statusCode, 400)
      assert.match(JSON.stringify(envelope(unknown).error?.details), /everything/)
      const another = await call('DELETE', '/client/cl_someone-elses')
      assert.equal(another.statusCode, 404)
      const foreign = await createClient(db(), ctx.other.orgId, 'theirs', ctx.clock.now())
      assert.equal((await call('DELETE', `/client/${foreign.client_id}`)).statusCode, 404)
      assert.equal(await clients(), count + 1)
      assert.equal(await lastId(), audit)
    })

    test('the webhook: PUT answers a new signing secret once, GET never shows it, keep_secret keeps it, the test event arrives signed, DELETE removes it', async () => {
      const first = await ok(await call('PUT', '/webhook', { url: receiver.url }))
      assert.match(first.secret, /^whsec_/)
      const shown = await ok(await call('GET', '/webhook'))
      assert.deepEqual(shown, {
        url: receiver.url,
        configured: true,
        updated_at: Math.floor(ctx.clock.now() / 1000),
      })
      const kept = await ok(await call('PUT', '/webhook', { url: `${receiver.url}?v=2`, keep_secret: 1 }))
      assert.deepEqual(kept, { url: `${receiver.url}?v=2` })

      const sent = receiver.requests.length
      const tested = await entriesOf(async () =>
        assert.deepEqual(await ok(await call('POST', '/webhook/test')), { delivered: true, error: null }),
      )
      // It changes nothing stored, but the server spoke to the outside address for someone: recorded.
      assert.deepEqual(summary(tested), [
        ['POST /v2/organization/:corporation/webhook/test', 'webhook', String(org())],
      ])
      const [ping] = receiver.requests.slice(sent)
      assert.ok(ping)
      assert.equal(ping.headers['x-expertdir-event'], 'ping')
      assert.equal(ping.headers['x-expertdir-delivery'], 'test')
      assert.ok(verifySignature(first.secret, String(ping.headers['x-expertdir-signature']), ping.body))
      assert.deepEqual(JSON.parse(ping.body), { event: 'ping', delivery_id: 'test', organization_id: org() })

      const rotated = await ok(await call('PUT', '/webhook', { url: receiver.url }))
      assert.notEqual(rotated.secret, first.secret)
      receiver.mode = 'fail'
      try {
        assert.deepEqual(await ok(await call('POST', '/webhook/test')), {
          delivered: false,
          error: 'webhook answered HTTP 500',
        })
      } finally {
        receiver.mode = 'ok'
      }
      const bad = await call('PUT', '/webhook', { url: 'ftp://example.org/hook' })
      assert.equal(bad.statusCode, 400)
      assert.deepEqual(await ok(await call('DELETE', '/webhook')), { cleared: true })
      assert.equal((await call('DELETE', '/webhook')).statusCode, 404)
      const noWebhook = await entriesOf(async () =>
        assert.equal((await call('POST', '/webhook/test')).statusCode, 404),
      )
      assert.deepEqual(noWebhook, [])
      const missing = await call('PUT', '/webhook', { url: receiver.url, keep_secret: 1 })
      assert.equal(missing.statusCode, 409)
      assert.deepEqual(await ok(await call('GET', '/webhook')), {
        url: null,
        configured: false,
        updated_at: null,
      })
    })

    test('the delivery log lists the webhook channel newest first, a page at a time, for its own organization only', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const ids: number[] = []
      for (let i = 0; i < 3; i++) {
        ids.push((await ok(await call('POST', '/inquiry/general', inquiryBody('general', username)))).id)
      }
      const first = await ok(await call('GET', '/webhook/deliveries?page_size=2'))
      assert.deepEqual(
        first.deliveries.map((d: { inquiry_id: number }) => d.inquiry_id),
        [ids[2], ids[1]],
      )
      assert.equal(first.deliveries[0].status, 'pending')
      assert.equal(first.deliveries[0].attempts, 0)
      const second = await ok(
        await call('GET', `/webhook/deliveries?page_size=2&cursor=${first.next_cursor}`),
      )
      assert.equal(second.deliveries[0].inquiry_id, ids[0])
      const bad = await call('GET', '/webhook/deliveries?cursor=bm90LWEtY3Vyc29y')
      assert.equal(bad.statusCode, 400)
      assert.equal(envelope(bad).error?.details?.[0]?.field, 'cursor')
      const theirs = await app.inject({
        method: 'GET',
        url: `/v2/organization/${ctx.other.orgId}/webhook/deliveries`,
        headers: ctx.other.auth,
      })
      assert.deepEqual(theirs.json().data, { deliveries: [], next_cursor: null })
    })

    test('POST people emails a single-use invitation link with which the person sets a password and signs in', async () => {
      const sent = smtp.messages.length
      const invited = await ok(
        await call('POST', '/people', {
          email: 'New.Editor@Example.edu',
          role: 'editor',
          name: 'New Editor',
        }),
      )
      assert.equal(invited.invitation, 'sent')
      assert.deepEqual(
        { ...invited.person, id: 0 },
        {
          id: 0,
          email: 'New.Editor@Example.edu',
          name: 'New Editor',
          role: 'editor',
          expert: null,
          has_password: false,
          invitation_expires_at: Math.floor(ctx.clock.now() / 1000) + 7 * 24 * 3600,
          created_at: Math.floor(ctx.clock.now() / 1000),
        },
      )
      assert.doesNotMatch(JSON.stringify(invited), /token/)
      const [mail] = smtp.messages.slice(sent)
      assert.deepEqual(
        mail?.to.map((to) => to.toLowerCase()),
        ['new.editor@example.edu'],
      )
      const decoded = (mail?.raw ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=')
      const token = /http:\/\/experts\.example\.edu\/admin\/invitation#token=([A-Za-z0-9_-]+)/.exec(
        decoded,
      )?.[1]
      assert.ok(token, 'the email holds the link')
      const accept = () =>
        app.inject(
          dashboard('POST', '/auth/invitation/accept', {
            payload: { token, password: PASSWORD },
          }),
        )
      assert.equal((await accept()).statusCode, 200)
      assert.equal((await accept()).statusCode, 404)
      const cookie = await signIn(ctx, 'new.editor@example.edu')
      assert.ok(cookie)
      const listed = await ok(await call('GET', '/people'))
      const person = listed.people.find((p: { id: number }) => p.id === invited.person.id)
      assert.equal(person.has_password, true)

      const changed = await ok(await call('PUT', `/people/${invited.person.id}`, { role: 'inquiries' }))
      assert.equal(changed.role, 'inquiries')
      const removed = await ok(await call('DELETE', `/people/${invited.person.id}`))
      assert.deepEqual(removed, { id: invited.person.id, removed: true })
      assert.equal((await call('DELETE', `/people/${invited.person.id}`)).statusCode, 404)
      const taken = await call('POST', '/people', { email: 'someone@example.edu', role: 'expert' })
      assert.equal(taken.statusCode, 400, 'the expert role needs its expert')
      const empty = await call('PUT', `/people/${invited.person.id}`, {})
      assert.equal(empty.statusCode, 400)
    })

    test('an invitation sent again is emailed with a new link (the old one stops working) and audited; refused once a password is set', async () => {
      const { person } = await ok(
        await call('POST', '/people', { email: 'late.editor@example.edu', role: 'editor' }),
      )
      const linkIn = (raw: string) =>
        /#token=([A-Za-z0-9_-]+)/.exec(raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1] ?? ''
      const first = linkIn(smtp.messages.at(-1)?.raw ?? '')
      ctx.clock.advance(60_000)
      const sent = smtp.messages.length
      let again: { person: { invitation_expires_at: number }; invitation: string } | undefined
      const entries = await entriesOf(async () => {
        again = await ok(await call('POST', `/people/${person.id}/invitation`))
      })
      assert.equal(again?.invitation, 'sent')
      assert.equal(again?.person.invitation_expires_at, Math.floor(ctx.clock.now() / 1000) + 7 * 24 * 3600)
      assert.doesNotMatch(JSON.stringify(again), /token/)
      assert.deepEqual(summary(entries), [
        ['POST /v2/organization/:corporation/people/:id/invitation', 'person', String(person.id)],
      ])
      const mail = smtp.messages.slice(sent)
      assert.deepEqual(
        mail.map((message) => message.to),
        [['late.editor@example.edu']],
      )
      const accept = (token: string) =>
        app.inject(dashboard('POST', '/auth/invitation/accept', { payload: { token, password: PASSWORD } }))
      assert.equal((await accept(first)).statusCode, 404, 'the earlier link stopped working')
      assert.equal((await accept(linkIn(mail[0]?.raw ?? ''))).statusCode, 200)
      const listed = await ok(await call('GET', '/people'))
      const accepted = listed.people.find((p: { id: number }) => p.id === person.id)
      assert.deepEqual([accepted.has_password, accepted.invitation_expires_at], [true, null])

      const theirs = await ok(
        await app.inject({
          method: 'POST',
          url: `/v2/organization/${ctx.other.orgId}/people`,
          headers: ctx.other.auth,
          payload: { email: 'other.invitee@example.edu', role: 'editor' },
        }),
      )
      const before = smtp.messages.length
      const refused = await call('POST', `/people/${person.id}/invitation`)
      assert.equal(refused.statusCode, 409, refused.body)
      assert.match(envelope(refused).error?.message ?? '', /already set a password/)
      const elsewhere = await call('POST', `/people/${theirs.person.id}/invitation`)
      assert.equal(elsewhere.statusCode, 404, 'a person of another organization is not found')
      assert.equal(smtp.messages.length, before, 'nothing is sent for a refused request')
    })

    test('only an owner makes, demotes or removes an owner: an admin person and an admin client may not; the last owner stays', async () => {
      const tenant = await ctx.addTenant('Owners Org')
      const at = (path: string) => `/v2/organization/${tenant.orgId}${path}`
      const owner = await personToken(ctx, tenant.orgId, 'owner')
      const admin = await personToken(ctx, tenant.orgId, 'admin')
      const send = (token: string, method: InjectOptions['method'], path: string, payload?: object) =>
        app.inject({ method, url: at(path), headers: bearer(token), ...(payload ? { payload } : {}) })
      const forbidden = async (response: Awaited<ReturnType<typeof send>>) => {
        assert.equal(response.statusCode, 403, response.body)
        assert.equal(envelope(response).error?.code, 'forbidden')
      }
      for (const token of [admin.token, tenant.token]) {
        await forbidden(
          await send(token, 'POST', '/people', { email: `o-${token.length}@example.edu`, role: 'owner' }),
        )
        await forbidden(await send(token, 'PUT', `/people/${owner.id}`, { role: 'editor' }))
        await forbidden(await send(token, 'PUT', `/people/${admin.id}`, { role: 'owner' }))
        await forbidden(await send(token, 'DELETE', `/people/${owner.id}`))
      }
      // What an admin may do: rename an owner, add and change anyone else.
      assert.equal(
        (await send(admin.token, 'PUT', `/people/${owner.id}`, { name: 'The Owner' })).statusCode,
        200,
      )
      const last = await send(owner.token, 'PUT', `/people/${owner.id}`, { role: 'admin' })
      assert.equal(last.statusCode, 409)
      assert.equal((await send(owner.token, 'DELETE', `/people/${owner.id}`)).statusCode, 409)
      assert.equal((await send(owner.token, 'PUT', `/people/${admin.id}`, { role: 'owner' })).statusCode, 200)
      assert.equal(
        (await send(owner.token, 'PUT', `/people/${owner.id}`, { role: 'editor' })).statusCode,
        200,
      )
      const roles = (await ok(await send(admin.token, 'GET', '/people'))).people.map(
        (p: { id: number; role: string }) => [p.id, p.role],
      )
      assert.deepEqual(roles, [
        [owner.id, 'editor'],
        [admin.id, 'owner'],
      ])
    })

    test('every kind of write through the API records one entry with its route and record, in its transaction', async () => {
      const base = '/v2/organization/:corporation'
      const expect: [string, string, string | null][] = []
      const writes = await entriesOf(async () => {
        const username = await createExpert(ctx, ctx.tenant, { lastname: 'Audited' })
        expect.push([`POST ${base}/expert`, 'expert', username])
        await ok(await call('PUT', `/expert/${username}`, { job_title: 'Dean' }))
        expect.push([`PUT ${base}/expert/:username`, 'expert', username])
        await ok(await call('PUT', `/expert/${username}`, { username: 'renamed-audited' }))
        expect.push([`PUT ${base}/expert/:username`, 'expert', 'renamed-audited'])
        const element = await ok(
          await call('POST', '/expert/renamed-audited/education', { institution: 'A' }),
        )
        expect.push([
          `POST ${base}/expert/:username/education`,
          'section',
          `renamed-audited/education/${element.id}`,
        ])
        await ok(await call('PUT', `/expert/renamed-audited/education/${element.id}`, { institution: 'B' }))
        expect.push([
          `PUT ${base}/expert/:username/education/:id`,
          'section',
          `renamed-audited/education/${element.id}`,
        ])
        await ok(await call('DELETE', `/expert/renamed-audited/education/${element.id}`))
        expect.push([
          `DELETE ${base}/expert/:username/education/:id`,
          'section',
          `renamed-audited/education/${element.id}`,
        ])
        await ok(await call('PUT', '', { description: 'Audited organization' }))
        expect.push([`PUT ${base}`, 'organization', String(org())])

        const post = await ok(
          await app.inject({
            method: 'POST',
            url: `/v2/spotlight/${org()}`,
            headers: ctx.tenant.auth,
            payload: { title: 'Audited post', html: '<p>x</p>' },
          }),
        )
        expect.push(['POST /v2/spotlight/:corporation', 'spotlight', String(post.id)])
        const postUrl = `/v2/spotlight/${org()}/${post.id}`
        await ok(
          await app.inject({
            method: 'PUT',
            url: postUrl,
            headers: ctx.tenant.auth,
            payload: { title: 'T' },
          }),
        )
        expect.push(['PUT /v2/spotlight/:corporation/:id', 'spotlight', String(post.id)])
        await ok(await app.inject({ method: 'DELETE', url: postUrl, headers: ctx.tenant.auth }))
        expect.push(['DELETE /v2/spotlight/:corporation/:id', 'spotlight', String(post.id)])

        const question = await ok(
          await app.inject({
            method: 'POST',
            url: `/v2/qanda/${org()}`,
            headers: ctx.tenant.auth,
            payload: { question: 'Audited?' },
          }),
        )
        expect.push(['POST /v2/qanda/:corporation', 'question', String(question.id)])
        const qUrl = `/v2/qanda/${org()}/${question.id}`
        await ok(
          await app.inject({
            method: 'PUT',
            url: qUrl,
            headers: ctx.tenant.auth,
            payload: { question: 'Q?' },
          }),
        )
        expect.push(['PUT /v2/qanda/:corporation/:id', 'question', String(question.id)])
        const answer = await ok(
          await app.inject({
            method: 'POST',
            url: `${qUrl}/answer`,
            headers: ctx.tenant.auth,
            payload: { username: 'renamed-audited', answer: 'Yes' },
          }),
        )
        const answerRecord = `${question.id}/${answer.id}`
        expect.push(['POST /v2/qanda/:corporation/:id/answer', 'answer', answerRecord])
        const answerUrl = `${qUrl}/answer/${answer.id}`
        await ok(
          await app.inject({
            method: 'PUT',
            url: answerUrl,
            headers: ctx.tenant.auth,
            payload: { answer: 'No' },
          }),
        )
        expect.push(['PUT /v2/qanda/:corporation/:id/answer/:answer_id', 'answer', answerRecord])
        await ok(await app.inject({ method: 'DELETE', url: answerUrl, headers: ctx.tenant.auth }))
        expect.push(['DELETE /v2/qanda/:corporation/:id/answer/:answer_id', 'answer', answerRecord])
        await ok(await app.inject({ method: 'DELETE', url: qUrl, headers: ctx.tenant.auth }))
        expect.push(['DELETE /v2/qanda/:corporation/:id', 'question', String(question.id)])
      })
      assert.deepEqual(summary(writes), expect)
      for (const row of writes) {
        assert.equal(row.org_id, org())
        assert.equal(row.actor_kind, 'client')
        assert.equal(row.actor_id, ctx.tenant.client.client_id)
        assert.equal(Number(row.created_at), ctx.clock.now())
      }
    })

    test('photo, document, inquiry handling, notification settings, privacy export and erasure, and deletes are audited', async () => {
      const username = await createExpert(ctx, ctx.tenant, { lastname: 'Photographed' })
      const photo = await testImage('jpeg', 240, 240)
      const inquiry = (await ok(await call('POST', '/inquiry/general', inquiryBody('general', username)))).id
      const rows = await entriesOf(async () => {
        await ok(
          await app.inject({
            method: 'PUT',
            url: `/v2/organization/${org()}/expert/${username}/avatar`,
            headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
            payload: photo,
          }),
        )
        await ok(await call('DELETE', `/expert/${username}/avatar`))
        const file = await ok(
          await app.inject({
            method: 'POST',
            url: `/v2/organization/${org()}/file`,
            headers: { ...ctx.tenant.auth, 'content-type': 'application/pdf' },
            payload: testPdf(),
          }),
        )
        assert.ok(file.url)
        await ok(await call('PUT', '/notifications', { general: { recipients: ['desk@example.edu'] } }))
        await ok(await call('PATCH', `/inquiry/${inquiry}`, { status: 'answered', notes: 'Call back' }))
        await ok(
          await call(
            'GET',
            `/inquiry?email=${encodeURIComponent(String(inquiryBody('general', username).email))}`,
          ),
        )
        await ok(
          await call(
            'DELETE',
            `/inquiry?email=${encodeURIComponent(String(inquiryBody('general', username).email))}`,
          ),
        )
        await ok(await call('DELETE', `/expert/${username}`))
      })
      const base = '/v2/organization/:corporation'
      const privacy = rows.filter((row) => row.record_kind === 'privacy_request')
      assert.deepEqual(
        summary(rows).map(([action, kind, id]) => [
          action,
          kind,
          kind === 'file' || kind === 'privacy_request' ? '*' : id,
        ]),
        [
          [`PUT ${base}/expert/:username/avatar`, 'avatar', username],
          [`DELETE ${base}/expert/:username/avatar`, 'avatar', username],
          [`POST ${base}/file`, 'file', '*'],
          [`PUT ${base}/notifications`, 'notification_settings', String(org())],
          [`PATCH ${base}/inquiry/:id`, 'inquiry', String(inquiry)],
          [`GET ${base}/inquiry`, 'privacy_request', '*'],
          [`DELETE ${base}/inquiry`, 'privacy_request', '*'],
          [`DELETE ${base}/expert/:username`, 'expert', username],
        ],
      )
      const requests = await db()
        .selectFrom('privacy_requests')
        .select(['id', 'action'])
        .where('org_id', '=', org())
        .orderBy('id')
        .execute()
      assert.deepEqual(
        privacy.map((row) => row.record_id),
        requests.slice(-2).map((request) => String(request.id)),
      )
    })

    test('the admin API, a person, the import and the CLI each name themselves in the entries they leave', async () => {
      const editor = await personToken(ctx, org(), 'editor')
      const [personWrite] = await entriesOf(async () =>
        ok(
          await call('POST', '/expert', expertBody({ email: 'by-person@example.edu' }), bearer(editor.token)),
        ),
      )
      assert.deepEqual([personWrite?.actor_kind, personWrite?.actor_id], ['person', String(editor.id)])

      const imported = await entriesOf(() =>
        importDocument(ctx, org(), { questions: [{ key: 'audit-q', question: 'Imported?' }] }, 'batch.json'),
      )
      assert.deepEqual(
        imported.map((row) => [row.actor_kind, row.actor_id, row.action, row.record_kind, row.record_id]),
        [['cli', null, 'cli import', 'import', 'batch.json']],
      )

      const cli = (args: string[]) =>
        runCli(['--db', ctx.testDatabase.url, ...args], { EXPERTDIR_WEBHOOK_ALLOW_PRIVATE: '1' })
      const viaCli = await entriesOf(async () => {
        const added = await cli([
          'people',
          'add',
          '--org',
          String(org()),
          '--email',
          'cli@example.edu',
          '--role',
          'editor',
          '--json',
        ])
        assert.equal(added.code, 0, added.stderr)
        const client = await cli(['client', 'create', '--org', String(org()), '--json'])
        assert.equal(client.code, 0, client.stderr)
        const { client_id } = JSON.parse(client.stdout)
        assert.equal((await cli(['client', 'revoke', client_id])).code, 0)
        assert.equal((await cli(['webhook', 'set', '--org', String(org()), '--url', receiver.url])).code, 0)
        assert.equal((await cli(['webhook', 'clear', '--org', String(org())])).code, 0)
        const erase = ['inquiries', 'erase', '--org', String(org()), '--email', 'nobody@example.org']
        assert.equal((await cli(erase)).code, 0)
        assert.equal(
          (await cli(['people', 'remove', '--org', String(org()), '--email', 'cli@example.edu'])).code,
          0,
        )
      })
      assert.deepEqual(
        viaCli.map((row) => [row.actor_kind, row.actor_id, row.action, row.record_kind]),
        [
          ['cli', null, 'cli people add', 'person'],
          ['cli', null, 'cli client create', 'client'],
          ['cli', null, 'cli client revoke', 'client'],
          ['cli', null, 'cli webhook set', 'webhook'],
          ['cli', null, 'cli webhook clear', 'webhook'],
          ['cli', null, 'cli inquiries erase', 'privacy_request'],
          ['cli', null, 'cli people remove', 'person'],
        ],
      )
    })

    test('a refused or failed write records nothing', async () => {
      const username = await createExpert(ctx, ctx.tenant, { email: 'first@example.edu' })
      const other = await createExpert(ctx, ctx.tenant, { email: 'second@example.edu' })
      const tenant = await ctx.addTenant('Last Owner Org')
      const owner = await personToken(ctx, tenant.orgId, 'owner')
      const rows = await entriesOf(async () => {
        const conflict = await call('PUT', `/expert/${other}`, { email: 'first@example.edu' })
        assert.equal(conflict.statusCode, 409)
        const invalid = await call('POST', `/expert/${username}/education`, { institution: '' })
        assert.equal(invalid.statusCode, 400)
        const missing = await call('PUT', '/expert/nobody-at-all', { job_title: 'Ghost' })
        assert.equal(missing.statusCode, 404)
        const lastOwner = await app.inject({
          method: 'DELETE',
          url: `/v2/organization/${tenant.orgId}/people/${owner.id}`,
          headers: bearer(owner.token),
        })
        assert.equal(lastOwner.statusCode, 409)
        const rejected = await importDocument(ctx, org(), { questions: [{ key: 'bad' }] }).catch(
          (error: Error) => error,
        )
        assert.ok(rejected instanceof Error)
        const unchanged = await ok(await call('PUT', `/expert/${username}`, { email: 'first@example.edu' }))
        assert.equal(unchanged.updated, false)
      })
      assert.deepEqual(summary(rows), [])
    })

    test('the audit log reads newest first, a page at a time, with actor and kind filters, for its own organization only', async () => {
      const tenant = await ctx.addTenant('Audit Reader Org')
      const at = (path: string) => `/v2/organization/${tenant.orgId}${path}`
      const read = async (query: string) => {
        const response = await app.inject({ method: 'GET', url: at(`/audit${query}`), headers: tenant.auth })
        return ok(response)
      }
      // Adding the person is the first entry (the CLI's service), then three experts, then the webhook.
      const admin = await personToken(ctx, tenant.orgId, 'admin')
      const usernames: string[] = []
      for (let i = 0; i < 3; i++) usernames.push(await createExpert(ctx, tenant, { lastname: `Paged ${i}` }))
      await ok(
        await app.inject({
          method: 'PUT',
          url: at('/webhook'),
          headers: bearer(admin.token),
          payload: { url: receiver.url },
        }),
      )
      const page1 = await read('?page_size=2')
      assert.equal(page1.entries.length, 2)
      assert.deepEqual(ids(page1.entries[0].actor), { kind: 'person', id: String(admin.id) })
      assert.deepEqual(ids(page1.entries[0].record), { kind: 'webhook', id: String(tenant.orgId) })
      assert.equal(page1.entries[0].action, 'PUT /v2/organization/:corporation/webhook')
      assert.equal(page1.entries[0].created_at, Math.floor(ctx.clock.now() / 1000))
      assert.deepEqual(ids(page1.entries[1].record), { kind: 'expert', id: usernames[2] })
      const page2 = await read(`?page_size=2&cursor=${page1.next_cursor}`)
      assert.deepEqual(
        page2.entries.map((e: { record: { id: string } }) => e.record.id),
        [usernames[1], usernames[0]],
      )
      assert.ok(page2.entries[0].id < page1.entries[1].id)
      const page3 = await read(`?page_size=2&cursor=${page2.next_cursor}`)
      assert.deepEqual(
        page3.entries.map((e: { actor: KindAndId; record: KindAndId }) => [ids(e.actor), ids(e.record)]),
        [
          [
            { kind: 'cli', id: null },
            { kind: 'person', id: String(admin.id) },
          ],
        ],
      )
      assert.equal(page3.next_cursor, null)

      const experts = await read('?kind=expert')
      assert.deepEqual(
        experts.entries.map((e: { record: { id: string } }) => e.record.id),
        [...usernames].reverse(),
      )
      const byPerson = await read(`?actor=person:${admin.id}`)
      assert.equal(byPerson.entries.length, 1)
      const byClient = await read(`?actor=client:${tenant.client.client_id}`)
      assert.equal(byClient.entries.length, 3)
      assert.equal((await read('?actor=cli')).entries.length, 1)
      assert.deepEqual((await read('?actor=system')).entries, [])

      for (const query of [
        '?cursor=not-a-cursor',
        '?actor=robot',
        '?kind=planet',
        '?page_size=101',
        '?other=1',
      ]) {
        const response = await app.inject({ method: 'GET', url: at(`/audit${query}`), headers: tenant.auth })
        assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
        assert.equal(envelope(response).error?.code, 'validation_failed')
      }
      // Another organization's cursor continues its own log only: the main tenant's entries never show.
      const mine = await ok(await call('GET', `/audit?page_size=100&cursor=${page1.next_cursor}`))
      for (const entry of mine.entries) assert.notEqual(entry.record.id, usernames[0])
      const editor = await personToken(ctx, tenant.orgId, 'editor')
      const refused = await app.inject({ method: 'GET', url: at('/audit'), headers: bearer(editor.token) })
      assert.equal(refused.statusCode, 403)
      assert.equal(envelope(refused).error?.code, 'insufficient_scope')
    })

    test('the audit log names who did what: the person, the client, a sentence and the record to open, and filters by one record', async () => {
      const tenant = await ctx.addTenant('Audit Names Org')
      const at = (path: string) => `/v2/organization/${tenant.orgId}${path}`
      const admin = await personToken(ctx, tenant.orgId, 'admin')
      await db().updateTable('people').set({ name: 'Grace Lee' }).where('id', '=', admin.id).execute()
      const as = async (token: string, method: InjectOptions['method'], url: string, payload?: object) =>
        ok(await app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) }))
      const issued = await as(admin.token, 'POST', at('/client'), { label: 'Newsroom site' })
      const clientToken = await requestToken(app, { ...issued, org: tenant.orgId })
      const created = await as(
        clientToken,
        'POST',
        at('/expert'),
        expertBody({ firstname: 'Ada', lastname: 'Okafor' }),
      )
      const username: string = created.username
      const other = await createExpert(ctx, tenant, { firstname: 'Mateo', lastname: 'García' })
      await as(admin.token, 'POST', at(`/expert/${username}/biography`), { biography: 'Genomics.' })
      const education = await as(admin.token, 'POST', at(`/expert/${username}/education`), {
        institution: 'Lagos',
      })
      await as(admin.token, 'DELETE', at(`/expert/${username}/education/${education.id}`))
      await as(admin.token, 'POST', at(`/expert/${other}/biography`), { biography: 'Energy.' })
      const post = await as(admin.token, 'POST', `/v2/spotlight/${tenant.orgId}`, {
        title: 'Heat waves and the grid',
        html: '<p>Text</p>',
      })

      const log = await as(admin.token, 'GET', at('/audit?page_size=100'))
      type Entry = {
        summary: string
        actor: { name: string | null }
        record: { label: string | null; subject: KindAndId | null }
      }
      const shown = log.entries.map((entry: Entry) => [
        entry.actor.name,
        entry.summary,
        entry.record.label,
        entry.record.subject,
      ])
      assert.deepEqual(shown.slice(0, 7), [
        [
          'Grace Lee',
          'Created the post “Heat waves and the grid”',
          'Heat waves and the grid',
          { kind: 'spotlight', id: String(post.id) },
        ],
        ['Grace Lee', 'Changed the biography of Mateo García', 'Mateo García', { kind: 'expert', id: other }],
        [
          'Grace Lee',
          'Removed an entry from the education of Ada Okafor',
          'Ada Okafor',
          { kind: 'expert', id: username },
        ],
        ['Grace Lee', 'Added to the education of Ada Okafor', 'Ada Okafor', { kind: 'expert', id: username }],
        ['Grace Lee', 'Changed the biography of Ada Okafor', 'Ada Okafor', { kind: 'expert', id: username }],
        ['test', 'Added the expert Mateo García', 'Mateo García', { kind: 'expert', id: other }],
        ['Newsroom site', 'Added the expert Ada Okafor', 'Ada Okafor', { kind: 'expert', id: username }],
      ])
      assert.deepEqual(shown[7], [
        'Grace Lee',
        'Created the API client Newsroom site',
        'Newsroom site',
        { kind: 'client', id: issued.client_id },
      ])

      // One record's history: the expert, its photo and its sections, nobody else's.
      const history = await as(admin.token, 'GET', at(`/audit?kind=expert&record=${username}`))
      assert.deepEqual(
        history.entries.map((entry: Entry) => entry.summary),
        [
          'Removed an entry from the education of Ada Okafor',
          'Added to the education of Ada Okafor',
          'Changed the biography of Ada Okafor',
          'Added the expert Ada Okafor',
        ],
      )
      // `%` and `_` in a record id are matched as written.
      assert.deepEqual((await as(admin.token, 'GET', at('/audit?kind=expert&record=%25'))).entries, [])
      const byClient = await as(admin.token, 'GET', at(`/audit?actor=client:${issued.client_id}`))
      assert.deepEqual(
        byClient.entries.map((entry: Entry) => entry.summary),
        ['Added the expert Ada Okafor'],
      )
      const alone = await app.inject({
        method: 'GET',
        url: at(`/audit?record=${username}`),
        headers: bearer(admin.token),
      })
      assert.equal(alone.statusCode, 400)
      assert.equal(envelope(alone).error?.code, 'validation_failed')
      assert.match(alone.body, /needs kind/)

      // A person removed since is named as such, the names of today are shown.
      await db()
        .updateTable('experts')
        .set({ firstname: 'Adaeze' })
        .where('username', '=', username)
        .execute()
      const renamed = await as(admin.token, 'GET', at(`/audit?kind=expert&record=${username}&page_size=1`))
      assert.equal(renamed.entries[0].summary, 'Removed an entry from the education of Adaeze Okafor')
    })

    test('admin is never a default scope: a client created without one cannot administer', async () => {
      const issued = await ok(await call('POST', '/client', { label: 'defaults' }))
      assert.equal(issued.scope, 'read write inquiries:create inquiries:read')
      const token = await requestToken(app, { ...issued, org: org() })
      const refused = await call('GET', '/audit', undefined, bearer(token))
      assert.equal(refused.statusCode, 403)
      assert.ok(SCOPES.includes('admin'))
    })
  },
  // The receiver listens on 127.0.0.1, which webhooks may reach only when the operator allows it.
  { config: { rateLimitApi: 0, webhookAllowPrivate: true } },
)
