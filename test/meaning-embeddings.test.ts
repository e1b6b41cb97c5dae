import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { after, before, test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { openDatabase } from '../src/db/database.js'
import { findExpert } from '../src/experts/repository.js'
import { createEmbeddingLoop, EMBEDDING_LEASE_MS } from '../src/meaning/embeddings/loop.js'
import { openAiEmbeddings } from '../src/meaning/embeddings/provider.js'
import { claimDue, embeddingStatus, enrollExperts } from '../src/meaning/embeddings/store.js'
import { matchExperts, similarExperts } from '../src/meaning/service.js'
import { api, expectOk } from './helpers/api.js'
import { present } from './helpers/checked.js'
import { runCli, startServerProcess } from './helpers/cli.js'
import { DIMENSIONS, startEmbeddingServer } from './helpers/embedding-server.js'
import { eventually } from './helpers/eventually.js'
import {
  createExpert,
  describeEachDialect,
  openSecondApp,
  requestToken,
  type TestContext,
} from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

/**
 * Optional embeddings (CONTRACT §20, docs/meaning.md "Embeddings (optional)"), against a real embeddings
 * server on 127.0.0.1 that gives deterministic vectors (a hashed bag of words; `cardiac` lands where
 * `heart` does). Off by default; on, a write makes an expert due without calling the provider, the
 * background loop embeds it once, and the cosine ranking joins the fused lists, narrowed by audience.
 */

const server = await startEmbeddingServer()
after(() => server.close())

const MODEL = 'hash-bag-256'
const API_KEY = 'sk-test-embeddings-key'

/** A port nothing listens on: an embeddings API that is down. */
async function closedPort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = listeningPort(probe)
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

const dbOf = (ctx: TestContext) => ctx.testDatabase.database.db

async function addSection(
  ctx: TestContext,
  username: string,
  section: 'topic' | 'biography',
  body: Record<string, string>,
) {
  const response = await ctx.inject({
    method: 'POST',
    url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/${section}`,
    headers: ctx.tenant.auth,
    payload: body,
  })
  assert.equal(response.statusCode, 200, response.body)
}

async function addExpert(
  ctx: TestContext,
  first: string,
  bio: string,
  { topics = [], hidden = false }: { topics?: string[]; hidden?: boolean } = {},
) {
  const username = await createExpert(ctx, ctx.tenant, { firstname: first, lastname: 'Tester' })
  expectOk(
    await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: ctx.tenant.orgId, username },
      body: { is_published: 1, is_private: hidden ? 1 : 0 },
    }),
  )
  for (const name of topics) await addSection(ctx, username, 'topic', { name })
  await addSection(ctx, username, 'biography', { biography: `<p>${bio}</p>` })
  return username
}

const matchNames = async (ctx: TestContext, text: string, token?: string) =>
  expectOk(
    await api(ctx.app, token ?? ctx.tenant).post('/v2/organization/{corporation}/expert/match', {
      params: { corporation: ctx.tenant.orgId },
      body: { text },
    }),
  ).experts.map((expert) => expert.firstname)

const similarNames = async (ctx: TestContext, username: string, token?: string) =>
  expectOk(
    await api(ctx.app, token ?? ctx.tenant).get('/v2/organization/{corporation}/expert/{username}/similar', {
      params: { corporation: ctx.tenant.orgId, username },
    }),
  ).experts.map((expert) => expert.firstname)

async function rowOf(ctx: TestContext, username: string) {
  const expert = present(await findExpert(dbOf(ctx), ctx.tenant.orgId, username))
  return present(
    await dbOf(ctx)
      .selectFrom('expert_embeddings')
      .selectAll()
      .where('org_id', '=', ctx.tenant.orgId)
      .where('expert_id', '=', expert.id)
      .executeTakeFirst(),
    `the embedding row of ${username}`,
  )
}

describeEachDialect('embeddings are off by default', (ctx) => {
  test('no provider, no rows, no request; finding by meaning answers as before', async () => {
    assert.equal(ctx.config.embeddingsUrl, undefined)
    assert.equal(ctx.app.embeddings, undefined)
    const before = server.requests.length
    const username = await addExpert(ctx, 'Olga', 'Olga treats heart failure.', { topics: ['Cardiology'] })
    assert.deepEqual(await matchNames(ctx, 'Who knows cardiology?'), ['Olga'])
    assert.deepEqual(await similarNames(ctx, username), [])
    const rows = await dbOf(ctx).selectFrom('expert_embeddings').select('expert_id').execute()
    assert.deepEqual(rows, [])
    assert.equal(server.requests.length, before)
  })
})

describeEachDialect(
  'embeddings from an OpenAI-compatible API',
  (ctx) => {
    const users = new Map<string, string>()
    const user = (first: string) => present(users.get(first), first)
    let publicToken = ''
    const loop = () => present(ctx.app.embeddings, 'embeddings').loop
    let requestsAtStart = 0

    before(async () => {
      requestsAtStart = server.requests.length
      users.set('Dan', await addExpert(ctx, 'Dan', 'Dan treats heart failure and high blood pressure.'))
      users.set('Eve', await addExpert(ctx, 'Eve', 'Eve runs clinical trials of heart drugs.'))
      users.set('Gina', await addExpert(ctx, 'Gina', 'Gina teaches copyright law and licensing.'))
      users.set('Ada', await addExpert(ctx, 'Ada', 'Ada models storm surge and coastal flood defences.'))
      users.set('Pia', await addExpert(ctx, 'Pia', 'Pia performs myocardial surgery.', { hidden: true }))
      const client = await createClient(dbOf(ctx), ctx.tenant.orgId, 'website', ctx.clock.now(), [
        'read:public',
      ])
      publicToken = await requestToken(ctx.app, client)
    })

    test('a write calls no provider; the loop embeds each expert once, with the key as a bearer token', async () => {
      const before = server.requests.length
      assert.equal(before, requestsAtStart, 'writes made no request')
      const counts = await loop().runOnce()
      assert.equal(counts.embedded, 5)
      assert.equal(counts.failed, 0)
      const sent = server.requests.slice(before)
      assert.ok(sent.length >= 1)
      for (const request of sent) {
        assert.equal(request.model, MODEL)
        assert.equal(request.authorization, `Bearer ${API_KEY}`)
      }
      assert.equal(sent.flatMap((request) => request.input).length, 5, 'each expert once')
      const dan = await rowOf(ctx, user('Dan'))
      assert.equal(dan.model, MODEL)
      assert.equal(dan.dimensions, DIMENSIONS)
      assert.equal(present(dan.vector).byteLength, DIMENSIONS * 4)
      assert.equal(dan.due_at, null)
      assert.equal(dan.error, null)
      assert.deepEqual(await loop().runOnce(), { embedded: 0, unchanged: 0, failed: 0 })
      assert.equal(server.requests.length, before + sent.length, 'nothing due: no request')
      assert.ok(!ctx.logs.join('\n').includes(API_KEY), 'the key is never logged')
    })

    test('a change makes the expert due; it is embedded again once, and a change beside the text costs no request', async () => {
      const versionBefore = (await rowOf(ctx, user('Gina'))).version
      await addSection(ctx, user('Gina'), 'topic', { name: 'Patents' })
      const due = await rowOf(ctx, user('Gina'))
      assert.equal(due.version, versionBefore + 1)
      assert.notEqual(due.due_at, null)
      const before = server.inputs().length
      assert.deepEqual(await loop().runOnce(), { embedded: 1, unchanged: 0, failed: 0 })
      const inputs = server.inputs().slice(before)
      assert.equal(inputs.length, 1)
      assert.match(inputs[0] ?? '', /^Patents\nGina teaches copyright law and licensing\.$/)
      assert.equal((await rowOf(ctx, user('Gina'))).due_at, null)

      expectOk(
        await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}/expert/{username}', {
          params: { corporation: ctx.tenant.orgId, username: user('Gina') },
          body: { job_title: 'Professor of law' },
        }),
      )
      assert.notEqual((await rowOf(ctx, user('Gina'))).due_at, null)
      const requests = server.requests.length
      assert.deepEqual(await loop().runOnce(), { embedded: 0, unchanged: 1, failed: 0 })
      assert.equal(server.requests.length, requests)
      assert.equal((await rowOf(ctx, user('Gina'))).due_at, null)
    })

    test('a write while the loop embeds keeps the expert due, so the newer text is embedded too', async () => {
      const expert = present(await findExpert(dbOf(ctx), ctx.tenant.orgId, user('Ada')))
      await addSection(ctx, user('Ada'), 'topic', { name: 'Sea level rise' })
      const { database } = ctx.testDatabase
      const slowProvider = openAiEmbeddings({ url: server.url, model: MODEL, batchSize: 8, timeoutMs: 5000 })
      const racing = createEmbeddingLoop({
        db: database.db,
        dialect: database.dialect,
        batchSize: 8,
        now: ctx.clock.now,
        provider: {
          model: MODEL,
          async embed(texts) {
            // A write lands between the read of the text and the store of its vector.
            await addSection(ctx, user('Ada'), 'topic', { name: 'Tsunami' })
            return slowProvider.embed(texts)
          },
        },
      })
      assert.equal((await racing.runOnce()).embedded, 1)
      const row = await dbOf(ctx)
        .selectFrom('expert_embeddings')
        .select(['due_at', 'version'])
        .where('org_id', '=', ctx.tenant.orgId)
        .where('expert_id', '=', expert.id)
        .executeTakeFirstOrThrow()
      assert.notEqual(row.due_at, null, 'still due after the write')
      const before = server.inputs().length
      assert.equal((await loop().runOnce()).embedded, 1)
      assert.match(server.inputs().slice(before).join('\n'), /Tsunami/)
      assert.equal((await rowOf(ctx, user('Ada'))).due_at, null)
    })

    test('embeddings find what words and concepts miss: "cardiac" finds the heart experts', async () => {
      const { db } = ctx.testDatabase.database
      const text = 'We need a cardiac specialist'
      assert.deepEqual(
        await matchExperts(db, ctx.tenant.orgId, text, 'all', 10),
        [],
        'no word nor concept matches',
      )
      const found = await matchNames(ctx, text)
      assert.deepEqual(found.slice(0, 3).sort(), ['Dan', 'Eve', 'Pia'])
      const [top] = expectOk(
        await api(ctx.app, ctx.tenant).post('/v2/organization/{corporation}/expert/match', {
          params: { corporation: ctx.tenant.orgId },
          body: { text },
        }),
      ).experts
      assert.deepEqual(top?.reasons, [], 'embeddings give no reason')

      assert.deepEqual(await similarExperts(db, ctx.tenant.orgId, user('Pia'), 'all', 10), [])
      assert.deepEqual((await similarNames(ctx, user('Pia'))).slice(0, 2).sort(), ['Dan', 'Eve'])
    })

    test('read:public never gets a hidden expert through embeddings', async () => {
      const text = 'We need a cardiac specialist'
      assert.ok((await matchNames(ctx, text)).includes('Pia'), 'a read token sees her')
      const found = await matchNames(ctx, text, publicToken)
      assert.ok(!found.includes('Pia'), found.join())
      assert.deepEqual(found.slice(0, 2).sort(), ['Dan', 'Eve'])
      for (const first of ['Dan', 'Eve', 'Ada', 'Gina'])
        assert.ok(!(await similarNames(ctx, user(first), publicToken)).includes('Pia'))
    })

    test('a provider that fails, hangs, throttles or is down leaves every answer standing', async () => {
      const text = 'heart failure care'
      const expected = await matchNames(ctx, 'heart failure')
      assert.ok(expected.includes('Dan'))
      for (const fault of [
        { kind: 'status', status: 500 },
        { kind: 'malformed' },
        { kind: 'hang' },
      ] as const) {
        server.fault(fault)
        const found = await matchNames(ctx, text)
        assert.ok(found.includes('Dan'), `${fault.kind}: ${found.join()}`)
        assert.ok(!found.includes('Pia'), `${fault.kind}: no embeddings, so no cardiac-only match`)
      }
      server.fault({ kind: 'status', status: 429, retryAfter: '120' })
      assert.ok((await matchNames(ctx, text)).includes('Dan'))
      server.fault(undefined)
      const requests = server.requests.length
      assert.ok((await matchNames(ctx, text)).includes('Dan'))
      assert.equal(server.requests.length, requests, 'paused by Retry-After: no request')
      ctx.clock.advance(121_000)
      assert.ok((await matchNames(ctx, text)).includes('Pia'), 'after the pause the text is embedded again')

      const down = await openSecondApp(ctx, { embeddingsUrl: `http://127.0.0.1:${await closedPort()}/v1` })
      try {
        const response = await api(down.app, ctx.tenant).post('/v2/organization/{corporation}/expert/match', {
          params: { corporation: ctx.tenant.orgId },
          body: { text },
        })
        assert.ok(expectOk(response).experts.some((expert) => expert.firstname === 'Dan'))
      } finally {
        await down.close()
      }
    })

    test('a failed batch keeps its error for a person, backs off, and is embedded once the API is back', async () => {
      const zoe = await addExpert(ctx, 'Zoe', 'Zoe studies coronary arteries.')
      server.fault({ kind: 'status', status: 500 })
      const failed = await loop().runOnce()
      assert.deepEqual(failed, { embedded: 0, unchanged: 0, failed: 1 })
      const row = await rowOf(ctx, zoe)
      assert.equal(row.attempts, 1)
      assert.equal(row.error, 'HTTP 500')
      assert.ok(Number(row.due_at) > ctx.clock.now(), 'tried again later')
      const [status] = await embeddingStatus(dbOf(ctx), MODEL, ctx.tenant.orgId)
      assert.equal(status?.failing, 1)
      assert.equal(status?.last_error, 'HTTP 500')
      server.fault(undefined)
      assert.deepEqual(
        await loop().runOnce(),
        { embedded: 0, unchanged: 0, failed: 0 },
        'not before its time',
      )
      ctx.clock.advance(31_000)
      assert.deepEqual(await loop().runOnce(), { embedded: 1, unchanged: 0, failed: 0 })
      const done = await rowOf(ctx, zoe)
      assert.equal(done.error, null)
      assert.equal(done.attempts, 0)
    })

    test('two loops on two connections embed each expert once; a dead holder is taken over after its lease', async () => {
      const names = ['Abe', 'Bea', 'Cal', 'Dee', 'Eli', 'Fay', 'Gus', 'Hal', 'Ike', 'Joy']
      for (const name of names) await addExpert(ctx, name, `${name} researches ${name.toLowerCase()}ology.`)
      const before = server.inputs().length
      const connections = [openDatabase(ctx.testDatabase.url), openDatabase(ctx.testDatabase.url)]
      try {
        const loops = connections.map((database) =>
          createEmbeddingLoop({
            db: database.db,
            dialect: database.dialect,
            batchSize: 2,
            now: ctx.clock.now,
            provider: openAiEmbeddings({ url: server.url, model: MODEL, batchSize: 2, timeoutMs: 5000 }),
          }),
        )
        const counts = await Promise.all(loops.map((each) => each.runOnce()))
        assert.equal(
          counts.reduce((sum, each) => sum + each.embedded, 0),
          names.length,
        )
        const sent = server.inputs().slice(before)
        assert.equal(sent.length, names.length, sent.join(' | '))
        assert.equal(new Set(sent).size, names.length, 'no text twice')

        // A process that took an expert and was killed: its lease is never renewed nor released.
        const kim = await addExpert(ctx, 'Kim', 'Kim studies river catchments.')
        const first = present(connections[0])
        await enrollExperts(first.db, ctx.clock.now())
        const claimed = await claimDue(first.db, first.dialect, ctx.tenant.orgId, {
          now: ctx.clock.now(),
          leaseMs: EMBEDDING_LEASE_MS,
          limit: 10,
          token: 'killed-process',
        })
        assert.deepEqual(
          claimed.map((row) => row.expert_id),
          [present(await findExpert(dbOf(ctx), ctx.tenant.orgId, kim)).id],
        )
        const second = present(loops[1])
        assert.equal((await second.runOnce()).embedded, 0, 'held by the dead process')
        ctx.clock.advance(EMBEDDING_LEASE_MS + 1)
        assert.equal((await second.runOnce()).embedded, 1, 'taken over after the lease')
        assert.equal((await rowOf(ctx, kim)).lock_token, null)
      } finally {
        await Promise.all(connections.map((database) => database.close()))
      }
    })

    test('expertdir embeddings run embeds what is due; embeddings status tells how far each organization is', async () => {
      const env = { EXPERTDIR_EMBEDDINGS_URL: server.url, EXPERTDIR_EMBEDDINGS_MODEL: MODEL }
      await addExpert(ctx, 'Lou', 'Lou studies glaciers.')
      const run = await runCli(['--db', ctx.testDatabase.url, 'embeddings', 'run', '--json'], env)
      assert.equal(run.code, 0, run.stderr)
      assert.deepEqual(JSON.parse(run.stdout), { embedded: 1, unchanged: 0, failed: 0 })
      const status = await runCli(
        ['--db', ctx.testDatabase.url, 'embeddings', 'status', '--org', String(ctx.tenant.orgId), '--json'],
        env,
      )
      assert.equal(status.code, 0, status.stderr)
      const experts = await dbOf(ctx)
        .selectFrom('experts')
        .select('id')
        .where('org_id', '=', ctx.tenant.orgId)
        .where('type', '=', 'expert')
        .execute()
      const [organization] = JSON.parse(status.stdout).organizations
      assert.equal(JSON.parse(status.stdout).model, MODEL)
      assert.equal(organization.experts, experts.length)
      assert.equal(organization.embedded, experts.length)
      assert.equal(organization.due, 0)
      assert.equal(organization.failing, 0)
      assert.equal(organization.last_error, null)
      const off = await runCli(['--db', ctx.testDatabase.url, 'embeddings', 'status'])
      assert.equal(off.code, 1)
      assert.match(off.stderr, /Embeddings are off/)
    })

    test('another model embeds every expert again, and the ranking reads only the configured model', async () => {
      const { database } = ctx.testDatabase
      const experts = await dbOf(ctx)
        .selectFrom('expert_embeddings')
        .select('expert_id')
        .where('vector', 'is not', null)
        .execute()
      const before = server.requests.length
      const newer = createEmbeddingLoop({
        db: database.db,
        dialect: database.dialect,
        batchSize: 64,
        now: ctx.clock.now,
        provider: openAiEmbeddings({ url: server.url, model: `${MODEL}-v2`, batchSize: 64, timeoutMs: 5000 }),
      })
      assert.equal((await newer.runOnce()).embedded, experts.length)
      assert.ok(server.requests.slice(before).every((request) => request.model === `${MODEL}-v2`))
      const models = await dbOf(ctx).selectFrom('expert_embeddings').select('model').distinct().execute()
      assert.deepEqual(
        models.map((row) => row.model),
        [`${MODEL}-v2`],
      )
      assert.ok(
        !(await matchNames(ctx, 'We need a cardiac specialist')).includes('Pia'),
        "no vector of the app's model",
      )
    })
  },
  {
    config: {
      embeddingsUrl: server.url,
      embeddingsModel: MODEL,
      embeddingsApiKey: API_KEY,
      embeddingsQueryTimeoutMs: 300,
    },
  },
)

describeEachDialect('embeddings cut short by a killed process', (ctx) => {
  test('SIGKILL while a batch is at the provider, then a restart: every expert embedded once, none left due', {
    timeout: 240_000,
  }, async () => {
    const names = ['Ines', 'Jon', 'Kai']
    const usernames = []
    for (const name of names) usernames.push(await addExpert(ctx, name, `${name} studies tidal marshes.`))
    const env = {
      EXPERTDIR_EMBEDDINGS_URL: server.url,
      EXPERTDIR_EMBEDDINGS_MODEL: MODEL,
      EXPERTDIR_EMBEDDINGS_TIMEOUT_MS: '120000',
      EXPERTDIR_EMBEDDINGS_LEASE_SECONDS: '2',
      EXPERTDIR_EMBEDDINGS_POLL_SECONDS: '1',
    }
    // The provider takes process A's batch and never answers: A holds every expert's lease when it dies.
    const asked = server.requests.length
    server.fault({ kind: 'hang' })
    const servers = [await startServerProcess(ctx.testDatabase.url, { env })]
    try {
      await eventually(() => server.requests.length === asked + 1, {
        what: 'process A is waiting for the provider',
        timeoutMs: 60_000,
      })
      assert.equal(present(server.requests[asked]).input.length, names.length, 'one batch of every expert')
      const first = present(servers[0])
      first.child.kill('SIGKILL')
      await first.exited
      const held = await dbOf(ctx).selectFrom('expert_embeddings').select(['lock_token', 'vector']).execute()
      assert.equal(held.length, names.length)
      assert.ok(
        held.every((row) => row.lock_token !== null && row.vector === null),
        'the killed process left its leases and no vector',
      )

      server.fault(undefined)
      servers.push(await startServerProcess(ctx.testDatabase.url, { env }))
      await eventually(
        async () => {
          const rows = await dbOf(ctx).selectFrom('expert_embeddings').select(['vector', 'due_at']).execute()
          return rows.every((row) => row.vector !== null && row.due_at === null) || undefined
        },
        {
          what: 'the restarted process embeds the experts after the lease',
          timeoutMs: 120_000,
          intervalMs: 200,
        },
      )
      const retried = server.requests.slice(asked + 1).flatMap((request) => request.input)
      assert.equal(
        retried.length,
        names.length,
        `each text sent once after the restart: ${retried.join(' | ')}`,
      )
      assert.equal(new Set(retried).size, names.length)
      for (const username of usernames) {
        const row = await rowOf(ctx, username)
        assert.equal(row.lock_token, null, 'no lease left')
        assert.equal(row.error, null)
      }
    } finally {
      server.fault(undefined)
      for (const process of servers) {
        if (process.child.exitCode === null) process.child.kill('SIGTERM')
        await process.exited
      }
    }
  })
})
