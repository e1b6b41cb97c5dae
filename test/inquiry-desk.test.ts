import assert from 'node:assert/strict'
import { after, afterEach, before, test } from 'node:test'
import { Type } from 'typebox'
import { createOutbox, type Outbox } from '../src/delivery/outbox.js'
import { saveWebhook } from '../src/delivery/repository.js'
import { generateWebhookSecret } from '../src/delivery/webhook.js'
import { idIn, parsed } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { importDocument } from './helpers/content.js'
import {
  createExpert,
  describeEachDialect,
  detailsOf,
  envelope,
  FORM,
  type InquiryKind,
  inquiryBody,
  type Tenant,
} from './helpers/harness.js'
import { deskTenant, privacyRequests, putNotificationSettings } from './helpers/inquiries.js'
import { scopedToken } from './helpers/oauth.js'
import { addPersonWithPassword } from './helpers/people.js'
import { SmtpReceiver, WebhookReceiver } from './helpers/receivers.js'

interface Listed {
  id: number
  kind: string
  username: string | null
  status: string
  assignee: { id: number; name: string; email: string } | null
  notes: string | null
  recipients: { role: string; email: string }[]
  redacted_at: number | null
  fields: Record<string, unknown>
  delivery: { channel: string; status: string; last_error: string | null }[]
}

/** A webhook delivery's body, as far as the tests read it. */
const Delivered = Type.Object({
  inquiry: Type.Object({
    id: Type.Integer(),
    username: Type.Optional(Type.Unknown()),
    recipients: Type.Optional(Type.Unknown()),
  }),
})

describeEachDialect('the inquiry desk', (ctx) => {
  const smtp = new SmtpReceiver()
  const outboxes: Outbox[] = []

  function outbox(): Outbox {
    const created = createOutbox({
      database: ctx.testDatabase.database,
      now: ctx.clock.now,
      config: {
        smtpUrl: smtp.url,
        mailFrom: 'Expert Directory <no-reply@expertdir.test>',
        deliveryMaxAttempts: 3,
        deliveryBackoffMs: 1000,
        deliveryPollMs: 1000,
        // The webhook receiver listens on 127.0.0.1.
        webhookAllowPrivate: true,
      },
    })
    outboxes.push(created)
    return created
  }

  /** Delivers everything due; returns the emails that arrived meanwhile. */
  async function deliverAll() {
    const before = smtp.messages.length
    const worker = outbox()
    while ((await worker.processOnce()).claimed > 0) {}
    return smtp.messages.slice(before)
  }

  const base = (tenant: Tenant) => `/v2/organization/${tenant.orgId}`

  async function send(tenant: Tenant, kind: InquiryKind, body: Record<string, unknown>) {
    const response = await ctx.inject({
      method: 'POST',
      url: `${base(tenant)}/inquiry/${kind}`,
      headers: tenant.auth,
      payload: body,
    })
    assert.equal(response.statusCode, 200, response.body)
    return idIn(response)
  }

  /** An inquiry body without `username`: to the organization. */
  function deskBody(kind: InquiryKind, overrides: Record<string, unknown> = {}) {
    const { username: _none, ...body } = inquiryBody(kind, 'unused', overrides)
    return body
  }

  const putSettings = (tenant: Tenant, payload: object) => putNotificationSettings(ctx, tenant, payload)

  async function getInquiry(tenant: Tenant, id: number): Promise<Listed> {
    const response = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/inquiry/${id}`,
      headers: tenant.auth,
    })
    assert.equal(response.statusCode, 200, response.body)
    return response.json().data
  }

  async function list(tenant: Tenant, query: string): Promise<Listed[]> {
    const response = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/inquiry${query}`,
      headers: tenant.auth,
    })
    assert.equal(response.statusCode, 200, response.body)
    return response.json().data.inquiries
  }

  async function patch(tenant: Tenant, id: number, payload: object) {
    return ctx.inject({
      method: 'PATCH',
      url: `${base(tenant)}/inquiry/${id}`,
      headers: tenant.auth,
      payload,
    })
  }

  before(() => smtp.start())
  after(async () => {
    await Promise.all(outboxes.map((worker) => worker.stop()))
    await smtp.stop()
  })
  // Deliveries a test leaves pending must not reach the next test's receivers.
  afterEach(async () => {
    await ctx.testDatabase.database.db
      .updateTable('inquiry_deliveries')
      .set({ status: 'failed', next_attempt_at: null })
      .where('status', '=', 'pending')
      .execute()
  })

  test('general and media inquiries without username go to the desk recipients by email', async () => {
    const tenant = await ctx.addTenant('Desk University')
    const saved = await putSettings(tenant, {
      general: { recipients: ['Info@Desk.example', 'front@desk.example', 'info@desk.example'] },
      media: { recipients: ['press@desk.example'] },
    })
    assert.equal(saved.statusCode, 200, saved.body)
    assert.deepEqual(saved.json().data.general.recipients, ['info@desk.example', 'front@desk.example'])

    const general = await send(tenant, 'general', deskBody('general', { message: 'Who can help me?' }))
    // A website form sends its empty fields too: username "" is the desk as well.
    const media = await ctx.inject({
      method: 'POST',
      url: `${base(tenant)}/inquiry/media`,
      headers: { ...tenant.auth, ...FORM },
      payload: new URLSearchParams({
        firstname: 'Jo',
        email: 'jo@news.example',
        message: 'A story on campus housing',
        username: '',
        media_position: 'reporter',
        media_type: 'tv',
        media_deadline: '1767225600',
      }).toString(),
    })
    assert.equal(media.statusCode, 200, media.body)
    const mediaId = idIn(media)

    const mail = await deliverAll()
    const toDesk = mail.filter((message) => message.to.some((to) => to.endsWith('@desk.example')))
    assert.equal(toDesk.length, 2)
    const generalMail = toDesk.find((message) => message.raw.includes('Who can help me?'))
    assert.deepEqual(generalMail?.to, ['info@desk.example', 'front@desk.example'])
    assert.match(generalMail?.raw ?? '', /for the organization's inquiry/)
    const pressMail = toDesk.find((message) => message.raw.includes('campus housing'))
    assert.deepEqual(pressMail?.to, ['press@desk.example'])

    const stored = await getInquiry(tenant, general)
    assert.equal(stored.username, null)
    assert.equal(stored.status, 'new')
    assert.deepEqual(stored.recipients, [
      { role: 'desk', email: 'info@desk.example' },
      { role: 'desk', email: 'front@desk.example' },
    ])
    assert.deepEqual(
      stored.delivery.map((delivery) => [delivery.channel, delivery.status]),
      [
        ['email', 'delivered'],
        ['webhook', 'skipped'],
      ],
    )
    assert.equal((await getInquiry(tenant, mediaId)).username, null)
  })

  test('the email names the expert, not the username, and writes its dates readably with their time zone', async () => {
    const tenant = await ctx.addTenant('Readable Mail')
    const username = await createExpert(ctx, tenant, { firstname: 'Katherine', lastname: 'Johnson' })
    await send(tenant, 'media', inquiryBody('media', username, { message: 'Readable dates please' }))
    const [mail] = (await deliverAll()).filter((message) => message.raw.includes('Readable dates please'))
    assert.ok(mail)
    assert.match(mail.raw, /inquiry \(#\d+\) for Katherine Johnson\./)
    assert.doesNotMatch(mail.raw, new RegExp(`for ${username}`))
    assert.match(mail.raw, /^Deadline: Thursday, 1 January 2026 at 00:00 UTC\r?$/m)
    assert.match(mail.raw, /^Received: \w+day, \d{1,2} \w+ \d{4} at \d\d:\d\d UTC\r?$/m)
    assert.doesNotMatch(mail.raw, /\d{4}-\d\d-\d\dT\d\d:\d\d/, 'no ISO timestamp')
  })

  test('a desk inquiry of a kind with no desk recipients is kept and its email skipped with the reason', async () => {
    const tenant = await ctx.addTenant('Empty Desk')
    const id = await send(tenant, 'general', deskBody('general'))
    await deliverAll()
    const email = (await getInquiry(tenant, id)).delivery.find((delivery) => delivery.channel === 'email')
    assert.equal(email?.status, 'skipped')
    assert.match(email?.last_error ?? '', /no recipient for this kind/)
  })

  test('the other kinds still need a username: 400 naming it', async () => {
    const tenant = await ctx.addTenant('Needs Username')
    for (const kind of [
      'donor',
      'event',
      'partnership',
      'admission',
      'research',
      'business',
      'expertwitness',
    ] as const) {
      const response = await ctx.inject({
        method: 'POST',
        url: `${base(tenant)}/inquiry/${kind}`,
        headers: tenant.auth,
        payload: deskBody(kind),
      })
      assert.ok('username' in detailsOf(response), `${kind}: ${response.body}`)
    }
    const unknown = await ctx.inject({
      method: 'POST',
      url: `${base(tenant)}/inquiry/media`,
      headers: tenant.auth,
      payload: inquiryBody('media', 'no-such-expert'),
    })
    assert.equal(unknown.statusCode, 404)
  })

  test('notification settings decide per kind whether the expert, the assistant and the desk are emailed', async () => {
    const tenant = await ctx.addTenant('Settings University')
    const receiver = new WebhookReceiver()
    await receiver.start()
    await saveWebhook(
      ctx.testDatabase.database.db,
      tenant.orgId,
      receiver.url,
      generateWebhookSecret(),
      ctx.clock.now(),
    )
    const username = await createExpert(ctx, tenant, {
      email: 'expert@settings.example',
      assistant_email: 'assistant@settings.example',
    })
    const saved = await putSettings(tenant, {
      event: { recipients: ['events@settings.example'], expert: 0, assistant: 1, desk: 1 },
      research: { assistant: 1 },
    })
    assert.equal(saved.statusCode, 200, saved.body)
    const settings = saved.json().data
    assert.deepEqual(settings.event, {
      recipients: ['events@settings.example'],
      expert: 0,
      assistant: 1,
      desk: 1,
    })
    assert.deepEqual(settings.research, { recipients: [], expert: 1, assistant: 1, desk: 0 })
    assert.deepEqual(
      settings.donor,
      { recipients: [], expert: 1, assistant: 0, desk: 0 },
      'untouched kinds keep the default',
    )

    const event = await send(tenant, 'event', inquiryBody('event', username, { message: 'event mail' }))
    const research = await send(
      tenant,
      'research',
      inquiryBody('research', username, { message: 'research mail' }),
    )
    const donor = await send(tenant, 'donor', inquiryBody('donor', username, { message: 'donor mail' }))
    const mail = await deliverAll()
    const to = (text: string) => mail.find((message) => message.raw.includes(text))?.to
    assert.deepEqual(to('event mail'), ['assistant@settings.example', 'events@settings.example'])
    assert.deepEqual(to('research mail'), ['expert@settings.example', 'assistant@settings.example'])
    assert.deepEqual(to('donor mail'), ['expert@settings.example'])

    const payloads = new Map(
      receiver.delivered.map((request) => {
        const { inquiry } = parsed(Delivered, JSON.parse(request.body))
        return [inquiry.id, inquiry]
      }),
    )
    assert.deepEqual(payloads.get(event)?.recipients, [
      { role: 'assistant', email: 'assistant@settings.example' },
      { role: 'desk', email: 'events@settings.example' },
    ])
    assert.deepEqual(payloads.get(donor)?.recipients, [{ role: 'expert', email: 'expert@settings.example' }])
    assert.equal(payloads.get(research)?.username, username)
    await receiver.stop()

    // A later change applies to later inquiries only.
    await putSettings(tenant, { donor: { expert: 0 } })
    assert.deepEqual((await getInquiry(tenant, donor)).recipients, [
      { role: 'expert', email: 'expert@settings.example' },
    ])
    const later = await send(tenant, 'donor', inquiryBody('donor', username))
    assert.deepEqual((await getInquiry(tenant, later)).recipients, [])
  })

  test('GET notifications lists every kind; PUT refuses bad settings with 400 and stores nothing', async () => {
    const tenant = await ctx.addTenant('Validation Desk')
    const read = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/notifications`,
      headers: tenant.auth,
    })
    assert.equal(read.statusCode, 200)
    assert.equal(Object.keys(read.json().data).length, 9)
    assert.deepEqual(read.json().data.media, { recipients: [], expert: 1, assistant: 0, desk: 0 })

    assert.equal(envelope(await putSettings(tenant, {})).error?.code, 'validation_failed')
    assert.ok('newsletter' in detailsOf(await putSettings(tenant, { newsletter: { desk: 1 } })))
    const badEmail = detailsOf(await putSettings(tenant, { media: { recipients: ['not an address'] } }))
    assert.match(Object.values(badEmail).join(' '), /email/)
    assert.equal((await putSettings(tenant, { media: { desk: 2 } })).statusCode, 400)
    assert.equal((await putSettings(tenant, { media: {} })).statusCode, 400)
    assert.equal((await putSettings(tenant, { media: { extra: 1 } })).statusCode, 400)
    const stored = await ctx.testDatabase.database.db
      .selectFrom('inquiry_notifications')
      .selectAll()
      .where('org_id', '=', tenant.orgId)
      .execute()
    assert.deepEqual(stored, [])
  })

  test("assistant_email is written and read where the expert's email is", async () => {
    const tenant = await ctx.addTenant('Assistant University')
    const username = await createExpert(ctx, tenant, { assistant_email: 'pa@assistant.example' })
    const profile = async () =>
      (
        await ctx.inject({ method: 'GET', url: `${base(tenant)}/expert/${username}`, headers: tenant.auth })
      ).json().data.account[0]
    assert.equal((await profile()).assistant_email, 'pa@assistant.example')
    const changed = await ctx.inject({
      method: 'PUT',
      url: `${base(tenant)}/expert/${username}`,
      headers: tenant.auth,
      payload: { assistant_email: 'other@assistant.example' },
    })
    assert.equal(changed.json().data.updated, true)
    assert.equal((await profile()).assistant_email, 'other@assistant.example')
    await ctx.inject({
      method: 'PUT',
      url: `${base(tenant)}/expert/${username}`,
      headers: tenant.auth,
      payload: { assistant_email: '' },
    })
    assert.equal((await profile()).assistant_email, null)
    const bad = await ctx.inject({
      method: 'PUT',
      url: `${base(tenant)}/expert/${username}`,
      headers: tenant.auth,
      payload: { assistant_email: 'nope' },
    })
    assert.ok('assistant_email' in detailsOf(bad))

    const imported = await importDocument(ctx, tenant.orgId, {
      experts: [
        {
          key: 'assistant-import',
          firstname: 'Imported',
          lastname: 'Expert',
          job_title: 'Professor',
          email: 'imported@assistant.example',
          company: 'Uni',
          assistant_email: 'imported.pa@assistant.example',
        },
      ],
    })
    const importedName = imported.ids.experts[0] ?? ''
    const importedAccount = (
      await ctx.inject({ method: 'GET', url: `${base(tenant)}/expert/${importedName}`, headers: tenant.auth })
    ).json().data.account[0]
    assert.equal(importedAccount.assistant_email, 'imported.pa@assistant.example')
  })

  /** A person of the tenant with `role`, as the inbox shows an assignee. */
  async function colleague(tenant: Tenant, role: string, name: string) {
    const person = await addPersonWithPassword(ctx, tenant.orgId, role)
    await ctx.testDatabase.database.db
      .updateTable('people')
      .set({ name })
      .where('id', '=', person.id)
      .execute()
    return { id: person.id, name, email: person.email }
  }

  test('PATCH sets status, assignee and notes; the inbox shows and filters them (API and CLI)', async () => {
    // A fresh organization: nobody is a notification recipient, and assigning still works.
    const tenant = await ctx.addTenant('Handling University')
    const press = await colleague(tenant, 'inquiries', 'Pat Press')
    const owner = await colleague(tenant, 'owner', 'Olive Owner')
    const username = await createExpert(ctx, tenant)
    const first = await send(tenant, 'media', deskBody('media'))
    const second = await send(tenant, 'general', inquiryBody('general', username))
    const third = await send(tenant, 'general', deskBody('general'))

    const assignees = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/inquiry/assignees`,
      headers: tenant.auth,
    })
    assert.equal(assignees.statusCode, 200, assignees.body)
    assert.deepEqual(assignees.json().data.assignees, [owner, press], 'people who handle inquiries, by name')

    const assigned = await patch(tenant, first, { assignee: press.id, notes: 'Call back\non Monday' })
    assert.equal(assigned.statusCode, 200, assigned.body)
    const view = assigned.json().data
    assert.equal(view.status, 'assigned', 'assigning a new inquiry makes it assigned')
    assert.deepEqual(view.assignee, press)
    assert.equal(view.notes, 'Call back\non Monday')
    assert.equal((await patch(tenant, second, { status: 'answered', assignee: owner.id })).statusCode, 200)
    assert.equal((await patch(tenant, third, { status: 'spam' })).statusCode, 200)

    assert.deepEqual(
      (await list(tenant, '?status=assigned')).map((inquiry) => inquiry.id),
      [first],
    )
    assert.deepEqual(
      (await list(tenant, `?assignee=${owner.id}`)).map((inquiry) => inquiry.id),
      [second],
    )
    assert.deepEqual(
      (await list(tenant, '?status=spam&kind=general')).map((inquiry) => inquiry.id),
      [third],
    )
    const all = await list(tenant, '')
    assert.deepEqual(
      all.map((inquiry) => [inquiry.id, inquiry.status, inquiry.assignee]),
      [
        [third, 'spam', null],
        [second, 'answered', owner],
        [first, 'assigned', press],
      ],
    )
    assert.ok(
      'status' in
        detailsOf(
          await ctx.inject({
            method: 'GET',
            url: `${base(tenant)}/inquiry?status=done`,
            headers: tenant.auth,
          }),
        ),
    )
    assert.ok(
      'assignee' in
        detailsOf(
          await ctx.inject({
            method: 'GET',
            url: `${base(tenant)}/inquiry?assignee=press@handling.example`,
            headers: tenant.auth,
          }),
        ),
    )

    // Unassigning and clearing notes.
    const cleared = (await patch(tenant, first, { assignee: null, notes: '' })).json().data
    assert.equal(cleared.assignee, null)
    assert.equal(cleared.notes, null)
    assert.equal(cleared.status, 'assigned', 'the status stays until changed')

    const db = ['--db', ctx.testDatabase.url]
    const org = ['--org', String(tenant.orgId)]
    const json = await runCli(['inquiries', 'list', ...org, '--status', 'answered', '--json', ...db])
    assert.equal(json.code, 0, json.stderr)
    const printed = JSON.parse(json.stdout).inquiries
    assert.deepEqual(
      printed.map((inquiry: Listed) => [inquiry.id, inquiry.status, inquiry.assignee, inquiry.notes]),
      [[second, 'answered', owner, null]],
    )
    const byAssignee = await runCli([
      'inquiries',
      'list',
      ...org,
      '--assignee',
      String(owner.id),
      '--json',
      ...db,
    ])
    assert.deepEqual(
      JSON.parse(byAssignee.stdout).inquiries.map((inquiry: Listed) => inquiry.id),
      [second],
    )
    await patch(tenant, third, { notes: 'Looks automated' })
    const human = await runCli(['inquiries', 'list', ...org, ...db])
    assert.equal(human.code, 0, human.stderr)
    assert.match(
      human.stdout,
      new RegExp(`${third}\\t.*\\(desk\\)\\tspam unassigned\\t.*notes: Looks automated`),
    )
    assert.match(human.stdout, new RegExp(`${second}\\t.*\\tanswered Olive Owner <${owner.email}>\\t`))
    const badStatus = await runCli(['inquiries', 'list', ...org, '--status', 'done', ...db])
    assert.equal(badStatus.code, 2)
    assert.match(badStatus.stderr, /--status must be one of new, assigned, answered, closed, spam/)
  })

  test('the assignment ends when the person is removed', async () => {
    const tenant = await ctx.addTenant('Leaving Desk')
    const leaving = await colleague(tenant, 'inquiries', 'Lee Leaving')
    const id = await send(tenant, 'general', deskBody('general'))
    assert.equal((await patch(tenant, id, { assignee: leaving.id })).statusCode, 200)
    await ctx.testDatabase.database.db.deleteFrom('people').where('id', '=', leaving.id).execute()
    const stored = await getInquiry(tenant, id)
    assert.deepEqual([stored.status, stored.assignee], ['assigned', null])
  })

  test('PATCH refuses what it cannot apply: 400 with the field, 404 for an unknown or foreign inquiry', async () => {
    const tenant = await deskTenant(ctx, 'Refusing Desk', { general: ['info@refusing.example'] })
    const editor = await colleague(tenant, 'editor', 'Eddie Editor')
    const foreign = await ctx.addTenant('Foreign Desk')
    const stranger = await colleague(foreign, 'inquiries', 'Stan Stranger')
    const id = await send(tenant, 'general', deskBody('general'))
    const refused = async (payload: object) => {
      const response = await patch(tenant, id, payload)
      assert.equal(response.statusCode, 400, response.body)
      return detailsOf(response).assignee ?? ''
    }
    // The address of the notification settings is not a person.
    assert.match(await refused({ assignee: 'info@refusing.example' }), /person's id/)
    assert.match(await refused({ assignee: '' }), /person's id/)
    assert.match(await refused({ assignee: stranger.id }), /must be the id of a person of the organization/)
    assert.match(await refused({ assignee: 999_999_999 }), /must be the id of a person of the organization/)
    const byRole = await refused({ assignee: editor.id })
    assert.match(byRole, /role handles inquiries \(owner, admin, inquiries\); Eddie Editor is editor/)
    assert.doesNotMatch(byRole, /\/v2\//, 'the message names no API route')
    assert.ok('status' in detailsOf(await patch(tenant, id, { status: 'done' })))
    assert.equal((await patch(tenant, id, {})).statusCode, 400)
    assert.ok('extra' in detailsOf(await patch(tenant, id, { extra: 1 })))
    assert.ok('notes' in detailsOf(await patch(tenant, id, { notes: 'x'.repeat(5001) })))
    assert.equal((await patch(tenant, 999_999_999, { status: 'closed' })).statusCode, 404)
    const stored = await getInquiry(tenant, id)
    assert.deepEqual([stored.status, stored.assignee, stored.notes], ['new', null, null])
    const foreignPatch = await patch(foreign, id, { status: 'closed' })
    assert.equal(foreignPatch.statusCode, 404)
  })

  /** Every text column of the tables that could hold `needle`, as one string per row. */
  async function rowsMentioning(needles: string[]) {
    const { db } = ctx.testDatabase.database
    const tables = [
      await db.selectFrom('inquiries').selectAll().execute(),
      await db.selectFrom('inquiry_deliveries').selectAll().execute(),
      await db.selectFrom('idempotency_keys').selectAll().execute(),
      await db.selectFrom('privacy_requests').selectAll().execute(),
    ]
    return tables
      .flat()
      .map((row) => JSON.stringify(row).toLowerCase())
      .filter((text) => needles.some((needle) => text.includes(needle.toLowerCase())))
  }

  test('erasure by sender email removes every trace of the sender, keeps the records, and is recorded', async () => {
    const tenant = await deskTenant(ctx, 'Erasure University', { general: ['info@erasure.example'] })
    const other = await ctx.addTenant('Erasure Other')
    const username = await createExpert(ctx, tenant)
    const sender = {
      firstname: 'Zelda',
      lastname: 'Erasable',
      email: 'Zelda.Erasable@mail.example',
      phone: '+1 555 0100',
    }
    const message = 'My private story about Zqx-7731'
    const first = await send(
      tenant,
      'event',
      inquiryBody('event', username, { ...sender, message, event_name: 'Zqx gala' }),
    )
    await patch(tenant, first, { notes: 'Zelda called twice', status: 'answered' })
    const keyed = await ctx.inject({
      method: 'POST',
      url: `${base(tenant)}/inquiry/general`,
      headers: { ...tenant.auth, 'idempotency-key': 'erase-me-1' },
      payload: deskBody('general', { ...sender, email: 'zelda.erasable@MAIL.example', message }),
    })
    assert.equal(keyed.statusCode, 200)
    const second = idIn(keyed)
    const kept = await send(tenant, 'general', deskBody('general', { email: 'someone@else.example' }))
    const foreign = await send(
      other,
      'general',
      inquiryBody('general', await createExpert(ctx, other), sender),
    )
    const countBefore = (await list(tenant, '')).length

    const erase = await ctx.inject({
      method: 'DELETE',
      url: `${base(tenant)}/inquiry?email=zelda.erasable%40mail.example`,
      headers: tenant.auth,
    })
    assert.equal(erase.statusCode, 200, erase.body)
    assert.deepEqual(erase.json().data, { erased: 2 })

    // Nothing of the sender is left in this organization's rows: inquiries, outbox, idempotency keys.
    const { db } = ctx.testDatabase.database
    // Needles no random id or token can hold by chance (a 3-letter one once matched a client id).
    const traces = (await rowsMentioning(['Zelda', 'Erasable', 'Zqx-7731', 'Zqx gala', '555 0100'])).filter(
      (row) => !row.includes(`"org_id":${other.orgId},`),
    )
    assert.deepEqual(traces, [])
    const rows = await db
      .selectFrom('inquiries')
      .selectAll()
      .where('id', 'in', [first, second])
      .orderBy('id')
      .execute()
    assert.deepEqual(
      rows.map((row) => [
        row.kind,
        row.username,
        row.status,
        row.email,
        row.message,
        row.kind_fields,
        row.notes,
      ]),
      [
        ['event', username, 'answered', '', '', '{}', null],
        ['general', null, 'new', '', '', '{}', null],
      ],
    )
    assert.ok(rows.every((row) => row.redacted_at !== null && row.created_at > 0))
    const deliveries = await db
      .selectFrom('inquiry_deliveries')
      .selectAll()
      .where('inquiry_id', 'in', [first, second])
      .execute()
    assert.equal(deliveries.length, 4)
    assert.ok(
      deliveries.every((row) => row.status === 'skipped'),
      'pending deliveries are cancelled',
    )
    const keys = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('org_id', '=', tenant.orgId)
      .execute()
    assert.deepEqual(
      keys.map((key) => key.key),
      [],
    )

    // Counts stay; the inbox says the data was removed; the outbox sends nothing of it.
    assert.equal((await list(tenant, '')).length, countBefore)
    const shown = await getInquiry(tenant, first)
    assert.equal(typeof shown.redacted_at, 'number')
    assert.equal(shown.fields.email, '')
    assert.equal(shown.fields.event_name, null)
    const mail = await deliverAll()
    assert.ok(mail.every((message) => !message.raw.includes('Zqx')))
    assert.equal((await getInquiry(tenant, kept)).fields.email, 'someone@else.example')
    assert.equal(
      (await getInquiry(other, foreign)).fields.email,
      sender.email,
      'another organization is untouched',
    )

    const recorded = await privacyRequests(ctx, tenant)
    assert.deepEqual(
      recorded.map((row) => [row.action, row.client_id, row.records]),
      [['erase', tenant.client.client_id, 2]],
    )
    const again = await ctx.inject({
      method: 'DELETE',
      url: `${base(tenant)}/inquiry?email=zelda.erasable%40mail.example`,
      headers: tenant.auth,
    })
    assert.deepEqual(again.json().data, { erased: 0 })
    const missing = await ctx.inject({
      method: 'DELETE',
      url: `${base(tenant)}/inquiry`,
      headers: tenant.auth,
    })
    assert.ok('email' in detailsOf(missing))
  })

  test('export by sender email returns every inquiry from that address and is recorded without it', async () => {
    const tenant = await ctx.addTenant('Export University')
    const username = await createExpert(ctx, tenant)
    const mine = [
      await send(tenant, 'media', inquiryBody('media', username, { email: 'Reporter@News.example' })),
      await send(
        tenant,
        'general',
        deskBody('general', { email: 'reporter@news.example', message: 'Second note' }),
      ),
    ]
    await send(tenant, 'general', deskBody('general', { email: 'other@news.example' }))
    const response = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/inquiry?email=REPORTER%40news.example`,
      headers: tenant.auth,
    })
    assert.equal(response.statusCode, 200, response.body)
    const exported: Listed[] = response.json().data.inquiries
    assert.deepEqual(
      exported.map((inquiry) => inquiry.id),
      [...mine].reverse(),
    )
    assert.equal(response.json().data.next_cursor, null)
    assert.equal(exported[0]?.fields.message, 'Second note')
    assert.equal(exported[1]?.fields.media_type, 'tv')
    assert.equal(exported[1]?.fields.phone, '+44 (20) 7946-0000')
    assert.equal(exported[1]?.delivery.length, 2)

    const recorded = await privacyRequests(ctx, tenant)
    assert.deepEqual(
      recorded.map((row) => [row.action, row.client_id, row.records]),
      [['export', tenant.client.client_id, 2]],
    )
    assert.ok(!JSON.stringify(recorded).toLowerCase().includes('reporter'))

    const combined = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/inquiry?email=reporter%40news.example&kind=media`,
      headers: tenant.auth,
    })
    assert.ok('kind' in detailsOf(combined))
    // Reading the inbox does not give the export: that needs admin.
    const reader = await scopedToken(ctx.app, tenant.client, 'inquiries:read')
    const refused = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/inquiry?email=reporter%40news.example`,
      headers: { authorization: `Bearer ${reader}` },
    })
    assert.equal(refused.statusCode, 403)
    assert.equal(envelope(refused).error?.code, 'insufficient_scope')
    const inbox = await ctx.inject({
      method: 'GET',
      url: `${base(tenant)}/inquiry`,
      headers: { authorization: `Bearer ${reader}` },
    })
    assert.equal(inbox.statusCode, 200)
  })

  test('retention removes the personal data of older inquiries in housekeeping and keeps the records', async () => {
    const { chores } = await import('../src/system/housekeeping.js')
    assert.equal(chores({}).inquiry_retention, undefined, 'unset: inquiries are kept')
    const retention = chores({ inquiryRetentionDays: 30 }).inquiry_retention
    assert.ok(retention)
    const tenant = await ctx.addTenant('Retention University')
    const username = await createExpert(ctx, tenant)
    const old = await send(
      tenant,
      'donor',
      inquiryBody('donor', username, { firstname: 'Oldname', email: 'old@retention.example' }),
    )
    ctx.clock.advance(20 * 24 * 3600 * 1000)
    const recent = await send(
      tenant,
      'general',
      deskBody('general', { firstname: 'Newname', email: 'new@retention.example' }),
    )
    ctx.clock.advance(11 * 24 * 3600 * 1000)
    try {
      const { db } = ctx.testDatabase.database
      const changed = await retention(db, ctx.clock.now())
      assert.ok(changed >= 1)
      const rows = await db
        .selectFrom('inquiries')
        .selectAll()
        .where('id', 'in', [old, recent])
        .orderBy('id')
        .execute()
      assert.deepEqual(
        rows.map((row) => [
          row.id,
          row.kind,
          row.username,
          row.firstname,
          row.email,
          row.redacted_at === null,
        ]),
        [
          [old, 'donor', username, '', '', false],
          [recent, 'general', null, 'Newname', 'new@retention.example', true],
        ],
      )
      assert.deepEqual(await rowsMentioning(['Oldname', 'old@retention.example']), [])
      assert.equal(await retention(db, ctx.clock.now()), 0, 'a second pass finds nothing left')
    } finally {
      ctx.clock.advance(-31 * 24 * 3600 * 1000)
    }
    assert.deepEqual(
      (await list(tenant, '')).map((inquiry) => [inquiry.id, inquiry.redacted_at === null]),
      [
        [recent, true],
        [old, false],
      ],
    )
  })
})
