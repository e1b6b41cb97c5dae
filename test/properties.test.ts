import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { Type } from 'typebox'
import { ClientCreate, PersonCreate, WebhookSet } from '../src/admin/schemas.js'
import { ERROR_STATUS } from '../src/errors.js'
import { ExpertCreate, ExpertUpdate } from '../src/experts/schemas.js'
import { validatorCompiler } from '../src/http/validation.js'
import { KIND_NAMES, kindFields } from '../src/inquiries/kinds.js'
import { inquiryFields } from '../src/inquiries/mapping.js'
import { findInquiry } from '../src/inquiries/repository.js'
import { INQUIRY_SCHEMAS } from '../src/inquiries/schemas.js'
import { sectionBody } from '../src/profiles/section-fields.js'
import { subdivisionCode } from '../src/validation/geo.js'
import { api, expectOk } from './helpers/api.js'
import {
  type JsonSchema,
  LANGUAGE_TAGS,
  mutatedBody,
  type Overrides,
  TIME_ZONES,
  validBody,
} from './helpers/arbitraries.js'
import { parsed, present } from './helpers/checked.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'

/** Runs per property (22 properties per dialect). */
const VALID_RUNS = 50
const MUTATED_RUNS = 70
/** The seven further inquiry kinds run this share of the runs: their bodies differ in a few fields only. */
const KIND_RUN_SHARE = 0.4

/** The app's own body validator (same ajv, trimming and keywords): the oracle for "the schema accepts". */
function accepts(schema: JsonSchema): (body: unknown) => boolean {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' })
  return (body) => {
    const result = validate(body)
    return typeof result === 'object' && !('error' in result && result.error)
  }
}

const acceptsCreate = accepts(ExpertCreate)
const acceptsUpdate = accepts(ExpertUpdate)

/**
 * The account update without `username`: these properties keep addressing one expert (renames:
 * usernames.test.ts); without the schedule's times either, which are valid only in the future of the
 * clock (schedules.test.ts).
 */
const {
  username: _rename,
  publish_at: _publishAt,
  unpublish_at: _unpublishAt,
  ...accountFields
} = ExpertUpdate.properties
const AccountUpdate: JsonSchema = { ...ExpertUpdate, properties: accountFields }
const {
  publish_at: _createPublishAt,
  unpublish_at: _createUnpublishAt,
  ...createFields
} = ExpertCreate.properties
const AccountCreate: JsonSchema = { ...ExpertCreate, properties: createFields }

const isErrorCode = (code: unknown): code is keyof typeof ERROR_STATUS =>
  typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code)

/** Never a 5xx; `success` boolean; `data` on 200; a catalogued code, its status and a message otherwise. */
function assertEnvelope(response: LightMyRequestResponse, sent: unknown): Record<string, unknown> {
  const context = `sent ${JSON.stringify(sent)}\ngot ${response.statusCode} ${response.body}`
  assert.ok(response.statusCode < 500, context)
  assert.match(String(response.headers['content-type']), /^application\/json/, context)
  const body = response.json()
  assert.equal(typeof body.success, 'boolean', context)
  if (response.statusCode === 200) {
    assert.equal(body.success, true, context)
    assert.equal(typeof body.data, 'object', context)
    assert.notEqual(body.data, null, context)
    return body
  }
  assert.equal(body.success, false, context)
  const code: unknown = body.error?.code
  assert.ok(isErrorCode(code), context)
  assert.equal(ERROR_STATUS[code], response.statusCode, context)
  assert.equal(typeof body.error.message, 'string', context)
  assert.ok(body.error.message.length > 0, context)
  for (const detail of body.error.details ?? []) {
    assert.equal(typeof detail.field, 'string', context)
    assert.equal(typeof detail.message, 'string', context)
    assert.ok(detail.message.length > 0, context)
  }
  return body
}

const ACCOUNT_TEXT = [
  'firstname',
  'lastname',
  'job_title',
  'email',
  'assistant_email',
  'company',
  'department',
  'phone_number',
  'phone_number_extension',
  'location_city',
  'location_postal',
  'location_address',
  'location_building',
  'location_room',
  'pronunciation',
  'pronouns',
] as const

/** The media desk's flags (CONTRACT §22). */
const MEDIA_FLAGS = ['media_available', 'remote_ready', 'studio_ready']

/**
 * An end of availability in the future, or none: an end that has passed is refused when the expert is
 * available (a rule across two fields, outside the schema's keywords).
 */
const MEDIA_OVERRIDES: Overrides = {
  media_available_until: fc.oneof(
    fc.constant(null),
    fc.constant(''),
    fc.integer({ min: Math.floor(Date.now() / 1000) + 86_400, max: 4_102_444_800 }),
  ),
}

/** The scholarly identifiers (stored in their canonical form) and what a match of each becomes (`suggest` unless set). */
const IDENTIFIERS = ['orcid', 'openalex_id', 'scopus_id']
const POLICIES = ['orcid_policy', 'openalex_policy', 'scopus_policy']

/** How the service stores a sent text: trimmed, "" as null. */
const stored = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null)

/** A text read back from the API (`string | null` by its schema). */
const textOrNull = (value: unknown) => {
  assert.ok(value === null || typeof value === 'string', `a text or null: ${JSON.stringify(value)}`)
  return value
}

/** The `account` element an accepted body must produce, on top of what was stored before. */
function expectedAccount(body: Record<string, unknown>, previous: Record<string, unknown>) {
  const account: Record<string, unknown> = { ...previous }
  for (const key of ACCOUNT_TEXT) if (key in body) account[key] = stored(body[key])
  for (const key of ['is_published', 'is_private', ...POLICIES, ...MEDIA_FLAGS])
    if (key in body) account[key] = body[key]
  if ('media_available_until' in body)
    account.media_available_until =
      typeof body.media_available_until === 'number' ? body.media_available_until : null
  if (Array.isArray(body.interview_languages))
    account.interview_languages = [
      ...new Set(body.interview_languages.map((tag: unknown) => LANGUAGE_TAGS[String(tag)])),
    ]
  if ('time_zone' in body) account.time_zone = body.time_zone ? TIME_ZONES[String(body.time_zone)] : null
  for (const key of ['orcid', 'scopus_id'] as const) if (key in body) account[key] = stored(body[key])
  if ('openalex_id' in body) {
    account.openalex_id = stored(body.openalex_id)?.replace('https://openalex.org/', '').toUpperCase() ?? null
  }
  if ('location_country' in body) {
    account.location_country = stored(body.location_country)?.toUpperCase() ?? null
  }
  // The state must belong to the country the expert ends up with, whichever of the two the body sets.
  const state = 'location_state' in body ? stored(body.location_state) : textOrNull(previous.location_state)
  const country = textOrNull(account.location_country)
  account.location_state = state ? ((country && subdivisionCode(country, state)) ?? 'INVALID') : null
  return account
}

const EMPTY_ACCOUNT = {
  ...Object.fromEntries([...ACCOUNT_TEXT, ...IDENTIFIERS].map((key) => [key, null])),
  ...Object.fromEntries(POLICIES.map((key) => [key, 'suggest'])),
  location_state: null,
  location_country: null,
  is_published: 0,
  is_private: 0,
  ...Object.fromEntries(MEDIA_FLAGS.map((key) => [key, 0])),
  media_available_until: null,
  interview_languages: [],
  time_zone: null,
  publish_at: null,
  unpublish_at: null,
}

async function readAccount(ctx: TestContext, username: string): Promise<Record<string, unknown>> {
  const { account } = expectOk(
    await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: ctx.tenant.orgId, username },
    }),
  )
  assert.equal(account.length, 1)
  return present(account[0], 'the account')
}

async function count(ctx: TestContext, table: 'experts' | 'inquiries'): Promise<number> {
  const row = await ctx.testDatabase.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describeEachDialect(
  'Property-based request bodies',
  (ctx) => {
    const expertsUrl = () => `/v2/organization/${ctx.tenant.orgId}/expert`
    let recipients: string[]
    let target: string

    before(async () => {
      recipients = [await createExpert(ctx, ctx.tenant), await createExpert(ctx, ctx.tenant)]
      target = await createExpert(ctx, ctx.tenant)
    })

    const createBodies = validBody(AccountCreate, MEDIA_OVERRIDES)
    const updateBodies = validBody(AccountUpdate, MEDIA_OVERRIDES)

    test('every generated valid expert create is accepted and stored as sent', async () => {
      await fc.assert(
        fc.asyncProperty(createBodies, async (body) => {
          assert.ok(
            acceptsCreate(body),
            `generator produced a body the schema rejects: ${JSON.stringify(body)}`,
          )
          const response = await ctx.inject({
            method: 'POST',
            url: expertsUrl(),
            headers: ctx.tenant.auth,
            payload: body,
          })
          const envelope = assertEnvelope(response, body)
          assert.equal(response.statusCode, 200, response.body)
          const { username, inserted } = parsed(
            Type.Object({ username: Type.String(), inserted: Type.Boolean() }),
            envelope.data,
            'the created expert',
          )
          assert.equal(inserted, true)
          assert.deepEqual(
            await readAccount(ctx, username),
            expectedAccount(body, { ...EMPTY_ACCOUNT, username, corporation_id: ctx.tenant.orgId }),
          )
        }),
        { numRuns: VALID_RUNS },
      )
    })

    test('every mutated expert create is refused with a 4xx envelope and nothing is stored', async () => {
      await fc.assert(
        fc.asyncProperty(mutatedBody(AccountCreate, MEDIA_OVERRIDES), async ({ mutation, field, body }) => {
          assert.ok(
            !acceptsCreate(body),
            `${mutation} of ${field} left a valid body: ${JSON.stringify(body)}`,
          )
          const before = await count(ctx, 'experts')
          const response = await ctx.inject({
            method: 'POST',
            url: expertsUrl(),
            // Serialized here: a non-object body (an array, a string) must reach the server as JSON too.
            payload: JSON.stringify(body),
            headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
          })
          assertEnvelope(response, body)
          assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${mutation}: ${response.body}`)
          assert.equal(response.json().error.code, 'validation_failed', `${mutation}: ${response.body}`)
          assert.equal(await count(ctx, 'experts'), before)
        }),
        { numRuns: MUTATED_RUNS },
      )
    })

    test('every generated valid expert update is applied exactly as sent', async () => {
      await fc.assert(
        fc.asyncProperty(updateBodies, async (body) => {
          assert.ok(
            acceptsUpdate(body),
            `generator produced a body the schema rejects: ${JSON.stringify(body)}`,
          )
          const previous = await readAccount(ctx, target)
          const response = await ctx.inject({
            method: 'PUT',
            url: `${expertsUrl()}/${target}`,
            headers: ctx.tenant.auth,
            payload: body,
          })
          assertEnvelope(response, body)
          const expected = expectedAccount(body, previous)
          if (expected.location_state === 'INVALID') {
            // The body changes the country but keeps the stored state of the old one: the service refuses it.
            assert.equal(response.statusCode, 400, response.body)
            assert.equal(response.json().error.details[0].field, 'location_state')
            assert.deepEqual(await readAccount(ctx, target), previous)
            return
          }
          assert.equal(response.statusCode, 200, response.body)
          assert.deepEqual(response.json().data, { username: target, updated: true })
          assert.deepEqual(await readAccount(ctx, target), expected)
        }),
        { numRuns: VALID_RUNS },
      )
    })

    test('every mutated expert update is refused with a 4xx envelope and the expert is unchanged', async () => {
      await fc.assert(
        fc.asyncProperty(mutatedBody(AccountUpdate, MEDIA_OVERRIDES), async ({ mutation, field, body }) => {
          assert.ok(
            !acceptsUpdate(body),
            `${mutation} of ${field} left a valid body: ${JSON.stringify(body)}`,
          )
          const previous = await readAccount(ctx, target)
          const response = await ctx.inject({
            method: 'PUT',
            url: `${expertsUrl()}/${target}`,
            payload: JSON.stringify(body),
            headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
          })
          assertEnvelope(response, body)
          assert.equal(response.statusCode, 400, `${mutation}: ${response.body}`)
          assert.deepEqual(await readAccount(ctx, target), previous)
        }),
        { numRuns: MUTATED_RUNS },
      )
    })

    for (const kind of KIND_NAMES) {
      const schema = INQUIRY_SCHEMAS[kind]
      const schemaAccepts = accepts(schema)
      // Donor and event keep the full run counts; the other kinds share their generators.
      const runs = kind === 'donor' || kind === 'event' ? 1 : KIND_RUN_SHARE
      const overrides = (): Overrides => ({ username: fc.constantFrom(...recipients) })
      const url = () => `/v2/organization/${ctx.tenant.orgId}/inquiry/${kind}`

      test(`every generated valid ${kind} inquiry is stored with the values sent`, async () => {
        await fc.assert(
          fc.asyncProperty(validBody(schema, overrides()), async (body) => {
            assert.ok(
              schemaAccepts(body),
              `generator produced a body the schema rejects: ${JSON.stringify(body)}`,
            )
            const response = await ctx.inject({
              method: 'POST',
              url: url(),
              headers: ctx.tenant.auth,
              payload: body,
            })
            const envelope = assertEnvelope(response, body)
            assert.equal(response.statusCode, 200, response.body)
            const { id } = parsed(Type.Object({ id: Type.Integer() }), envelope.data, 'the created inquiry')
            const row = await findInquiry(ctx.testDatabase.database.db, ctx.tenant.orgId, id)
            assert.ok(row)
            const country = stored(body.location_country)?.toUpperCase() ?? null
            const state = stored(body.location_state)
            const specific = Object.fromEntries(
              kindFields(kind).map(([name]) => {
                const value = body[name]
                return [name, value === undefined ? null : typeof value === 'string' ? stored(value) : value]
              }),
            )
            assert.deepEqual(
              { kind: row.kind, username: row.username, ...inquiryFields(row) },
              {
                kind,
                // general and media without username (or with "") go to the desk.
                username: stored(body.username),
                firstname: stored(body.firstname),
                lastname: stored(body.lastname),
                email: stored(body.email),
                phone: stored(body.phone),
                website: stored(body.website),
                organization: stored(body.organization),
                message: stored(body.message),
                location_city: stored(body.location_city),
                location_state: state && country ? (subdivisionCode(country, state) ?? 'INVALID') : null,
                location_country: country,
                ...specific,
              },
            )
          }),
          { numRuns: Math.ceil(VALID_RUNS * runs) },
        )
      })

      test(`every mutated ${kind} inquiry is refused with a 4xx envelope and nothing is stored`, async () => {
        await fc.assert(
          fc.asyncProperty(mutatedBody(schema, overrides()), async ({ mutation, field, body }) => {
            assert.ok(
              !schemaAccepts(body),
              `${mutation} of ${field} left a valid body: ${JSON.stringify(body)}`,
            )
            const before = await count(ctx, 'inquiries')
            const response = await ctx.inject({
              method: 'POST',
              url: url(),
              payload: JSON.stringify(body),
              headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
            })
            assertEnvelope(response, body)
            assert.equal(response.statusCode, 400, `${mutation}: ${response.body}`)
            assert.equal(await count(ctx, 'inquiries'), before)
          }),
          { numRuns: Math.ceil(MUTATED_RUNS * runs) },
        )
      })
    }
  },
  { config: { rateLimitApi: 0 } },
)

/** The write API's section bodies, from the one schema per section (sampletalk: required and clearable text). */
const SectionCreate = sectionBody('sampletalk', 'create')
const acceptsSection = accepts(SectionCreate)

describeEachDialect(
  'property tests: profile section writes',
  (ctx) => {
    let url: string
    before(async () => {
      url = `/v2/organization/${ctx.tenant.orgId}/expert/${await createExpert(ctx, ctx.tenant)}/sampletalk`
    })
    const stored = async () => {
      const { db } = ctx.testDatabase.database
      const row = await db
        .selectFrom('profile_items')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('org_id', '=', ctx.tenant.orgId)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    }
    const cleared = (value: unknown) => {
      const text = typeof value === 'string' ? value.trim() : value
      return text === '' || text === undefined ? null : text
    }

    test('every generated valid section element is stored and served as sent', async () => {
      await fc.assert(
        fc.asyncProperty(validBody(SectionCreate), async (body) => {
          assert.ok(
            acceptsSection(body),
            `generator produced a body the schema rejects: ${JSON.stringify(body)}`,
          )
          const response = await ctx.inject({ method: 'POST', url, headers: ctx.tenant.auth, payload: body })
          const { data } = parsed(
            Type.Object({ data: Type.Object({ id: Type.Integer() }) }),
            assertEnvelope(response, body),
            'the created element',
          )
          assert.equal(response.statusCode, 200, response.body)
          const read = await ctx.inject({ method: 'GET', url: `${url}/${data.id}`, headers: ctx.tenant.auth })
          assert.deepEqual(read.json().data.sampletalk, [
            { id: data.id, title: cleared(body.title), description: cleared(body.description) },
          ])
        }),
        { numRuns: VALID_RUNS },
      )
    })

    test('every mutated section element is refused with a 4xx envelope and nothing is stored', async () => {
      await fc.assert(
        fc.asyncProperty(mutatedBody(SectionCreate), async ({ mutation, field, body }) => {
          assert.ok(
            !acceptsSection(body),
            `${mutation} of ${field} left a valid body: ${JSON.stringify(body)}`,
          )
          const before = await stored()
          const response = await ctx.inject({
            method: 'POST',
            url,
            payload: JSON.stringify(body),
            headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
          })
          assertEnvelope(response, body)
          assert.equal(response.json().error?.code, 'validation_failed', `${mutation}: ${response.body}`)
          assert.equal(await stored(), before)
        }),
        { numRuns: MUTATED_RUNS },
      )
    })
  },
  { config: { rateLimitApi: 0 } },
)

/** The admin API's bodies (CONTRACT §14): a mutated one is refused whole, storing and auditing nothing. */
const ADMIN_BODIES = [
  { name: 'client create', method: 'POST', path: '/client', schema: ClientCreate, table: 'clients' },
  { name: 'webhook', method: 'PUT', path: '/webhook', schema: WebhookSet, table: 'webhooks' },
  { name: 'person create', method: 'POST', path: '/people', schema: PersonCreate, table: 'people' },
] as const
const ADMIN_RUNS = 30

describeEachDialect(
  'property tests: admin API bodies',
  (ctx) => {
    const rows = async (table: 'clients' | 'webhooks' | 'people' | 'audit_log') => {
      const row = await ctx.testDatabase.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
      return Number(row.n)
    }
    for (const { name, method, path, schema, table } of ADMIN_BODIES) {
      const valid = accepts(schema)
      test(`every mutated ${name} is refused with a 4xx envelope; nothing is stored or audited`, async () => {
        await fc.assert(
          fc.asyncProperty(mutatedBody(schema), async ({ mutation, field, body }) => {
            assert.ok(!valid(body), `${mutation} of ${field} left a valid body: ${JSON.stringify(body)}`)
            const before = [await rows(table), await rows('audit_log')]
            const response = await ctx.inject({
              method,
              url: `/v2/organization/${ctx.tenant.orgId}${path}`,
              payload: JSON.stringify(body),
              headers: { ...ctx.tenant.auth, 'content-type': 'application/json' },
            })
            assertEnvelope(response, body)
            assert.equal(response.json().error?.code, 'validation_failed', `${mutation}: ${response.body}`)
            assert.deepEqual([await rows(table), await rows('audit_log')], before)
          }),
          { numRuns: ADMIN_RUNS },
        )
      })
    }
  },
  { config: { rateLimitApi: 0 } },
)
