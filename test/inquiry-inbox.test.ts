import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import type { operations } from '../packages/client/src/schema.js'
import { createOutbox } from '../src/delivery/outbox.js'
import { inboxCursor } from '../src/inquiries/inbox.js'
import { toInquiryInput } from '../src/inquiries/schemas.js'
import { createInquiry } from '../src/inquiries/service.js'
import { api, expectOk } from './helpers/api.js'
import { present } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import {
  createExpert,
  describeEachDialect,
  envelope,
  type InquiryKind,
  inquiryBody,
  type Tenant,
} from './helpers/harness.js'

const INBOX = '/v2/organization/{corporation}/inquiry'
type InboxQuery = NonNullable<operations['listInquiries']['parameters']['query']>

describeEachDialect(
  'inquiry inbox',
  (ctx) => {
    let inbox: Tenant
    let ada: string
    let grace: string
    /** Ids of `inbox`'s inquiries, oldest first, with their kind, recipient and time (unix seconds). */
    const sent: { id: number; kind: InquiryKind; username: string; at: number }[] = []
    const T0 = 1_900_000_000

    const list = (query: InboxQuery = {}, tenant: Tenant = inbox, corporation = tenant.orgId) =>
      api(ctx.app, tenant).get(INBOX, { params: { corporation }, query })

    const page = async (query: InboxQuery, tenant: Tenant = inbox) => expectOk(await list(query, tenant))

    const ids = async (response: ReturnType<typeof list>) =>
      expectOk(await response).inquiries.map((inquiry) => inquiry.id)

    /** Stores an inquiry through the same service the route uses, at `at` unix seconds. */
    async function store(tenant: Tenant, kind: InquiryKind, username: string, at: number, message = 'Hi') {
      const input = toInquiryInput(kind, inquiryBody(kind, username, { message }))
      const { id } = await createInquiry(ctx.testDatabase.database, tenant.orgId, input, undefined, at * 1000)
      return id
    }

    before(async () => {
      inbox = await ctx.addTenant('Inbox University')
      ada = await createExpert(ctx, inbox, { firstname: 'Ada', lastname: 'Inbox' })
      grace = await createExpert(ctx, inbox, { firstname: 'Grace', lastname: 'Inbox' })
      const kinds: InquiryKind[] = ['media', 'donor', 'general', 'research', 'media', 'event']
      for (const [i, kind] of kinds.entries()) {
        const username = i % 2 === 0 ? ada : grace
        const at = T0 + i * 60
        sent.push({ id: await store(inbox, kind, username, at), kind, username, at })
      }
      // Another organization's inquiry, which the inbox must never show.
      await store(ctx.other, 'media', await createExpert(ctx, ctx.other), T0)
    })

    test('lists the inquiries newest first with their fields and delivery status', async () => {
      const { inquiries, next_cursor } = expectOk(await list())
      assert.deepEqual(
        inquiries.map((inquiry) => inquiry.id),
        sent.map((inquiry) => inquiry.id).reverse(),
      )
      assert.equal(next_cursor, null)
      const [event] = inquiries
      assert.ok(event)
      assert.equal(event.kind, 'event')
      assert.equal(event.username, grace)
      assert.equal(event.created_at, T0 + 300)
      assert.equal(event.fields.event_date, 1767225600)
      assert.equal(event.fields.firstname, 'Ada')
      assert.equal(event.fields.email, 'ada@example.org')
      assert.equal(event.fields.location_country, 'CA')
      assert.deepEqual(event.delivery, [
        { channel: 'email', status: 'pending', attempts: 0, last_error: null },
        { channel: 'webhook', status: 'pending', attempts: 0, last_error: null },
      ])
    })

    test('filters by kind, username, since and until, alone and together', async () => {
      const expect = (filter: (s: (typeof sent)[number]) => boolean) =>
        sent
          .filter(filter)
          .map((s) => s.id)
          .reverse()
      assert.deepEqual(
        await ids(list({ kind: 'media' })),
        expect((s) => s.kind === 'media'),
      )
      assert.deepEqual(
        await ids(list({ username: grace })),
        expect((s) => s.username === grace),
      )
      assert.deepEqual(
        await ids(list({ since: T0 + 120 })),
        expect((s) => s.at >= T0 + 120),
      )
      assert.deepEqual(
        await ids(list({ until: T0 + 120 })),
        expect((s) => s.at < T0 + 120),
      )
      assert.deepEqual(
        await ids(list({ kind: 'media', username: ada, since: T0, until: T0 + 300 })),
        expect((s) => s.kind === 'media' && s.username === ada && s.at < T0 + 300),
      )
      assert.deepEqual(await ids(list({ kind: 'business' })), [])
      assert.deepEqual(await ids(list({ username: 'nobody-here' })), [])
    })

    test('pages with page_size and a cursor until next_cursor is null', async () => {
      const seen: number[] = []
      let cursor: string | null = null
      let pages = 0
      do {
        const data = await page({ page_size: 4, ...(cursor ? { cursor } : {}) })
        assert.ok(data.inquiries.length <= 4)
        seen.push(...data.inquiries.map((inquiry) => inquiry.id))
        cursor = data.next_cursor
        pages++
      } while (cursor !== null)
      assert.equal(pages, 2)
      assert.deepEqual(seen, sent.map((s) => s.id).reverse())
      // A cursor carries on with the filters it is given.
      const first = expectOk(await list({ kind: 'media', page_size: 1 }))
      assert.equal(first.inquiries.length, 1)
      const second = expectOk(await list({ kind: 'media', page_size: 1, cursor: String(first.next_cursor) }))
      assert.deepEqual(
        [first.inquiries[0]?.id, second.inquiries[0]?.id],
        sent
          .filter((s) => s.kind === 'media')
          .map((s) => s.id)
          .reverse(),
      )
      assert.equal(second.next_cursor, null)
    })

    test('a cursor walk over hundreds of inquiries sees each exactly once while more arrive', async () => {
      const walker = await ctx.addTenant('Busy University')
      const recipient = await createExpert(ctx, walker)
      const existing = new Set<number>()
      for (let i = 0; i < 300; i++) existing.add(await store(walker, 'general', recipient, T0 + i))
      const seen: number[] = []
      let cursor: string | null = null
      let arrived = 0
      do {
        const data = await page({ page_size: 37, ...(cursor ? { cursor } : {}) }, walker)
        seen.push(...data.inquiries.map((inquiry) => inquiry.id))
        cursor = data.next_cursor
        // New inquiries arrive between pages, through the API as a website would send them.
        for (let i = 0; i < 3; i++) {
          const posted = await ctx.inject({
            method: 'POST',
            url: `/v2/organization/${walker.orgId}/inquiry/media`,
            headers: walker.auth,
            payload: inquiryBody('media', recipient),
          })
          assert.equal(posted.statusCode, 200, posted.body)
          arrived++
        }
      } while (cursor !== null)
      assert.equal(new Set(seen).size, seen.length, 'nothing seen twice')
      assert.deepEqual(new Set(seen), existing, 'every inquiry that was there is seen, and only those')
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => b - a),
        'newest first across pages',
      )
      assert.ok(arrived >= 27)
      const fresh = expectOk(await list({ page_size: 100 }, walker)).inquiries
      assert.equal(fresh.filter((inquiry) => inquiry.kind === 'media').length, arrived)
    })

    test('refuses a bad cursor, page size, filter or unknown parameter with 400 naming it', async () => {
      const cases: [string, string][] = [
        ['?cursor=not-a-cursor', 'cursor'],
        [`?cursor=${Buffer.from('inq1.0').toString('base64url')}`, 'cursor'],
        [`?cursor=${Buffer.from('inq1.01').toString('base64url')}`, 'cursor'],
        [`?cursor=${Buffer.from('other.5').toString('base64url')}`, 'cursor'],
        [`?cursor=${Buffer.from('inq1.99999999999999999').toString('base64url')}`, 'cursor'],
        [`?cursor=${inboxCursor.encode(5)}=`, 'cursor'],
        ['?cursor=', 'cursor'],
        ['?page_size=0', 'page_size'],
        ['?page_size=101', 'page_size'],
        ['?page_size=abc', 'page_size'],
        ['?page_size=1.5', 'page_size'],
        ['?page_size=01', 'page_size'],
        ['?kind=unknown', 'kind'],
        ['?username=Not%20A%20User', 'username'],
        ['?since=1900000000000', 'since'],
        ['?until=-1', 'until'],
        ['?offset=10', 'offset'],
        ['?page_size=5&page_size=6', 'page_size'],
      ]
      const listWith = (query: string) =>
        api(ctx.app, inbox).send('GET', `/v2/organization/${inbox.orgId}/inquiry${query}`)
      for (const [query, field] of cases) {
        const response = await listWith(query)
        assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
        const body = envelope(response)
        assert.equal(body.error?.code, 'validation_failed')
        assert.deepEqual(
          body.error?.details?.map((detail) => detail.field),
          [field],
          query,
        )
      }
      const millis = await listWith('?since=1900000000000')
      assert.match(envelope(millis).error?.details?.[0]?.message ?? '', /milliseconds/)
    })

    test('reads one inquiry; another organization\u2019s inquiry is a 404, another inbox a 403', async () => {
      const [mine] = sent
      assert.ok(mine)
      const data = expectOk(
        await api(ctx.app, inbox).get('/v2/organization/{corporation}/inquiry/{id}', {
          params: { corporation: inbox.orgId, id: mine.id },
        }),
      )
      assert.equal(data.id, mine.id)
      assert.equal(data.kind, 'media')
      assert.equal(data.fields.media_type, 'tv')
      assert.equal(data.delivery.length, 2)

      const fromOther = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${ctx.other.orgId}/inquiry/${mine.id}`,
        headers: ctx.other.auth,
      })
      assert.equal(fromOther.statusCode, 404)
      assert.equal(envelope(fromOther).error?.code, 'not_found')
      const otherList = expectOk(await list({}, ctx.other)).inquiries
      assert.ok(!otherList.some((inquiry) => sent.some((s) => s.id === inquiry.id)))
      for (const inquiry of otherList) assert.notEqual(inquiry.username, ada)

      const foreignInbox = await list({}, ctx.other, inbox.orgId)
      assert.equal(foreignInbox.statusCode, 403)
      const foreignOne = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${inbox.orgId}/inquiry/${mine.id}`,
        headers: ctx.other.auth,
      })
      assert.equal(foreignOne.statusCode, 403)

      for (const id of ['0', '01', 'abc', '1.5', '9007199254740992']) {
        const bad = await ctx.inject({
          method: 'GET',
          url: `/v2/organization/${inbox.orgId}/inquiry/${id}`,
          headers: inbox.auth,
        })
        assert.equal(bad.statusCode, 400, id)
      }
      const missing = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${inbox.orgId}/inquiry/999999999`,
        headers: inbox.auth,
      })
      assert.equal(missing.statusCode, 404)
    })

    test('shows what the outbox did to each delivery', async () => {
      const target = await store(inbox, 'business', ada, T0 + 1000)
      const outbox = createOutbox({
        database: ctx.testDatabase.database,
        config: { ...ctx.config, smtpUrl: '' },
        // The stored inquiries are dated in the future of the test clock.
        now: () => (T0 + 10_000) * 1000,
      })
      while ((await outbox.processOnce()).claimed > 0) {}
      await outbox.stop()
      const { delivery } = expectOk(
        await api(ctx.app, inbox).get('/v2/organization/{corporation}/inquiry/{id}', {
          params: { corporation: inbox.orgId, id: target },
        }),
      )
      assert.deepEqual(
        delivery.map((d) => [d.channel, d.status, d.attempts]),
        [
          ['email', 'skipped', 1],
          ['webhook', 'skipped', 1],
        ],
      )
      assert.match(delivery[0]?.last_error ?? '', /SMTP is not configured/)
    })

    test('inquiries stay in the inbox after their expert is deleted', async () => {
      const leaving = await createExpert(ctx, inbox)
      const id = await store(inbox, 'admission', leaving, T0 + 2000)
      const deleted = await ctx.inject({
        method: 'DELETE',
        url: `/v2/organization/${inbox.orgId}/expert/${leaving}`,
        headers: inbox.auth,
      })
      assert.equal(deleted.statusCode, 200)
      assert.deepEqual(await ids(list({ username: leaving })), [id])
    })

    test("filtered by an expert's current or old username, the inbox finds what it received under either name", async () => {
      const oldName = await createExpert(ctx, inbox, { firstname: 'Rena', lastname: 'Inbox' })
      const newName = `${oldName}-renamed`
      const rename = (username: string, to: string) =>
        ctx.inject({
          method: 'PUT',
          url: `/v2/organization/${inbox.orgId}/expert/${username}`,
          headers: inbox.auth,
          payload: { username: to },
        })
      const beforeRename = await store(inbox, 'media', oldName, T0 + 3000)
      assert.equal((await rename(oldName, newName)).statusCode, 200)
      const afterRename = await store(inbox, 'general', newName, T0 + 3001)
      const both = [afterRename, beforeRename]
      assert.deepEqual(await ids(list({ username: newName })), both)
      assert.deepEqual(await ids(list({ username: oldName })), both, 'the old name still leads to the expert')
      const cli = await runCli([
        'inquiries',
        'list',
        '--org',
        String(inbox.orgId),
        '--username',
        newName,
        '--json',
        '--db',
        ctx.testDatabase.url,
      ])
      assert.equal(cli.code, 0, cli.stderr)
      assert.deepEqual(
        JSON.parse(cli.stdout).inquiries.map((inquiry: { id: number }) => inquiry.id),
        both,
      )

      const other = await createExpert(ctx, inbox, { firstname: 'Otto', lastname: 'Inbox' })
      assert.equal((await rename(other, oldName)).statusCode, 200)
      assert.deepEqual(await ids(list({ username: oldName })), [], "the name is another expert's now")
      assert.deepEqual(await ids(list({ username: newName })), both)
    })

    test('the CLI pages the same way and always says when there is more', async () => {
      const cliTenant = await ctx.addTenant('Cli University')
      const recipient = await createExpert(ctx, cliTenant)
      const stored: number[] = []
      for (let i = 0; i < 25; i++)
        stored.push(await store(cliTenant, i % 2 ? 'media' : 'general', recipient, T0 + i))
      const db = ['--db', ctx.testDatabase.url]
      const org = ['--org', String(cliTenant.orgId)]

      const first = await runCli(['inquiries', 'list', ...org, '--json', ...db])
      assert.equal(first.code, 0, first.stderr)
      const page1 = JSON.parse(first.stdout)
      assert.equal(page1.inquiries.length, 20, 'the API default page size')
      assert.equal(typeof page1.next_cursor, 'string')
      assert.equal(page1.inquiries[0].fields.firstname, 'Ada')
      const second = await runCli([
        'inquiries',
        'list',
        ...org,
        '--json',
        '--cursor',
        page1.next_cursor,
        ...db,
      ])
      const page2 = JSON.parse(second.stdout)
      assert.equal(page2.next_cursor, null)
      assert.deepEqual(
        [...page1.inquiries, ...page2.inquiries].map((inquiry: { id: number }) => inquiry.id),
        [...stored].reverse(),
      )

      const human = await runCli(['inquiries', 'list', ...org, '--kind', 'media', '--page-size', '5', ...db])
      assert.equal(human.code, 0, human.stderr)
      const lines = human.stdout.trim().split('\n')
      assert.equal(lines.length, 6)
      assert.ok(lines.slice(0, 5).every((line) => line.includes('\tmedia\t')))
      const more = /--cursor (\S+)/.exec(lines[5] ?? '')
      assert.ok(more, `the last line says how to see more: ${lines[5]}`)
      const rest = await runCli([
        'inquiries',
        'list',
        ...org,
        '--kind',
        'media',
        '--cursor',
        present(more[1]),
        ...db,
      ])
      assert.equal(
        rest.stdout.trim().split('\n').length,
        7,
        'the 7 remaining media inquiries and no more hint',
      )
      assert.doesNotMatch(rest.stdout, /--cursor/)

      for (const args of [
        ['--cursor', 'garbage'],
        ['--page-size', '101'],
        ['--kind', 'nope'],
        ['--since', '1900000000000'],
      ]) {
        const refused = await runCli(['inquiries', 'list', ...org, ...args, ...db])
        assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`)
        assert.ok(refused.stderr.length > 0)
      }
    })
  },
  { config: { rateLimitApi: 0 } },
)
