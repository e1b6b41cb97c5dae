import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { before, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { composeEmail } from '../src/delivery/email.js'
import { inquiryPayload } from '../src/delivery/payload.js'
import { INQUIRY_KINDS, KIND_NAMES, kindFields } from '../src/inquiries/kinds.js'
import { findInquiry } from '../src/inquiries/repository.js'
import { api, expectOk, unchecked } from './helpers/api.js'
import { present } from './helpers/checked.js'
import {
  createExpert,
  describeEachDialect,
  envelope,
  type InquiryKind,
  inquiryBody,
  KIND_SAMPLES,
} from './helpers/harness.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

function form(fields: Record<string, unknown>): string {
  return new URLSearchParams(
    Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString()
}

function details(response: LightMyRequestResponse): Record<string, string> {
  const list = envelope(response).error?.details ?? []
  return Object.fromEntries(list.map((detail) => [detail.field, detail.message]))
}

/** The kinds with their required and optional own fields, from the one table that defines them. */
const REQUIRED = (kind: InquiryKind) => kindFields(kind).filter(([, field]) => !field.optional)
const CHOICES = (kind: InquiryKind) => kindFields(kind).filter(([, field]) => field.choices)

describeEachDialect(
  'inquiry kinds',
  (ctx) => {
    let username: string

    /** Sends `payload` as it is: many tests here check what the schema of `kind` refuses. */
    const post = (kind: InquiryKind, payload: Record<string, unknown> | string, headers = {}) =>
      api(ctx.app, ctx.tenant).post(`/v2/organization/{corporation}/inquiry/${kind}`, {
        params: { corporation: ctx.tenant.orgId },
        body: unchecked(payload),
        headers,
      })

    const read = async (id: number) =>
      expectOk(
        await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/inquiry/{id}', {
          params: { corporation: ctx.tenant.orgId, id },
        }),
      )

    before(async () => {
      username = await createExpert(ctx, ctx.tenant, { email: 'kinds@uni.example' })
    })

    for (const kind of KIND_NAMES) {
      test(`accepts a ${kind} inquiry as JSON and stores every field of its kind`, async () => {
        const response = await post(kind, inquiryBody(kind, username))
        assert.equal(response.statusCode, 200, response.body)
        const id = expectOk(response).id
        const inquiry = await read(id)
        assert.equal(inquiry.kind, kind)
        assert.equal(inquiry.username, username)
        assert.equal(inquiry.fields.location_country, 'CA')
        assert.equal(inquiry.fields.location_state, 'ON')
        const fields: Record<string, unknown> = inquiry.fields
        for (const [field, value] of Object.entries(KIND_SAMPLES[kind])) {
          assert.equal(fields[field], value, field)
        }
        // No field of another kind leaks into this one.
        const own = new Set(kindFields(kind).map(([name]) => name))
        for (const other of KIND_NAMES.filter((name) => name !== kind)) {
          for (const [name] of kindFields(other))
            if (!own.has(name)) assert.ok(!(name in inquiry.fields), name)
        }
        assert.deepEqual(
          inquiry.delivery.map((d: { channel: string; status: string }) => [d.channel, d.status]),
          [
            ['email', 'pending'],
            ['webhook', 'pending'],
          ],
        )
      })

      test(`accepts a form-encoded ${kind} inquiry, numbers as digit strings`, async () => {
        const response = await post(kind, form(inquiryBody(kind, username)), FORM)
        assert.equal(response.statusCode, 200, response.body)
        const inquiry = await read(expectOk(response).id)
        const fields: Record<string, unknown> = inquiry.fields
        for (const [field, value] of Object.entries(KIND_SAMPLES[kind])) {
          assert.equal(fields[field], value, field)
        }
      })

      if (REQUIRED(kind).length > 0) {
        test(`names every missing required field of a ${kind} inquiry in details`, async () => {
          for (const [field] of REQUIRED(kind)) {
            const { [field]: _dropped, ...body } = inquiryBody(kind, username)
            const response = await post(kind, body)
            assert.equal(response.statusCode, 400, field)
            assert.equal(envelope(response).error?.code, 'validation_failed')
            assert.deepEqual(details(response), { [field]: 'is required' })
          }
          const bare = Object.fromEntries(
            Object.entries(inquiryBody(kind, username)).filter(([name]) => !(name in KIND_SAMPLES[kind])),
          )
          const response = await post(kind, bare)
          assert.equal(response.statusCode, 400)
          assert.deepEqual(
            Object.keys(details(response)).sort(),
            REQUIRED(kind)
              .map(([name]) => name)
              .sort(),
          )
        })
      }

      if (CHOICES(kind).length > 0) {
        test(`accepts every allowed value of the ${kind} lists and refuses others`, async () => {
          for (const [field, spec] of CHOICES(kind)) {
            for (const value of Object.keys(spec.choices ?? {})) {
              const response = await post(kind, inquiryBody(kind, username, { [field]: value }))
              assert.equal(response.statusCode, 200, `${field}=${value}: ${response.body}`)
            }
            for (const value of ['unknown', 'Other', '', ' other_', 'OTHER']) {
              const response = await post(kind, inquiryBody(kind, username, { [field]: value }))
              assert.equal(response.statusCode, 400, `${field}=${value}`)
              assert.match(details(response)[field] ?? '', /^must be one of: /, `${field}=${value}`)
            }
          }
        })
      }

      test(`refuses a field of another kind on a ${kind} inquiry`, async () => {
        const foreign = kind === 'media' ? { donor_type: 'ngo' } : { media_type: 'tv' }
        const response = await post(kind, inquiryBody(kind, username, foreign))
        assert.equal(response.statusCode, 400)
        assert.equal(details(response)[present(Object.keys(foreign)[0])], 'is not a known field')
      })
    }

    test('keeps one rising id sequence across all nine kinds', async () => {
      const ids: number[] = []
      for (const kind of KIND_NAMES) {
        ids.push(expectOk(await post(kind, inquiryBody(kind, username))).id)
      }
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      )
      assert.equal(new Set(ids).size, KIND_NAMES.length)
    })

    test('research_deadline is optional; an empty research form field is not', async () => {
      const { research_deadline: _none, ...body } = inquiryBody('research', username)
      const response = await post('research', body)
      assert.equal(response.statusCode, 200, response.body)
      const inquiry = await read(expectOk(response).id)
      assert.equal(inquiry.fields.research_deadline, null)
      assert.equal(inquiry.fields.research_area, 'Quantum error correction')
      const formResponse = await post('research', form(body), FORM)
      assert.equal(formResponse.statusCode, 200, formResponse.body)
    })

    test('refuses deadlines in milliseconds with a message that says so, as JSON and form', async () => {
      for (const [kind, field] of [
        ['media', 'media_deadline'],
        ['research', 'research_deadline'],
      ] as const) {
        const millis = 1767225600000
        const json = await post(kind, inquiryBody(kind, username, { [field]: millis }))
        assert.equal(json.statusCode, 400)
        assert.equal(details(json)[field], 'looks like unix milliseconds: send unix seconds (divide by 1000)')
        const formed = await post(kind, form(inquiryBody(kind, username, { [field]: millis })), FORM)
        assert.equal(formed.statusCode, 400)
        assert.match(details(formed)[field] ?? '', /milliseconds/)
        for (const bad of [-1, 1.5, '2026-01-01', null]) {
          const response = await post(kind, inquiryBody(kind, username, { [field]: bad }))
          assert.equal(response.statusCode, 400, `${field}=${bad}`)
          assert.equal(
            details(response)[field],
            'must be an integer unix time in seconds, such as 1767225600',
          )
        }
      }
    })

    test('an unknown kind is a 404 and stores nothing', async () => {
      const before = await ctx.testDatabase.database.db.selectFrom('inquiries').select('id').execute()
      for (const kind of ['unknown', 'Media', 'expert-witness', 'donors', 'general%20']) {
        const response = await api(ctx.app, ctx.tenant).send(
          'POST',
          `/v2/organization/${ctx.tenant.orgId}/inquiry/${kind}`,
          inquiryBody('general', username),
        )
        assert.equal(response.statusCode, 404, kind)
        assert.equal(envelope(response).error?.code, 'not_found')
      }
      const after = await ctx.testDatabase.database.db.selectFrom('inquiries').select('id').execute()
      assert.equal(after.length, before.length)
    })

    test('an Idempotency-Key replays per kind and conflicts across kinds', async () => {
      const key = { 'idempotency-key': `kinds-${ctx.dialect}` }
      const first = await post('media', inquiryBody('media', username), key)
      const again = await post('media', inquiryBody('media', username), key)
      assert.equal(again.statusCode, 200)
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.deepEqual(again.json().data, first.json().data)
      const other = await post('research', inquiryBody('research', username), key)
      assert.equal(other.statusCode, 409)
    })

    test('the email and the webhook payload show the kind fields with readable labels', async () => {
      const id = expectOk(await post('media', inquiryBody('media', username))).id
      const row = await findInquiry(ctx.testDatabase.database.db, ctx.tenant.orgId, id)
      assert.ok(row)
      const mail = composeEmail(row)
      assert.equal(mail.subject, 'New media inquiry from Ada Lovelace')
      assert.match(mail.text, /^Position: News director$/m)
      assert.match(mail.text, /^Media type: TV$/m)
      assert.match(mail.text, /^Deadline: Thursday, 1 January 2026 at 00:00 UTC$/m)
      const payload = inquiryPayload(row)
      assert.equal(payload.kind, 'media')
      assert.equal(payload.media_type, 'tv')
      assert.equal(payload.media_deadline, 1767225600)
      assert.deepEqual(payload.details, [
        { field: 'media_position', label: 'Position', value: 'news_director', text: 'News director' },
        { field: 'media_type', label: 'Media type', value: 'tv', text: 'TV' },
        { field: 'media_deadline', label: 'Deadline', value: 1767225600, text: '2026-01-01T00:00:00.000Z' },
      ])

      const witness = expectOk(await post('expertwitness', inquiryBody('expertwitness', username))).id
      const witnessRow = await findInquiry(ctx.testDatabase.database.db, ctx.tenant.orgId, witness)
      assert.ok(witnessRow)
      assert.equal(composeEmail(witnessRow).subject, 'New expert witness inquiry from Ada Lovelace')
      assert.match(composeEmail(witnessRow).text, /^Organization type: Corporate legal department$/m)

      const general = expectOk(await post('general', inquiryBody('general', username))).id
      const generalRow = await findInquiry(ctx.testDatabase.database.db, ctx.tenant.orgId, general)
      assert.ok(generalRow)
      assert.deepEqual(inquiryPayload(generalRow).details, [])
    })

    test('every kind has a label for every allowed value', () => {
      for (const kind of KIND_NAMES) {
        for (const [name, field] of kindFields(kind)) {
          assert.ok(field.label.length > 0, `${kind}.${name}`)
          for (const [value, label] of Object.entries(field.choices ?? {}))
            assert.ok(label, `${name}=${value}`)
        }
        assert.ok(INQUIRY_KINDS[kind].summary)
      }
    })
  },
  { config: { rateLimitApi: 0 } },
)

test('docs/webhooks.md names every field of every kind with its label', async () => {
  const doc = await readFile(new URL('../docs/webhooks.md', import.meta.url), 'utf8')
  for (const kind of KIND_NAMES) {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${kind}\` |`))
    assert.ok(row, kind)
    for (const [name, field] of kindFields(kind))
      assert.ok(row.includes(`\`${name}\` (${field.label}`), `${kind}.${name}`)
  }
})
