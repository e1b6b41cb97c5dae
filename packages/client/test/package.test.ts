import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createExpert, describeEachDialect } from '../../../test/helpers/harness.js'
import { listeningPort } from '../../../test/helpers/net.js'

const run = promisify(execFile)
const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ROOT = resolve(PACKAGE_DIR, '../..')

/** The caller's environment without the `npm_*` variables `npm test` sets, so npm runs as for a user. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')))

async function sh(command: string, args: string[], cwd: string, timeoutSeconds: number, env = cleanEnv) {
  try {
    return await run(command, args, { cwd, env, timeout: timeoutSeconds * 1000, maxBuffer: 16 * 1024 * 1024 })
  } catch (error) {
    const output =
      typeof error === 'object' && error !== null && 'stdout' in error && 'stderr' in error
        ? `${String(error.stdout)}\n${String(error.stderr)}`
        : ''
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}\n${output}`, { cause: error })
  }
}

/**
 * A website's backend as an integrator writes it against the installed package: every inquiry kind
 * with a body typed for that kind, a profile read, and the typed errors. Compiled by TypeScript against
 * the package's declarations (so the types are checked as a user's editor would), then run by Node.
 */
const SITE = `import { createExpertdirClient, ExpertdirError, type InquiryBody, type InquiryKind } from '@expertdir/client'

function setting(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(name + ' is not set')
  return value
}

const experts = createExpertdirClient({
  baseUrl: setting('SITE_API'),
  clientId: setting('SITE_CLIENT_ID'),
  clientSecret: setting('SITE_CLIENT_SECRET'),
  organization: Number(setting('SITE_ORGANIZATION')),
  scope: 'read inquiries:create',
})
const username = setting('SITE_EXPERT')
const sender = { username, firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.org', message: 'Hello' }

// One body per kind, each checked against that kind's schema; a kind left out does not compile.
const bodies: { [Kind in InquiryKind]: InquiryBody<Kind> } = {
  general: { ...sender },
  donor: { ...sender, donor_type: 'corporate', donor_focus: 'recurring_gift' },
  event: {
    ...sender,
    event_name: 'Annual Gala',
    event_location: 'Toronto',
    event_date: 1767225600,
    event_description: 'A dinner with a keynote.',
  },
  media: { ...sender, media_position: 'news_director', media_type: 'tv', media_deadline: 1767225600 },
  partnership: { ...sender, partner_organization_type: 'ngo', partner_focus: 'research' },
  admission: {
    ...sender,
    admission_type: 'graduate',
    admission_program_name: 'Computer Science',
    admission_faculty: 'Faculty of Engineering',
  },
  research: { ...sender, research_area: 'Quantum error correction', research_stage_in_process: 'collaboration' },
  business: { ...sender, business_opportunity_type: 'new_ventures/partnerships' },
  expertwitness: {
    ...sender,
    expertwitness_stage_in_process: 'in_litigation',
    expertwitness_organization_type: 'corporate_legal_department',
  },
}

export function refusedByTheCompiler() {
  // @ts-expect-error a donor inquiry without donor_type and donor_focus does not compile
  return experts.sendInquiry('donor', sender)
}

async function errorOf(call: () => Promise<unknown>) {
  try {
    await call()
  } catch (error) {
    if (error instanceof ExpertdirError)
      return { status: error.status, code: error.code, fields: error.details.map((detail) => detail.field) }
    throw error
  }
  throw new Error('the call did not fail')
}

const kinds: InquiryKind[] = [
  'general', 'donor', 'event', 'media', 'partnership', 'admission', 'research', 'business', 'expertwitness',
]
const sent: { kind: InquiryKind; id: number }[] = []
for (const kind of kinds) sent.push({ kind, id: (await experts.sendInquiry(kind, bodies[kind])).id })
const profile = await experts.getExpert(username)
// Arrays go as repeated keys; an empty one is left out.
const found = await experts.searchExperts({ q: 'Hopper', companies: ['US Navy', 'Nobody Inc'], topics: [] })
const invalid = await errorOf(() => experts.sendInquiry('media', { ...bodies.media, email: 'not-an-address' }))
const missing = await errorOf(() => experts.getExpert('no-such-expert'))
const usernames = found.experts.map((expert) => expert.username)
console.log(JSON.stringify({ sent, profile: profile.account[0]?.username, found: usernames, invalid, missing }))
`

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    // Only the site's own code and the package's declarations are checked here, not Node's types.
    skipLibCheck: false,
    // The workspace's @types/node stands in for the one a user's project would have.
    typeRoots: [join(ROOT, 'node_modules/@types')],
    types: ['node'],
    outDir: 'out',
    rootDir: '.',
  },
  files: ['site.ts'],
}

let work = ''
let project = ''

/** `npm pack` the client (its prepack builds it), then install the tarball into an empty project. */
before(async () => {
  work = await mkdtemp(join(tmpdir(), 'expertdir-client-pack-'))
  const packed = join(work, 'packed')
  project = join(work, 'site')
  await mkdir(packed)
  await mkdir(project)
  await sh('npm', ['pack', '--pack-destination', packed], PACKAGE_DIR, 240)
  const [tarball, ...others] = (await readdir(packed)).filter((name) => name.endsWith('.tgz'))
  assert.ok(tarball && others.length === 0, 'npm pack wrote one tarball')
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'site', private: true, type: 'module' }),
  )
  // The package's own dependencies come from the npm cache when it has them (it does after `npm ci`).
  await sh(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', join(packed, tarball)],
    project,
    180,
  )
  await writeFile(join(project, 'site.ts'), SITE)
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG))
  await sh(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
    project,
    180,
  )
})

after(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

describeEachDialect('the packed client, installed into an empty project', (ctx) => {
  let api = ''
  let username = ''

  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    api = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    username = await createExpert(ctx, ctx.tenant)
  })

  test('sends all nine inquiry kinds and reads a profile over HTTP, failures as typed errors', async () => {
    const { stdout } = await sh(process.execPath, ['out/site.js'], project, 60, {
      ...cleanEnv,
      SITE_API: api,
      SITE_CLIENT_ID: ctx.tenant.client.client_id,
      SITE_CLIENT_SECRET: ctx.tenant.client.client_secret,
      SITE_ORGANIZATION: String(ctx.tenant.orgId),
      SITE_EXPERT: username,
    })
    const result = JSON.parse(stdout)
    assert.equal(result.profile, username)
    assert.deepEqual(result.found, [username])
    assert.equal(result.sent.length, 9)
    assert.equal(new Set(result.sent.map((entry: { kind: string }) => entry.kind)).size, 9)
    for (const { kind, id } of result.sent) {
      const stored = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${ctx.tenant.orgId}/inquiry/${id}`,
        headers: ctx.tenant.auth,
      })
      assert.equal(stored.statusCode, 200, `inquiry ${id} (${kind}) is stored`)
      const { data } = stored.json()
      assert.equal(data.kind, kind)
      assert.equal(data.username, username)
    }
    assert.deepEqual(result.invalid, { status: 400, code: 'validation_failed', fields: ['email'] })
    assert.equal(result.missing.status, 404)
    assert.equal(result.missing.code, 'not_found')
  })
})
