import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import { Type } from 'typebox'
import { cliTrail } from '../../src/audit/actor.js'
import { cliWriteContext } from '../../src/audit/write-context.js'
import { createClient } from '../../src/auth/clients.js'
import { SCOPES } from '../../src/auth/scopes.js'
import type { Config } from '../../src/config.js'
import type { DB } from '../../src/db/schema.js'
import { importContent } from '../../src/import/index.js'
import { addPerson } from '../../src/people/service.js'
import { dataIn } from './checked.js'
import type { FuzzFixture } from './fuzz.js'
import { testImage, testPdf } from './images.js'

/**
 * Settings the fuzzer's app runs with: the per-token and token-endpoint limits off, so that cases reach
 * the handlers instead of stopping at 429 (the 429 answer has cases of its own in the suite), and
 * dashboard tokens that outlive a long run.
 */
export const FUZZ_CONFIG = {
  rateLimitApi: 0,
  rateLimitToken: 0,
  rateLimitTokenFailures: 0,
  personTokenTtlSeconds: 3600,
  directoryContactLimit: 0,
  directoryStoryLimit: 0,
} satisfies Partial<Config>

const HOST = 'experts.example.edu'
const PASSWORD = 'violet-harbour-compass-42'

export interface FuzzSeedInput {
  app: FastifyInstance
  db: Kysely<DB>
  /** Two existing organizations: the one fuzzed and another for cross-tenant cases. */
  orgId: number
  otherOrgId: number
  now(): number
}

async function token(app: FastifyInstance, client: { client_id: string; client_secret: string }) {
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
  return dataIn(Type.Object({ accessToken: Type.String() }), response).accessToken
}

async function signIn(app: FastifyInstance, email: string): Promise<string | undefined> {
  const response = await app.inject({
    method: 'POST',
    url: '/auth/sign-in',
    headers: { host: HOST, origin: `http://${HOST}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ email, password: PASSWORD }),
  })
  const cookie = response.cookies.find((c) => c.name === 'expertdir_session')
  return response.statusCode === 200 && cookie ? `${cookie.name}=${cookie.value}` : undefined
}

/**
 * Fills the organization with the documented example content (experts with every profile section,
 * posts, Q&A), a staff member, inquiries and people, and mints the fuzzer's three tokens: `full` (a
 * client with every scope), `public` (a client with `read:public inquiries:create`, as a public website
 * holds) and `expert` (the dashboard token of a person with the expert role, linked to an expert).
 */
export async function seedFuzzFixture(input: FuzzSeedInput): Promise<FuzzFixture> {
  const { app, db, orgId, otherOrgId } = input
  const example = readFileSync(new URL('../../examples/import.json', import.meta.url), 'utf8')
  for (const org of [orgId, otherOrgId])
    await importContent(cliWriteContext(db, org, 'import', input.now()), example)

  const full = await createClient(db, orgId, 'fuzz: every scope', input.now(), SCOPES)
  const publicSite = await createClient(db, orgId, 'fuzz: public site', input.now(), [
    'read:public',
    'inquiries:create',
  ])
  const spare = await createClient(db, orgId, 'fuzz: spare', input.now(), SCOPES)
  const fullToken = await token(app, full)
  const auth = { authorization: `Bearer ${fullToken}` }

  const staffResponse = await app.inject({
    method: 'POST',
    url: `/v2/organization/${orgId}/staff`,
    headers: auth,
    payload: {
      firstname: 'Alan',
      lastname: 'Turing',
      job_title: 'Registrar',
      email: 'alan@uni.example',
      company: 'Uni',
    },
  })
  if (staffResponse.statusCode !== 200) throw new Error(`create staff failed: ${staffResponse.body}`)

  const rows = await db
    .selectFrom('experts')
    .select(['username', 'type', 'org_id'])
    .where('org_id', '=', orgId)
    .execute()
  const experts = rows.filter((row) => row.type === 'expert').map((row) => row.username)
  const staff = rows.filter((row) => row.type === 'staff').map((row) => row.username)
  const [protectedExpert] = experts
  if (!protectedExpert || !staff.length) throw new Error('the example content has no expert or no staff')

  for (const username of experts) {
    const response = await app.inject({
      method: 'POST',
      url: `/v2/organization/${orgId}/inquiry/general`,
      headers: auth,
      payload: {
        firstname: 'Ada',
        lastname: 'Lovelace',
        email: 'ada@example.org',
        organization: 'Analytical Engines Ltd',
        message: 'Hello, we would like to talk.',
        username,
      },
    })
    if (response.statusCode !== 200) throw new Error(`inquiry failed: ${response.body}`)
  }

  const trail = cliTrail('people add')
  const person = async (role: string, expert?: string) => {
    const email = `${role}.${Math.random().toString(36).slice(2, 8)}@uni.example`
    const added = await addPerson(
      { db, orgId, now: input.now(), trail },
      { email, role, expert, password: PASSWORD },
    )
    return { id: added.person.id, email }
  }
  const expertPerson = await person('expert', protectedExpert)
  const expertCookie = await signIn(app, expertPerson.email)
  const minted = await app.inject({
    method: 'POST',
    url: '/auth/token',
    headers: {
      host: HOST,
      origin: `http://${HOST}`,
      cookie: expertCookie ?? '',
      'content-type': 'application/json',
    },
    payload: '{}',
  })
  if (minted.statusCode !== 200) throw new Error(`expert token failed: ${minted.body}`)
  const spares = [await person('editor'), await person('inquiries'), await person('admin')]

  const ids = new Set<number>()
  for (const table of ['profile_items', 'spotlights', 'questions', 'inquiries'] as const)
    for (const row of await db.selectFrom(table).select('id').execute()) ids.add(row.id)
  for (const row of await db.selectFrom('answers').select('id').execute()) ids.add(row.id)

  return {
    orgId,
    otherOrgId,
    tokens: {
      full: fullToken,
      public: await token(app, publicSite),
      expert: minted.json().data.access_token,
    },
    experts,
    staff,
    protectedExpert,
    ids: [...ids].sort((a, b) => a - b),
    peopleIds: spares.map((p) => p.id),
    emails: [expertPerson.email, ...spares.map((p) => p.email)],
    spare: { clientId: spare.client_id, clientSecret: spare.client_secret, token: await token(app, spare) },
    host: HOST,
    async newSession() {
      return signIn(app, (await person('editor')).email)
    },
    files: {
      png: await testImage('png', 32, 24),
      jpeg: await testImage('jpeg', 32, 24),
      webp: await testImage('webp', 32, 24),
      pdf: testPdf(),
    },
  }
}
