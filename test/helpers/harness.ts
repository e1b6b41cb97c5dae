import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe } from 'node:test'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { Type } from 'typebox'
import { buildApp } from '../../src/app.js'
import { createClient, type IssuedClient } from '../../src/auth/clients.js'
import { SCOPES } from '../../src/auth/scopes.js'
import { type Config, loadConfig } from '../../src/config.js'
import { type Database, type DialectName, openDatabase } from '../../src/db/database.js'
import type { InquiryKind } from '../../src/inquiries/kinds.js'
import { createOrganization } from '../../src/organizations/repository.js'
import type { Source } from '../../src/works/sources/source.js'
import { collectingStream, discardingStream, isRecord, parsed, present } from './checked.js'
import { createTestDatabase, type TestDatabase, testDialects } from './databases.js'

/** Decided once per test process: which dialects run, and whether PostgreSQL is skipped. */
const DIALECTS = await testDialects()

/**
 * Settings every test app runs with: argon2id at 1 MiB instead of the production 19 MiB (still a real
 * memory-hard hash) makes each password a test sets or checks about twenty times cheaper. The CLI's
 * tests run with the production default (people.test.ts checks its parameters). No scholarly source is
 * reached unless a test gives its own (`workSources`).
 */
export const TEST_SETTINGS = { passwordMemoryKib: 1024, sources: [] } satisfies Partial<Config>

/** A movable clock for tests: starts at the real time, moves only when told. */
export class TestClock {
  current = Date.now()
  now = () => this.current
  advance(ms: number) {
    this.current += ms
  }
}

export interface Tenant {
  orgId: number
  client: IssuedClient
  token: string
  /** `{ authorization: 'Bearer ...' }` */
  auth: Record<string, string>
}

export interface TestContext {
  dialect: DialectName
  app: FastifyInstance
  testDatabase: TestDatabase
  clock: TestClock
  config: Config
  /** The main organization (id 1) and a second one (id 2), each with a client and a token. */
  tenant: Tenant
  other: Tenant
  /** Log lines the app wrote. */
  logs: string[]
  /** Every route the app registered, as `METHOD /url`, with its config. */
  routes: { route: string; config: Record<string, unknown> }[]
  inject(options: InjectOptions): Promise<LightMyRequestResponse>
  /** Creates an organization with a client and a live token. */
  addTenant(name?: string): Promise<Tenant>
}

export async function requestToken(app: FastifyInstance, client: IssuedClient): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/v2/oauth/token',
    payload: {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    },
  })
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.body}`)
  return response.json().data.accessToken
}

/** A suite's context: its parts are set in `before`; reading one earlier fails with its name. */
class DialectContext implements TestContext {
  logs: string[] = []
  routes: TestContext['routes'] = []
  #app?: FastifyInstance
  #testDatabase?: TestDatabase
  #clock?: TestClock
  #config?: Config
  #tenant?: Tenant
  #other?: Tenant

  constructor(readonly dialect: DialectName) {}

  get app() {
    return present(this.#app, 'the app')
  }
  set app(app) {
    this.#app = app
  }
  get testDatabase() {
    return present(this.#testDatabase, 'the test database')
  }
  set testDatabase(testDatabase) {
    this.#testDatabase = testDatabase
  }
  get clock() {
    return present(this.#clock, 'the clock')
  }
  set clock(clock) {
    this.#clock = clock
  }
  get config() {
    return present(this.#config, 'the config')
  }
  set config(config) {
    this.#config = config
  }
  get tenant() {
    return present(this.#tenant, 'the main tenant')
  }
  set tenant(tenant) {
    this.#tenant = tenant
  }
  get other() {
    return present(this.#other, 'the other tenant')
  }
  set other(other) {
    this.#other = other
  }

  /** Closes the app and drops the database, as far as `before` got. */
  async close() {
    await this.#app?.close()
    await this.#testDatabase?.drop()
  }

  /** An arrow, so that it can be passed around without its context (`inject = ctx.inject`). */
  inject = (options: InjectOptions) => this.app.inject(options)

  async addTenant(orgName = 'Tenant'): Promise<Tenant> {
    const { db } = this.testDatabase.database
    const org = await createOrganization(db, { name: orgName }, this.clock.now())
    // Every scope, the admin ones too, so that each route's control case succeeds.
    const client = await createClient(db, org.id, 'test', this.clock.now(), SCOPES)
    const token = await requestToken(this.app, client)
    return { orgId: org.id, client, token, auth: { authorization: `Bearer ${token}` } }
  }
}

/**
 * Runs `suite` once per dialect (SQLite, PostgreSQL), each with a fresh migrated database, an app
 * built on it and two tenants. The context object is filled in `before` and valid inside tests.
 */
export function describeEachDialect(
  name: string,
  suite: (ctx: TestContext) => void,
  options: { config?: Partial<Config>; workSources?: readonly Source[] } = {},
): void {
  describe(name, () => {
    for (const { dialect, skip } of DIALECTS) {
      describe(dialect, { skip }, () => {
        const ctx = new DialectContext(dialect)
        // Each suite stores photos and documents in a folder of its own, removed with it.
        let mediaDir = ''
        before(async () => {
          mediaDir = mkdtempSync(join(tmpdir(), 'expertdir-media-'))
          ctx.clock = new TestClock()
          ctx.testDatabase = await createTestDatabase(dialect)
          ctx.config = loadConfig({ logLevel: 'info', mediaDir, ...TEST_SETTINGS, ...options.config }, {})
          ctx.app = await buildApp({
            config: ctx.config,
            database: ctx.testDatabase.database,
            now: ctx.clock.now,
            ...(options.workSources ? { workSources: options.workSources } : {}),
            logStream: collectingStream(ctx.logs),
            onRoute: (route) => {
              for (const method of [route.method].flat())
                ctx.routes.push({
                  route: `${method} ${route.url}`,
                  config: isRecord(route.config) ? route.config : {},
                })
            },
          })
          ctx.tenant = await ctx.addTenant('Main University')
          ctx.other = await ctx.addTenant('Other Hospital')
        })
        after(async () => {
          await ctx.close()
          if (mediaDir) rmSync(mediaDir, { recursive: true, force: true })
        })
        suite(ctx)
      })
    }
  })
}

/** Another app on the same database through a connection of its own, as a second process would have. */
export interface SecondApp {
  app: FastifyInstance
  database: Database
  close(): Promise<void>
}

/** Builds a `SecondApp` with the suite's config and clock; `config` overrides settings, logs go nowhere. */
export async function openSecondApp(ctx: TestContext, config: Partial<Config> = {}): Promise<SecondApp> {
  const database = openDatabase(ctx.testDatabase.url)
  const app = await buildApp({
    config: { ...ctx.config, ...config },
    database,
    now: ctx.clock.now,
    logStream: discardingStream(),
  })
  return {
    app,
    database,
    async close() {
      await app.close()
      await database.close()
    },
  }
}

/** The fields `expertBody` fills in. */
export interface ExpertFields {
  firstname: string
  lastname: string
  job_title: string
  email: string
  company: string
}

/** A valid create-expert body; override any field. */
export function expertBody<Overrides extends object = Record<never, never>>(
  overrides?: Overrides,
): ExpertFields & Overrides {
  const n = Math.random().toString(36).slice(2, 8)
  const fields: ExpertFields = {
    firstname: 'Grace',
    lastname: 'Hopper',
    job_title: 'Rear Admiral',
    email: `grace.${n}@navy.example`,
    company: 'US Navy',
  }
  return Object.assign(fields, overrides)
}

/** Creates an expert in `tenant`'s organization and returns its username. */
export async function createExpert(
  ctx: TestContext,
  tenant: Tenant,
  overrides: Record<string, unknown> = {},
) {
  const response = await ctx.inject({
    method: 'POST',
    url: `/v2/organization/${tenant.orgId}/expert`,
    headers: tenant.auth,
    payload: expertBody(overrides),
  })
  if (response.statusCode !== 200) throw new Error(`create expert failed: ${response.body}`)
  return usernameIn(response)
}

const Created = Type.Object({ data: Type.Object({ username: Type.String() }) })

/** The username a create answered with. */
function usernameIn(response: LightMyRequestResponse): string {
  return parsed(Created, response.json()).data.username
}

/** Creates a staff member in `tenant`'s organization and returns its username. */
export async function createStaff(ctx: TestContext, tenant: Tenant, overrides: Record<string, unknown> = {}) {
  const response = await ctx.inject({
    method: 'POST',
    url: `/v2/organization/${tenant.orgId}/staff`,
    headers: tenant.auth,
    payload: expertBody({ firstname: 'Alan', lastname: 'Turing', job_title: 'Registrar', ...overrides }),
  })
  if (response.statusCode !== 200) throw new Error(`create staff failed: ${response.body}`)
  return usernameIn(response)
}

/** Asserts nothing about the body; returns it parsed for envelope checks. */
export function envelope(response: LightMyRequestResponse): {
  success: boolean
  data?: Record<string, unknown>
  error?: { code: string; message: string; details?: { field: string; message: string }[] }
} {
  return response.json()
}

export type { InquiryKind } from '../../src/inquiries/kinds.js'

/** A valid set of the fields each kind adds. */
export const KIND_SAMPLES: Record<InquiryKind, Record<string, unknown>> = {
  general: {},
  donor: { donor_type: 'corporate', donor_focus: 'recurring_gift' },
  event: {
    event_name: 'Annual Gala',
    event_location: 'Toronto',
    event_date: 1767225600,
    event_description: 'A dinner with a keynote.\nAbout 300 guests.',
  },
  media: { media_position: 'news_director', media_type: 'tv', media_deadline: 1767225600 },
  partnership: { partner_organization_type: 'ngo', partner_focus: 'research' },
  admission: {
    admission_type: 'graduate',
    admission_program_name: 'Computer Science',
    admission_faculty: 'Faculty of Engineering',
  },
  research: {
    research_area: 'Quantum error correction',
    research_stage_in_process: 'collaboration',
    research_deadline: 1798761600,
  },
  business: { business_opportunity_type: 'new_ventures/partnerships' },
  expertwitness: {
    expertwitness_stage_in_process: 'in_litigation',
    expertwitness_organization_type: 'corporate_legal_department',
  },
}

function senderFields(username: string): Record<string, unknown> {
  return {
    firstname: 'Ada',
    lastname: 'Lovelace',
    email: 'ada@example.org',
    phone: '+44 (20) 7946-0000',
    website: 'https://ada.example.org/about?x=1',
    organization: 'Analytical Engines Ltd',
    message: 'Hello,\nwe would like to talk.\tThanks!',
    location_city: 'London',
    location_state: 'ON',
    location_country: 'ca',
    username,
  }
}

/** A valid inquiry body of `kind` to `username`; override any field. */
export function inquiryBody(kind: InquiryKind, username: string, overrides: Record<string, unknown> = {}) {
  return { ...senderFields(username), ...KIND_SAMPLES[kind], ...overrides }
}

/** The form-encoded content type header. */
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** Asserts a 400 validation_failed and returns its details as field -> message. */
export function detailsOf(response: LightMyRequestResponse): Record<string, string> {
  const body = envelope(response)
  if (response.statusCode !== 400 || body.error?.code !== 'validation_failed')
    throw new Error(`expected a 400 validation_failed, got ${response.statusCode}: ${response.body}`)
  return Object.fromEntries((body.error?.details ?? []).map((detail) => [detail.field, detail.message]))
}

/** The detail of `field` in an error response, if any. */
export function detailFor(response: LightMyRequestResponse, field: string) {
  return envelope(response).error?.details?.find((detail) => detail.field === field)
}
