import assert from 'node:assert/strict'
import { after, afterEach, before, test } from 'node:test'
import { Type } from 'typebox'
import { openDatabase } from '../src/db/database.js'
import {
  backoffMs,
  createOutbox,
  LEASE_MS,
  MAX_BACKOFF_MS,
  type Outbox,
  type OutboxOptions,
} from '../src/delivery/outbox.js'
import { claimDueDeliveries, saveWebhook } from '../src/delivery/repository.js'
import { generateWebhookSecret, isWebhookUrl } from '../src/delivery/webhook.js'
import { idIn, parsed, present } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { createExpert, describeEachDialect, type Tenant, type TestContext } from './helpers/harness.js'
import { SmtpReceiver, verifySignature, WebhookReceiver } from './helpers/receivers.js'

/** A webhook delivery's body, as far as the tests read it. */
const Delivered = Type.Object({
  inquiry: Type.Object({
    id: Type.Integer(),
    username: Type.Optional(Type.Unknown()),
    recipients: Type.Optional(Type.Unknown()),
  }),
})

const HOUR = 60 * 60 * 1000

function donorBody(username: string, message = 'We would like to fund your research.') {
  return {
    firstname: 'Ada',
    lastname: 'Lovelace',
    email: 'ada@example.org',
    message,
    username,
    donor_type: 'ngo',
    donor_focus: 'endowments',
  }
}

async function sendInquiry(ctx: TestContext, tenant: Tenant, username: string, message?: string) {
  const response = await ctx.inject({
    method: 'POST',
    url: `/v2/organization/${tenant.orgId}/inquiry/donor`,
    headers: tenant.auth,
    payload: donorBody(username, message),
  })
  assert.equal(response.statusCode, 200, response.body)
  return idIn(response)
}

async function deliveries(ctx: TestContext, inquiryId: number) {
  return ctx.testDatabase.database.db
    .selectFrom('inquiry_deliveries')
    .selectAll()
    .where('inquiry_id', '=', inquiryId)
    .orderBy('channel')
    .execute()
}

async function delivery(ctx: TestContext, inquiryId: number, channel: 'email' | 'webhook') {
  const rows = await deliveries(ctx, inquiryId)
  const row = rows.find((d) => d.channel === channel)
  assert.ok(row, `no ${channel} delivery for inquiry ${inquiryId}`)
  return row
}

function webhookInquiryIds(receiver: WebhookReceiver) {
  return receiver.delivered.map((request) => parsed(Delivered, JSON.parse(request.body)).inquiry.id)
}

describeEachDialect('inquiry delivery', (ctx) => {
  const smtp = new SmtpReceiver()
  const outboxes: Outbox[] = []

  /** A worker over the test database with the test clock; SMTP points at the local listener. */
  function outbox(config: Partial<OutboxOptions['config']> = {}, database = ctx.testDatabase.database) {
    const created = createOutbox({
      database,
      now: ctx.clock.now,
      config: {
        smtpUrl: smtp.url,
        mailFrom: 'Expert Directory <no-reply@expertdir.test>',
        deliveryMaxAttempts: 5,
        deliveryBackoffMs: 1000,
        deliveryPollMs: 1000,
        // The receivers listen on 127.0.0.1, which webhooks may reach only when the operator allows it.
        webhookAllowPrivate: true,
        ...config,
      },
    })
    outboxes.push(created)
    return created
  }

  /** A tenant with an expert and, optionally, a webhook pointing at `receiver`. */
  async function tenantWithWebhook(receiver?: WebhookReceiver) {
    const tenant = await ctx.addTenant('Delivery Org')
    const username = await createExpert(ctx, tenant, { email: `expert.${tenant.orgId}@uni.example` })
    const secret = generateWebhookSecret()
    if (receiver)
      await saveWebhook(ctx.testDatabase.database.db, tenant.orgId, receiver.url, secret, ctx.clock.now())
    return { tenant, username, secret }
  }

  before(() => smtp.start())
  after(async () => {
    await Promise.all(outboxes.map((o) => o.stop()))
    await smtp.stop()
  })
  // Deliveries a test leaves pending must not reach the next test's receivers.
  afterEach(async () => {
    await ctx.testDatabase.database.db
      .updateTable('inquiry_deliveries')
      .set({ status: 'failed', next_attempt_at: null })
      .where('status', '=', 'pending')
      .execute()
    smtp.rejecting = false
  })

  test('delivers an inquiry by email to the expert over SMTP and by a signed webhook', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    const { tenant, username, secret } = await tenantWithWebhook(receiver)
    const id = await sendInquiry(ctx, tenant, username, 'Line one\nLine two')
    const before = smtp.messages.length
    const result = await outbox().processOnce()
    assert.equal(result.delivered, 2)

    const mail = smtp.messages.slice(before)
    assert.equal(mail.length, 1)
    assert.deepEqual(mail[0]?.to, [`expert.${tenant.orgId}@uni.example`])
    assert.equal(mail[0]?.from, 'no-reply@expertdir.test')
    assert.match(mail[0]?.raw ?? '', /Subject: New donor inquiry from Ada Lovelace/)
    assert.match(mail[0]?.raw ?? '', /Reply-To: Ada Lovelace <ada@example\.org>/)
    assert.match(mail[0]?.raw ?? '', /Line one\r?\nLine two/)

    assert.equal(receiver.requests.length, 1)
    const request = receiver.requests[0]
    assert.ok(request)
    assert.equal(request.headers['content-type'], 'application/json')
    assert.match(String(request.headers['x-expertdir-signature']), /^t=\d+,v1=[0-9a-f]{64}$/)
    assert.ok(verifySignature(secret, String(request.headers['x-expertdir-signature']), request.body))
    assert.equal(
      verifySignature('whsec_wrong', String(request.headers['x-expertdir-signature']), request.body),
      false,
    )
    const payload = JSON.parse(request.body)
    assert.equal(payload.event, 'inquiry.created')
    assert.equal(payload.organization_id, tenant.orgId)
    assert.equal(payload.inquiry.id, id)
    assert.equal(payload.inquiry.kind, 'donor')
    assert.equal(payload.inquiry.donor_focus, 'endowments')
    assert.deepEqual(payload.inquiry.details, [
      { field: 'donor_type', label: 'Donor type', value: 'ngo', text: 'NGO' },
      { field: 'donor_focus', label: 'Donor focus', value: 'endowments', text: 'Endowments' },
    ])
    assert.equal(payload.inquiry.message, 'Line one\nLine two')
    assert.equal(request.headers['x-expertdir-delivery'], String(payload.delivery_id))
    // Neither the signing secret nor the caller's token travels with the event.
    assert.ok(!request.body.includes(secret) && !JSON.stringify(request.headers).includes(secret))
    assert.ok(!request.body.includes(tenant.token) && !JSON.stringify(request.headers).includes(tenant.token))

    for (const channel of ['email', 'webhook'] as const) {
      const row = await delivery(ctx, id, channel)
      assert.equal(row.status, 'delivered')
      assert.equal(row.attempts, 1)
      assert.equal(row.next_attempt_at, null)
      assert.equal(row.locked_until, null)
      assert.equal(typeof row.delivered_at, 'number')
    }
    assert.equal((await outbox().processOnce()).claimed, 0)
    await receiver.stop()
  })

  test('records the email as skipped without SMTP and the webhook as skipped without a webhook', async () => {
    const { tenant, username } = await tenantWithWebhook()
    const id = await sendInquiry(ctx, tenant, username)
    const result = await outbox({ smtpUrl: '' }).processOnce()
    assert.equal(result.skipped, 2)
    const email = await delivery(ctx, id, 'email')
    assert.equal(email.status, 'skipped')
    assert.equal(email.last_error, 'SMTP is not configured (EXPERTDIR_SMTP_URL)')
    const webhook = await delivery(ctx, id, 'webhook')
    assert.equal(webhook.status, 'skipped')
    assert.equal(webhook.last_error, 'no webhook is configured for this organization')
  })

  test('retries while the webhook answers 500 and delivers every inquiry once it recovers', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    receiver.mode = 'fail'
    const { tenant, username } = await tenantWithWebhook(receiver)
    const ids = [await sendInquiry(ctx, tenant, username), await sendInquiry(ctx, tenant, username)]
    const worker = outbox()

    await worker.processOnce()
    for (const id of ids) {
      const row = await delivery(ctx, id, 'webhook')
      assert.equal(row.status, 'pending')
      assert.equal(row.attempts, 1)
      assert.equal(row.last_error, 'webhook answered HTTP 500')
      assert.ok((row.next_attempt_at ?? 0) > ctx.clock.now())
      assert.equal((await delivery(ctx, id, 'email')).status, 'delivered')
    }
    // Not due yet: the backoff holds the retry back.
    assert.equal((await worker.processOnce()).claimed, 0)

    ctx.clock.advance(HOUR)
    await worker.processOnce()
    assert.equal((await delivery(ctx, present(ids[0]), 'webhook')).attempts, 2)

    receiver.mode = 'ok'
    ctx.clock.advance(HOUR)
    const recovered = await worker.processOnce()
    assert.equal(recovered.delivered, 2)
    assert.deepEqual(webhookInquiryIds(receiver).sort(), [...ids].sort())
    assert.equal(receiver.requests.length, 6)
    for (const id of ids) {
      const row = await delivery(ctx, id, 'webhook')
      assert.equal(row.status, 'delivered')
      assert.equal(row.attempts, 3)
    }
    await receiver.stop()
  })

  test('retries while the webhook refuses connections and delivers when it comes back', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    const { tenant, username } = await tenantWithWebhook(receiver)
    await receiver.stop()
    const id = await sendInquiry(ctx, tenant, username)
    const worker = outbox()

    await worker.processOnce()
    const down = await delivery(ctx, id, 'webhook')
    assert.equal(down.status, 'pending')
    assert.equal(down.last_error, 'webhook request failed: connection refused')
    assert.ok(!(down.last_error ?? '').includes(receiver.url))

    await receiver.start()
    ctx.clock.advance(HOUR)
    await worker.processOnce()
    const up = await delivery(ctx, id, 'webhook')
    assert.equal(up.status, 'delivered')
    assert.equal(up.attempts, 2)
    assert.deepEqual(webhookInquiryIds(receiver), [id])
    await receiver.stop()
  })

  test('retries while the SMTP server rejects the message and delivers when it accepts again', async () => {
    const { tenant, username } = await tenantWithWebhook()
    const id = await sendInquiry(ctx, tenant, username)
    const worker = outbox()
    smtp.rejecting = true
    const before = smtp.messages.length

    await worker.processOnce()
    const down = await delivery(ctx, id, 'email')
    assert.equal(down.status, 'pending')
    assert.match(down.last_error ?? '', /451/)
    assert.equal(smtp.messages.length, before)

    smtp.rejecting = false
    ctx.clock.advance(HOUR)
    await worker.processOnce()
    const up = await delivery(ctx, id, 'email')
    assert.equal(up.status, 'delivered')
    assert.equal(up.attempts, 2)
    assert.equal(smtp.messages.length, before + 1)
  })

  test('marks a delivery failed after the configured number of attempts', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    receiver.mode = 'fail'
    const { tenant, username } = await tenantWithWebhook(receiver)
    const id = await sendInquiry(ctx, tenant, username)
    const worker = outbox({ deliveryMaxAttempts: 3 })

    for (let attempt = 1; attempt <= 3; attempt++) {
      await worker.processOnce()
      ctx.clock.advance(HOUR)
    }
    const row = await delivery(ctx, id, 'webhook')
    assert.equal(row.status, 'failed')
    assert.equal(row.attempts, 3)
    assert.equal(row.next_attempt_at, null)
    assert.equal(row.last_error, 'webhook answered HTTP 500')

    receiver.mode = 'ok'
    ctx.clock.advance(24 * HOUR)
    await worker.processOnce()
    assert.equal(receiver.requests.length, 3)
    assert.equal((await delivery(ctx, id, 'webhook')).status, 'failed')
    await receiver.stop()
  })

  test('takes over a delivery whose worker died, once its lease has expired', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    const { tenant, username } = await tenantWithWebhook(receiver)
    const id = await sendInquiry(ctx, tenant, username)
    // A worker claims everything due, then dies before recording anything.
    const claimed = await claimDueDeliveries(ctx.testDatabase.database.db, ctx.dialect, {
      now: ctx.clock.now(),
      leaseMs: LEASE_MS,
      limit: 100,
      token: 'dead-worker',
    })
    assert.ok(claimed.some((row) => row.inquiry_id === id))
    const worker = outbox()
    assert.equal((await worker.processOnce()).claimed, 0)

    ctx.clock.advance(LEASE_MS + 1)
    await worker.processOnce()
    const row = await delivery(ctx, id, 'webhook')
    assert.equal(row.status, 'delivered')
    assert.equal(row.attempts, 2)
    assert.deepEqual(webhookInquiryIds(receiver), [id])
    await receiver.stop()
  })

  test('delivers each inquiry exactly once when several workers share the database', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    const { tenant, username } = await tenantWithWebhook(receiver)
    const ids: number[] = []
    for (let i = 0; i < 24; i++) ids.push(await sendInquiry(ctx, tenant, username, `inquiry ${i}`))
    // Three workers, each with its own connection(s), as three server processes would have.
    const second = openDatabase(ctx.testDatabase.url)
    const third = openDatabase(ctx.testDatabase.url)
    try {
      const workers = [
        outbox({ smtpUrl: '' }),
        outbox({ smtpUrl: '' }, second),
        outbox({ smtpUrl: '' }, third),
      ]
      for (;;) {
        const runs = await Promise.all(workers.map((worker) => worker.processOnce()))
        if (runs.every((r) => r.claimed === 0)) break
      }
    } finally {
      await second.close()
      await third.close()
    }
    const delivered = webhookInquiryIds(receiver)
    assert.equal(delivered.length, ids.length)
    assert.deepEqual(
      [...delivered].sort((a, b) => a - b),
      ids,
    )
    for (const id of ids) assert.equal((await delivery(ctx, id, 'webhook')).attempts, 1)
    await receiver.stop()
  })

  test('the CLI sets a webhook whose printed secret verifies deliveries, and lists delivery status', async () => {
    const receiver = new WebhookReceiver()
    await receiver.start()
    const { tenant, username } = await tenantWithWebhook()
    const cli = async (...args: string[]) => {
      const result = await runCli(['--db', ctx.testDatabase.url, ...args], {
        EXPERTDIR_WEBHOOK_ALLOW_PRIVATE: '1',
      })
      assert.equal(result.code, 0, result.stderr)
      return result
    }

    const set = JSON.parse(
      (await cli('webhook', 'set', '--org', String(tenant.orgId), '--url', receiver.url, '--json')).stdout,
    )
    assert.equal(set.url, receiver.url)
    assert.match(set.secret, /^whsec_[A-Za-z0-9_-]{43}$/)

    const id = await sendInquiry(ctx, tenant, username)
    await outbox({ smtpUrl: '' }).processOnce()
    const request = receiver.delivered.at(-1)
    assert.ok(request)
    assert.ok(verifySignature(set.secret, String(request.headers['x-expertdir-signature']), request.body))

    const listed = JSON.parse(
      (await cli('inquiries', 'list', '--org', String(tenant.orgId), '--json')).stdout,
    )
    const entry = listed.inquiries.find((inquiry: { id: number }) => inquiry.id === id)
    assert.deepEqual(Object.keys(entry).sort(), [
      'assignee',
      'created_at',
      'delivery',
      'fields',
      'id',
      'kind',
      'notes',
      'recipients',
      'redacted_at',
      'status',
      'username',
    ])
    assert.equal(listed.next_cursor, null)
    assert.equal(entry.kind, 'donor')
    assert.equal(entry.fields.donor_type, 'ngo')
    assert.equal(entry.username, username)
    assert.deepEqual(entry.delivery, [
      {
        channel: 'email',
        status: 'skipped',
        attempts: 1,
        last_error: 'SMTP is not configured (EXPERTDIR_SMTP_URL)',
        next_attempt_at: null,
      },
      { channel: 'webhook', status: 'delivered', attempts: 1, last_error: null, next_attempt_at: null },
    ])

    await receiver.stop()
  })

  test('backs off exponentially with jitter, capped at one hour', () => {
    assert.equal(backoffMs(1000, 1, 0), 500)
    assert.equal(backoffMs(1000, 1, 1), 1000)
    assert.equal(backoffMs(1000, 4, 1), 8000)
    assert.ok(backoffMs(1000, 4, 0.5) >= 4000 && backoffMs(1000, 4, 0.5) <= 8000)
    assert.equal(backoffMs(30_000, 50, 1), MAX_BACKOFF_MS)
  })

  test('accepts only http(s) webhook URLs without credentials', () => {
    assert.ok(isWebhookUrl('https://example.org/hook'))
    assert.ok(isWebhookUrl('http://127.0.0.1:8080/hook?x=1'))
    for (const url of [
      'ftp://example.org',
      'example.org/hook',
      'https://user:pass@example.org/',
      'javascript:alert(1)',
    ])
      assert.equal(isWebhookUrl(url), false, url)
  })
})
