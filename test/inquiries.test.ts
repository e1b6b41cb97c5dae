import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { DONOR_FOCUSES, DONOR_TYPES } from '../src/inquiries/schemas.js'
import { api, expectOk, unchecked } from './helpers/api.js'
import {
  createExpert,
  describeEachDialect,
  detailFor,
  envelope,
  FORM,
  inquiryBody,
  type InquiryKind as Kind,
  type Tenant,
  type TestContext,
} from './helpers/harness.js'

/** Sends `payload` as it is: most tests here check what the schema of `kind` refuses. */
function post(
  ctx: TestContext,
  kind: Kind,
  payload: Record<string, unknown> | string,
  options: { tenant?: Tenant; orgId?: number; headers?: Record<string, string> } = {},
) {
  const tenant = options.tenant ?? ctx.tenant
  return api(ctx.app, tenant).post(`/v2/organization/{corporation}/inquiry/${kind}`, {
    params: { corporation: options.orgId ?? tenant.orgId },
    body: unchecked(payload),
    headers: options.headers ?? {},
  })
}

function form(fields: Record<string, unknown>): string {
  const pairs = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]): [string, string] => [k, String(v)])
  return new URLSearchParams(pairs).toString()
}

async function storedInquiry(ctx: TestContext, id: number) {
  return ctx.testDatabase.database.db
    .selectFrom('inquiries')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()
}

/** A field of the inquiry's kind as stored (`null` when the row has none). */
function kindField(row: { kind_fields: string } | undefined, field: string): unknown {
  return row ? ((JSON.parse(row.kind_fields) as Record<string, unknown>)[field] ?? null) : undefined
}

async function inquiryCount(ctx: TestContext) {
  const rows = await ctx.testDatabase.database.db.selectFrom('inquiries').select('id').execute()
  return rows.length
}

describeEachDialect('inquiries', (ctx) => {
  let username: string
  let otherUsername: string

  before(async () => {
    username = await createExpert(ctx, ctx.tenant, { email: 'recipient@uni.example' })
    otherUsername = await createExpert(ctx, ctx.other, { lastname: 'Only Elsewhere' })
  })

  test('stores a donor inquiry with its outbox rows and returns its id', async () => {
    const response = await post(ctx, 'donor', inquiryBody('donor', username))
    assert.equal(response.statusCode, 200)
    const body = envelope(response)
    assert.equal(body.success, true)
    const { id } = expectOk(response)
    assert.ok(Number.isInteger(id) && id > 0)
    assert.deepEqual(Object.keys(body.data ?? {}), ['id'])
    const row = await storedInquiry(ctx, id)
    assert.equal(row?.kind, 'donor')
    assert.equal(row?.org_id, ctx.tenant.orgId)
    assert.equal(row?.username, username)
    assert.deepEqual(JSON.parse(row?.recipients ?? ''), [{ role: 'expert', email: 'recipient@uni.example' }])
    assert.equal(kindField(row, 'donor_type'), 'corporate')
    assert.equal(kindField(row, 'donor_focus'), 'recurring_gift')
    assert.equal(row?.location_country, 'CA')
    assert.equal(row?.location_state, 'ON')
    assert.equal(row?.message, 'Hello,\nwe would like to talk.\tThanks!')
    assert.equal(kindField(row, 'event_date'), null)
    const deliveries = await ctx.testDatabase.database.db
      .selectFrom('inquiry_deliveries')
      .selectAll()
      .where('inquiry_id', '=', id)
      .orderBy('channel')
      .execute()
    assert.deepEqual(
      deliveries.map((d) => [d.channel, d.status, d.attempts]),
      [
        ['email', 'pending', 0],
        ['webhook', 'pending', 0],
      ],
    )
  })

  test('stores an event inquiry and ids of both kinds rise in one sequence', async () => {
    const first = expectOk(await post(ctx, 'donor', inquiryBody('donor', username))).id
    const response = await post(ctx, 'event', inquiryBody('event', username))
    assert.equal(response.statusCode, 200)
    const second = expectOk(response).id
    const third = expectOk(await post(ctx, 'donor', inquiryBody('donor', username))).id
    assert.ok(first < second && second < third)
    const row = await storedInquiry(ctx, second)
    assert.equal(row?.kind, 'event')
    assert.equal(kindField(row, 'event_name'), 'Annual Gala')
    assert.equal(kindField(row, 'event_date'), 1767225600)
    assert.equal(kindField(row, 'donor_type'), null)
  })

  test('accepts a form-encoded event inquiry with event_date as a digit string', async () => {
    const response = await post(
      ctx,
      'event',
      form(inquiryBody('event', username, { event_date: '1767225600' })),
      {
        headers: FORM,
      },
    )
    assert.equal(response.statusCode, 200)
    const row = await storedInquiry(ctx, expectOk(response).id)
    assert.equal(kindField(row, 'event_date'), 1767225600)
    assert.equal(row?.location_country, 'CA')
  })

  test('accepts a form-encoded donor inquiry and stores empty optional fields as absent', async () => {
    const response = await post(
      ctx,
      'donor',
      form(
        inquiryBody('donor', username, {
          lastname: '',
          website: '',
          phone: '',
          location_state: '',
          location_country: '',
        }),
      ),
      { headers: FORM },
    )
    assert.equal(response.statusCode, 200)
    const row = await storedInquiry(ctx, expectOk(response).id)
    assert.equal(row?.lastname, null)
    assert.equal(row?.website, null)
    assert.equal(row?.location_country, null)
  })

  test('accepts only the required fields', async () => {
    for (const kind of ['donor', 'event'] as const) {
      const body = inquiryBody(kind, username)
      for (const optional of [
        'lastname',
        'phone',
        'website',
        'organization',
        'location_city',
        'location_state',
        'location_country',
      ])
        delete (body as Record<string, unknown>)[optional]
      const response = await post(ctx, kind, body)
      assert.equal(response.statusCode, 200, response.body)
    }
  })

  test('accepts every donor_type and donor_focus value', async () => {
    for (const donor_type of DONOR_TYPES) {
      const response = await post(ctx, 'donor', inquiryBody('donor', username, { donor_type }))
      assert.equal(response.statusCode, 200)
      assert.equal(kindField(await storedInquiry(ctx, expectOk(response).id), 'donor_type'), donor_type)
    }
    for (const donor_focus of DONOR_FOCUSES) {
      const response = await post(ctx, 'donor', inquiryBody('donor', username, { donor_focus }))
      assert.equal(response.statusCode, 200)
      assert.equal(kindField(await storedInquiry(ctx, expectOk(response).id), 'donor_focus'), donor_focus)
    }
  })

  test('rejects values outside the donor_type and donor_focus lists', async () => {
    const before = await inquiryCount(ctx)
    const response = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, { donor_type: 'Corporate', donor_focus: 'gift' }),
    )
    assert.equal(response.statusCode, 400)
    assert.equal(envelope(response).error?.code, 'validation_failed')
    assert.match(
      detailFor(response, 'donor_type')?.message ?? '',
      /must be one of: corporate, government, ngo, not_for_profit, other/,
    )
    assert.match(
      detailFor(response, 'donor_focus')?.message ?? '',
      /one_time_gift, recurring_gift, endowments, bequests, other/,
    )
    assert.equal(await inquiryCount(ctx), before)
  })

  test('reports every missing required field of a donor inquiry at once', async () => {
    const response = await post(ctx, 'donor', {})
    assert.equal(response.statusCode, 400)
    const fields = envelope(response)
      .error?.details?.map((d) => d.field)
      .sort()
    assert.deepEqual(fields, ['donor_focus', 'donor_type', 'email', 'firstname', 'message', 'username'])
    assert.ok(envelope(response).error?.details?.every((d) => d.message === 'is required'))
  })

  test('reports every missing required field of an event inquiry at once', async () => {
    const response = await post(ctx, 'event', {})
    assert.equal(response.statusCode, 400)
    const fields = envelope(response)
      .error?.details?.map((d) => d.field)
      .sort()
    assert.deepEqual(fields, [
      'email',
      'event_date',
      'event_description',
      'event_location',
      'event_name',
      'firstname',
      'message',
      'username',
    ])
  })

  test('rejects required strings that are empty after trimming', async () => {
    const response = await post(
      ctx,
      'event',
      inquiryBody('event', username, {
        firstname: '  ',
        message: ' \n ',
        event_name: '',
        event_location: ' ',
        event_description: '',
      }),
    )
    assert.equal(response.statusCode, 400)
    for (const field of ['firstname', 'message', 'event_name', 'event_location', 'event_description'])
      assert.equal(detailFor(response, field)?.message, 'must not be empty', field)
  })

  test('counts message length in code points: 5000 emoji pass, 5001 characters fail', async () => {
    const ok = await post(ctx, 'donor', inquiryBody('donor', username, { message: '😀'.repeat(5000) }))
    assert.equal(ok.statusCode, 200)
    assert.equal((await storedInquiry(ctx, expectOk(ok).id))?.message, '😀'.repeat(5000))
    const tooLong = await post(ctx, 'donor', inquiryBody('donor', username, { message: 'a'.repeat(5001) }))
    assert.equal(tooLong.statusCode, 400)
    assert.equal(detailFor(tooLong, 'message')?.message, 'must be at most 5000 characters long')
    const longDescription = await post(
      ctx,
      'event',
      inquiryBody('event', username, { event_description: 'a'.repeat(5001) }),
    )
    assert.equal(
      detailFor(longDescription, 'event_description')?.message,
      'must be at most 5000 characters long',
    )
  })

  test('rejects over-long single-line fields', async () => {
    const long = 'x'.repeat(256)
    const response = await post(
      ctx,
      'event',
      inquiryBody('event', username, {
        firstname: long,
        lastname: long,
        organization: long,
        location_city: long,
        event_name: long,
        event_location: long,
        phone: '1'.repeat(33),
        email: `${'a'.repeat(250)}@example.org`,
      }),
    )
    assert.equal(response.statusCode, 400)
    const fields = envelope(response)
      .error?.details?.map((d) => d.field)
      .sort()
    assert.deepEqual(fields, [
      'email',
      'event_location',
      'event_name',
      'firstname',
      'lastname',
      'location_city',
      'organization',
      'phone',
    ])
  })

  test('rejects control characters, allowing line breaks and tabs only in multi-line fields', async () => {
    const response = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, {
        firstname: 'Ada\nLovelace',
        organization: 'A\tB',
        message: 'bell \u0007',
        location_city: 'x\u0000y',
      }),
    )
    assert.equal(response.statusCode, 400)
    const fields = envelope(response)
      .error?.details?.map((d) => d.field)
      .sort()
    assert.deepEqual(fields, ['firstname', 'location_city', 'message', 'organization'])
    assert.match(detailFor(response, 'message')?.message ?? '', /line breaks and tabs/)
    assert.match(detailFor(response, 'firstname')?.message ?? '', /on one line/)
  })

  test('rejects a lone surrogate in a text field', async () => {
    const response = await post(
      ctx,
      'donor',
      `{"firstname":"A\\ud800","email":"a@b.org","message":"m","username":"${username}","donor_type":"ngo","donor_focus":"other"}`,
      {
        headers: { 'content-type': 'application/json' },
      },
    )
    assert.equal(response.statusCode, 400)
    assert.ok(detailFor(response, 'firstname'))
  })

  test('rejects an invalid email and phone', async () => {
    const response = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, { email: 'not-an-email', phone: 'call me' }),
    )
    assert.equal(response.statusCode, 400)
    assert.equal(detailFor(response, 'email')?.message, 'must be a valid email address')
    assert.equal(detailFor(response, 'phone')?.message, 'must be at most 32 digits, spaces and + ( ) . -')
  })

  test('accepts http and https websites', async () => {
    for (const website of [
      'http://example.org',
      'https://Example.org:8443/a/b?c=d#e',
      'https://[2001:db8::1]/',
    ]) {
      const response = await post(ctx, 'donor', inquiryBody('donor', username, { website }))
      assert.equal(response.statusCode, 200, `${website}: ${response.body}`)
      assert.equal((await storedInquiry(ctx, expectOk(response).id))?.website, website)
    }
  })

  test('rejects websites that are not http(s) URLs, by the rule of every other URL field', async () => {
    for (const website of [
      'example.org',
      'ftp://example.org',
      'javascript:alert(1)',
      'https://',
      'https://exa mple.org',
      'https://user@example.org',
      'HTTPS://example.org',
      'https://bücher.example/',
      'https://example.org/"onmouseover="x',
      'https://example.org/<script>',
    ]) {
      const response = await post(ctx, 'donor', inquiryBody('donor', username, { website }))
      assert.equal(response.statusCode, 400, website)
      assert.equal(detailFor(response, 'website')?.message, 'must be an http(s) URL', website)
    }
  })

  test('rejects a website longer than 2048 characters', async () => {
    const website = `https://example.org/${'a'.repeat(2048)}`
    const response = await post(ctx, 'donor', inquiryBody('donor', username, { website }))
    assert.equal(response.statusCode, 400)
    assert.equal(detailFor(response, 'website')?.message, 'must be at most 2048 characters long')
  })

  test('rejects an unknown country and a state that is not in the country', async () => {
    const response = await post(ctx, 'donor', inquiryBody('donor', username, { location_country: 'XX' }))
    assert.equal(response.statusCode, 400)
    assert.match(detailFor(response, 'location_country')?.message ?? '', /ISO 3166-1 alpha-2/)
    const state = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, { location_country: 'US', location_state: 'ON' }),
    )
    assert.equal(state.statusCode, 400)
    assert.equal(detailFor(state, 'location_state')?.message, 'must be an ISO 3166-2 subdivision of US')
  })

  test('rejects a state without a country and stores a full subdivision code as its short form', async () => {
    const response = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, { location_country: undefined, location_state: 'ON' }),
    )
    assert.equal(response.statusCode, 400)
    assert.equal(detailFor(response, 'location_state')?.message, 'requires location_country')
    const full = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, { location_country: 'us', location_state: 'us-ca' }),
    )
    assert.equal(full.statusCode, 200)
    const row = await storedInquiry(ctx, expectOk(full).id)
    assert.equal(row?.location_country, 'US')
    assert.equal(row?.location_state, 'CA')
  })

  test('rejects an event_date in milliseconds with a message that says so', async () => {
    const response = await post(ctx, 'event', inquiryBody('event', username, { event_date: 1767225600000 }))
    assert.equal(response.statusCode, 400)
    assert.equal(
      detailFor(response, 'event_date')?.message,
      'looks like unix milliseconds: send unix seconds (divide by 1000)',
    )
    const formResponse = await post(
      ctx,
      'event',
      form(inquiryBody('event', username, { event_date: '1767225600000' })),
      {
        headers: FORM,
      },
    )
    assert.equal(formResponse.statusCode, 400)
    assert.match(detailFor(formResponse, 'event_date')?.message ?? '', /milliseconds/)
  })

  test('rejects non-integer, negative and textual event dates', async () => {
    for (const event_date of [1767225600.5, -1, '1767225600', '2026-01-01', null, true]) {
      const response = await post(ctx, 'event', inquiryBody('event', username, { event_date }))
      assert.equal(response.statusCode, 400, String(event_date))
      assert.equal(
        detailFor(response, 'event_date')?.message,
        'must be an integer unix time in seconds, such as 1767225600',
      )
    }
    for (const event_date of ['1767225600.5', '2026-01-01', '']) {
      const response = await post(ctx, 'event', form(inquiryBody('event', username, { event_date })), {
        headers: FORM,
      })
      assert.equal(response.statusCode, 400, event_date)
      assert.ok(detailFor(response, 'event_date'))
    }
  })

  test("rejects unknown fields and the other kind's fields", async () => {
    const response = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, { event_name: 'Gala', subject: 'hi' }),
    )
    assert.equal(response.statusCode, 400)
    const fields = envelope(response)
      .error?.details?.map((d) => d.field)
      .sort()
    assert.deepEqual(fields, ['event_name', 'subject'])
    assert.equal(detailFor(response, 'subject')?.message, 'is not a known field')
  })

  test('rejects wrong JSON types without coercion', async () => {
    const response = await post(
      ctx,
      'donor',
      inquiryBody('donor', username, { firstname: 12, phone: 5551234 }),
    )
    assert.equal(response.statusCode, 400)
    assert.deepEqual(
      envelope(response)
        .error?.details?.map((d) => d.field)
        .sort(),
      ['firstname', 'phone'],
    )
  })

  test('rejects a malformed username with 400 and an unknown one with 404', async () => {
    const malformed = await post(ctx, 'donor', inquiryBody('donor', 'Grace Hopper'))
    assert.equal(malformed.statusCode, 400)
    assert.ok(detailFor(malformed, 'username'))
    const before = await inquiryCount(ctx)
    const unknown = await post(ctx, 'donor', inquiryBody('donor', 'nobody-here'))
    assert.equal(unknown.statusCode, 404)
    assert.equal(envelope(unknown).error?.code, 'not_found')
    assert.equal(await inquiryCount(ctx), before)
  })

  test('answers 404 for an expert of another organization, indistinguishable from a missing one', async () => {
    const before = await inquiryCount(ctx)
    const response = await post(ctx, 'event', inquiryBody('event', otherUsername))
    assert.equal(response.statusCode, 404)
    const missing = await post(ctx, 'event', inquiryBody('event', 'nobody-here'))
    assert.equal(envelope(response).error?.code, 'not_found')
    assert.equal(
      envelope(response).error?.message.replace(otherUsername, 'X'),
      envelope(missing).error?.message.replace('nobody-here', 'X'),
    )
    assert.equal(await inquiryCount(ctx), before)
  })

  test("answers 403 to a token of one organization on another organization's path", async () => {
    const before = await inquiryCount(ctx)
    const response = await post(ctx, 'donor', inquiryBody('donor', otherUsername), { orgId: ctx.other.orgId })
    assert.equal(response.statusCode, 403)
    assert.equal(envelope(response).error?.code, 'forbidden')
    assert.equal(await inquiryCount(ctx), before)
  })

  test('answers 401 without a token and 400 for a malformed organization id', async () => {
    const noToken = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${ctx.tenant.orgId}/inquiry/donor`,
      payload: inquiryBody('donor', username),
    })
    assert.equal(noToken.statusCode, 401)
    assert.equal(envelope(noToken).error?.code, 'unauthorized')
    const badId = await api(ctx.app, ctx.tenant).send(
      'POST',
      '/v2/organization/01/inquiry/donor',
      inquiryBody('donor', username),
    )
    assert.equal(badId.statusCode, 400)
    assert.equal(envelope(badId).error?.code, 'validation_failed')
  })

  test('returns the first response for a retry with the same Idempotency-Key and body', async () => {
    const headers = { 'idempotency-key': 'retry-1' }
    const first = await post(ctx, 'donor', inquiryBody('donor', username), { headers })
    assert.equal(first.statusCode, 200)
    const before = await inquiryCount(ctx)
    // Same content, sent form-encoded and with fields in another order: the same request.
    const second = await post(ctx, 'donor', form(inquiryBody('donor', username)), {
      headers: { ...headers, ...FORM },
    })
    assert.equal(second.statusCode, 200)
    assert.deepEqual(envelope(second), envelope(first))
    assert.equal(second.headers['idempotent-replayed'], 'true')
    assert.equal(await inquiryCount(ctx), before)
  })

  test('answers 409 for the same Idempotency-Key with another body or on the other route', async () => {
    const headers = { 'idempotency-key': 'retry-2' }
    const first = await post(ctx, 'donor', inquiryBody('donor', username), { headers })
    assert.equal(first.statusCode, 200)
    const before = await inquiryCount(ctx)
    const changed = await post(ctx, 'donor', inquiryBody('donor', username, { message: 'Another message' }), {
      headers,
    })
    assert.equal(changed.statusCode, 409)
    assert.equal(envelope(changed).error?.code, 'conflict')
    const otherRoute = await post(ctx, 'event', inquiryBody('event', username), { headers })
    assert.equal(otherRoute.statusCode, 409)
    assert.equal(await inquiryCount(ctx), before)
  })

  test('scopes Idempotency-Keys to the organization', async () => {
    const headers = { 'idempotency-key': 'shared-key' }
    const mine = await post(ctx, 'donor', inquiryBody('donor', username), { headers })
    const theirs = await post(ctx, 'donor', inquiryBody('donor', otherUsername), {
      tenant: ctx.other,
      headers,
    })
    assert.equal(mine.statusCode, 200)
    assert.equal(theirs.statusCode, 200)
    assert.notEqual(envelope(mine).data?.id, envelope(theirs).data?.id)
    const row = await storedInquiry(ctx, expectOk(theirs).id)
    assert.equal(row?.org_id, ctx.other.orgId)
  })

  test('forgets an Idempotency-Key after 24 hours', async () => {
    const headers = { 'idempotency-key': 'expiring' }
    const first = await post(ctx, 'donor', inquiryBody('donor', username), { headers })
    ctx.clock.advance(24 * 60 * 60 * 1000 + 1)
    const later = await post(ctx, 'donor', inquiryBody('donor', username, { message: 'A new inquiry' }), {
      headers,
    })
    assert.equal(later.statusCode, 200)
    assert.notEqual(envelope(later).data?.id, envelope(first).data?.id)
    const keys = await ctx.testDatabase.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('org_id', '=', ctx.tenant.orgId)
      .where('key', '=', 'expiring')
      .execute()
    assert.equal(keys.length, 1)
    assert.equal(JSON.parse(keys[0]?.response ?? '{}').id, envelope(later).data?.id)
  })

  test('stores one inquiry for concurrent requests with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'concurrent' }
    const before = await inquiryCount(ctx)
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => post(ctx, 'event', inquiryBody('event', username), { headers })),
    )
    assert.ok(responses.every((r) => r.statusCode === 200))
    assert.equal(new Set(responses.map((r) => envelope(r).data?.id)).size, 1)
    assert.equal(await inquiryCount(ctx), before + 1)
  })

  test('rejects a malformed Idempotency-Key', async () => {
    const response = await post(ctx, 'donor', inquiryBody('donor', username), {
      headers: { 'idempotency-key': 'x'.repeat(256) },
    })
    assert.equal(response.statusCode, 400)
    assert.ok(detailFor(response, 'idempotency-key'))
  })

  test('keeps received inquiries when their expert is deleted', async () => {
    const doomed = await createExpert(ctx, ctx.tenant)
    const created = await post(ctx, 'donor', inquiryBody('donor', doomed))
    const id = expectOk(created).id
    const deleted = await ctx.inject({
      method: 'DELETE',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${doomed}`,
      headers: ctx.tenant.auth,
    })
    assert.equal(deleted.statusCode, 200)
    assert.equal((await storedInquiry(ctx, id))?.username, doomed)
    const after = await post(ctx, 'donor', inquiryBody('donor', doomed))
    assert.equal(after.statusCode, 404)
  })

  test('describes both routes in the OpenAPI document', async () => {
    const response = await ctx.inject({ method: 'GET', url: '/v2/openapi.json' })
    assert.equal(response.statusCode, 200)
    const paths = response.json().paths
    assert.ok(paths['/v2/organization/{corporation}/inquiry/donor']?.post)
    assert.ok(paths['/v2/organization/{corporation}/inquiry/event']?.post)
    const parameters = paths['/v2/organization/{corporation}/inquiry/donor'].post.parameters as {
      name: string
      in: string
    }[]
    assert.ok(parameters.some((p) => p.name === 'idempotency-key' && p.in === 'header'))
  })
})
