import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Config } from '../src/config.js'
import { findExpert } from '../src/experts/repository.js'
import { expertToSearch } from '../src/works/refresh.js'
import { nameAndAffiliationTerm } from '../src/works/sources/pubmed.js'
import { api, expectOk } from './helpers/api.js'
import { isRecord } from './helpers/checked.js'
import { runCli, type ServerProcess, startServerProcess } from './helpers/cli.js'
import { eventually } from './helpers/eventually.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'
import {
  CARBERRY,
  FIXTURE_FILES,
  jsonReply,
  ROUTES,
  fixtureText as readFixture,
  registerStandardFixtures,
  type SourceFixtureServer,
  startSourceFixtures,
} from './helpers/source-fixtures.js'

/**
 * The works importer end to end: the app's own connectors (`sourcesFrom(config)`) read a loopback
 * stand-in for ORCID, OpenAlex, Crossref and PubMed through their real HTTP path.
 */

const server = await startSourceFixtures()
registerStandardFixtures(server)
after(() => server.close())

const SHARED_DOI = '10.5555/carberry.2020.001'

const sourcesConfig = {
  sources: ['orcid', 'openalex', 'crossref', 'pubmed'],
  sourcesAllowPrivate: true,
  orcidUrl: `${server.url}/orcid`,
  orcidTokenUrl: `${server.url}/orcid-token`,
  openalexUrl: `${server.url}/openalex`,
  crossrefUrl: `${server.url}/crossref`,
  pubmedUrl: `${server.url}/pubmed`,
} satisfies Partial<Config>

/** An expert whose ORCID iD is Carberry's; PubMed's name search for it finds nothing. */
async function carberry(ctx: TestContext): Promise<string> {
  const username = await createExpert(ctx, ctx.tenant)
  expectOk(
    await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: ctx.tenant.orgId, username },
      body: { orcid: CARBERRY },
    }),
  )
  const expert = await findExpert(ctx.testDatabase.database.db, ctx.tenant.orgId, username)
  assert.ok(expert)
  const org = await ctx.testDatabase.database.db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', ctx.tenant.orgId)
    .executeTakeFirstOrThrow()
  const term = nameAndAffiliationTerm(expertToSearch(expert, org.name))
  if (term) server.json(ROUTES.pubmedSearch(term), 'pubmed-esearch-empty.json')
  return username
}

async function refreshOverApi(ctx: TestContext, username: string) {
  const client = api(ctx.app, ctx.tenant)
  const params = { corporation: ctx.tenant.orgId, username }
  const started = await client.post('/v2/organization/{corporation}/expert/{username}/works/refresh', {
    params,
  })
  assert.equal(started.statusCode, 202, started.body)
  // Wait for the run to end: the schedule's stop waits for the refreshes it started.
  await ctx.app.worksSchedule.stop()
  const { runs } = expectOk(
    await client.get('/v2/organization/{corporation}/imports', {
      params: { corporation: ctx.tenant.orgId },
      query: { username },
    }),
  )
  const [latest] = runs
  assert.ok(latest, 'the run is in the log')
  assert.notEqual(latest.status, 'running')
  return latest
}

async function listWorks(ctx: TestContext, username: string) {
  return expectOk(
    await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}/works', {
      params: { corporation: ctx.tenant.orgId, username },
      query: { page_size: 100 },
    }),
  ).works
}

async function articles(ctx: TestContext, username: string) {
  return expectOk(
    await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: ctx.tenant.orgId, username },
    }),
  ).article
}

describeEachDialect(
  'works importer against the sources',
  (ctx) => {
    test('one DOI from ORCID, OpenAlex and Crossref is one work whose fields name their sources', async () => {
      const username = await carberry(ctx)
      const run = await refreshOverApi(ctx, username)
      assert.deepEqual(run.errors, [])
      assert.equal(run.status, 'finished')
      // No key, contact address or client is configured: each source that ran says so in the run log.
      assert.deepEqual(
        run.notes.map((note) => note.source),
        ['orcid', 'openalex', 'crossref', 'pubmed'],
      )
      assert.match(run.notes.find((note) => note.source === 'openalex')?.message ?? '', /no OpenAlex API key/)
      assert.match(
        run.notes.find((note) => note.source === 'crossref')?.message ?? '',
        /no Crossref contact address/,
      )
      const works = await listWorks(ctx, username)
      const shared = works.filter((work) => work.doi === SHARED_DOI)
      assert.equal(shared.length, 1, 'the DOI three sources share is one work')
      const [work] = shared
      assert.ok(work)
      assert.ok(work.openalex_id, 'OpenAlex gave its id')
      const named = new Set(Object.values(work.provenance))
      assert.ok(named.has('crossref'), JSON.stringify(work.provenance))
      assert.equal(work.provenance.title, 'crossref')
      assert.equal(work.state, 'claimed', 'it is on the ORCID record')
      const dois = works.flatMap((each) => (each.doi ? [each.doi] : []))
      assert.equal(new Set(dois).size, dois.length, 'no DOI twice')
      const article = await articles(ctx, username)
      assert.equal(article.filter((element) => element.url === `https://doi.org/${SHARED_DOI}`).length, 1)
    })

    test('a refresh that finds nothing new changes nothing; a rejection survives a PMID added later', async () => {
      const username = await carberry(ctx)
      await refreshOverApi(ctx, username)
      const works = await listWorks(ctx, username)
      const target = works.find((work) => work.doi === SHARED_DOI)
      assert.ok(target)
      expectOk(
        await api(ctx.app, ctx.tenant).patch('/v2/organization/{corporation}/expert/{username}/works/{id}', {
          params: { corporation: ctx.tenant.orgId, username, id: target.id },
          body: { state: 'rejected' },
        }),
      )
      const before = { works: await listWorks(ctx, username), articles: await articles(ctx, username) }
      ctx.clock.advance(60_000)
      const second = await refreshOverApi(ctx, username)
      assert.deepEqual(second.errors, [])
      assert.deepEqual(
        [second.counts.created, second.counts.updated, second.counts.claimed, second.counts.pending],
        [0, 0, 0, 0],
      )
      assert.deepEqual(
        { works: await listWorks(ctx, username), articles: await articles(ctx, username) },
        before,
      )
      assert.equal(
        before.articles.filter((element) => element.url === `https://doi.org/${SHARED_DOI}`).length,
        0,
      )

      // PubMed now lists the shared DOI too, under the PMID OpenAlex gave it.
      const pmids = ['31234567', '29876543', '31234500']
      server.reply(ROUTES.pubmedSearch(`${CARBERRY}[auid]`), {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          esearchresult: { count: '3', retmax: '3', retstart: '0', idlist: pmids },
        }),
      })
      server.reply(ROUTES.pubmedFetch(pmids), {
        headers: { 'content-type': 'text/xml' },
        body: withSharedArticle(),
      })
      try {
        ctx.clock.advance(60_000)
        const third = await refreshOverApi(ctx, username)
        assert.deepEqual(third.errors, [])
        const afterPmid = await listWorks(ctx, username)
        const same = afterPmid.filter((work) => work.doi === SHARED_DOI)
        assert.equal(same.length, 1)
        assert.equal(same[0]?.pmid, '31234500')
        assert.equal(same[0]?.state, 'rejected')
        assert.equal(afterPmid.length, before.works.length)
        assert.equal(
          (await articles(ctx, username)).filter((element) => element.url === `https://doi.org/${SHARED_DOI}`)
            .length,
          0,
        )
      } finally {
        server.json(ROUTES.pubmedSearch(`${CARBERRY}[auid]`), 'pubmed-esearch-orcid.json')
      }
    })

    for (const fault of ['truncate', 'status 500'] as const) {
      test(`a ${fault === 'truncate' ? 'cut-short body' : '500'} becomes a run error a person can read, never a 500 from the API`, async () => {
        const username = await carberry(ctx)
        const route =
          fault === 'truncate' ? ROUTES.crossrefPage('*') : ROUTES.pubmedSearch(`${CARBERRY}[auid]`)
        const source = fault === 'truncate' ? 'crossref' : 'pubmed'
        // Every attempt of this refresh fails (a 500 is tried three times, a cut-off body once).
        const next = server.requests(route).length
        for (const call of fault === 'truncate' ? [1] : [1, 2, 3])
          server.fault(
            route,
            fault === 'truncate' ? { kind: 'truncate' } : { kind: 'status', status: 500 },
            next + call,
          )
        const run = await refreshOverApi(ctx, username)
        assert.deepEqual(
          run.errors.map((error) => error.source),
          [source],
        )
        const message = run.errors[0]?.message ?? ''
        assert.match(message, fault === 'truncate' ? /cut off/ : /HTTP 500/)
        // The other sources' works are kept.
        assert.ok((await listWorks(ctx, username)).some((work) => work.doi === SHARED_DOI))
      })
    }

    test('`expertdir works refresh --org --expert` prints the run', async () => {
      const username = await carberry(ctx)
      const env = {
        EXPERTDIR_SOURCES_ALLOW_PRIVATE: '1',
        EXPERTDIR_ORCID_URL: sourcesConfig.orcidUrl,
        EXPERTDIR_OPENALEX_URL: sourcesConfig.openalexUrl,
        EXPERTDIR_CROSSREF_URL: sourcesConfig.crossrefUrl,
        EXPERTDIR_PUBMED_URL: sourcesConfig.pubmedUrl,
      }
      const args = ['--db', ctx.testDatabase.url, 'works', 'refresh', '--org', String(ctx.tenant.orgId)]
      const printed = await runCli([...args, '--expert', username], env)
      assert.equal(printed.code, 0, printed.stderr)
      assert.match(printed.stdout, /Refreshed 1 expert\(s\)\./)
      assert.match(printed.stdout, new RegExp(username))
      const json = await runCli([...args, '--expert', username, '--json'], env)
      assert.equal(json.code, 0, json.stderr)
      const result: unknown = JSON.parse(json.stdout)
      assert.ok(isRecord(result) && Array.isArray(result.runs) && result.runs.length === 1, json.stdout)
      // The second run found what the first stored: nothing new.
      const [run] = result.runs
      assert.ok(isRecord(run) && isRecord(run.counts))
      assert.equal(run.counts.created, 0)
      assert.ok(Number(run.counts.found) > 0)
    })

    // Last: the pause it causes lasts an hour in this app.
    test('a 429 with a long Retry-After pauses that source only, and the run says so', async () => {
      const username = await carberry(ctx)
      const firstPage = ROUTES.openalexPage('*')
      server.fault(
        firstPage,
        { kind: 'status', status: 429, retryAfter: 'seconds', seconds: 3600 },
        server.requests(firstPage).length + 1,
      )
      const run = await refreshOverApi(ctx, username)
      assert.deepEqual(
        run.errors.map((error) => error.source),
        ['openalex'],
      )
      assert.ok(run.errors[0]?.message, 'the error is written for a person')
      assert.ok(run.counts.found > 0, 'the other sources gave their works')
      const works = await listWorks(ctx, username)
      assert.ok(works.some((work) => work.doi === SHARED_DOI))

      // The next refresh does not wait the hour out, nor ask OpenAlex again: the others still answer.
      const asked = server.log.filter((request) => request.path.startsWith('/openalex')).length
      const orcidAsked = server.log.filter((request) => request.path.startsWith('/orcid')).length
      const next = await refreshOverApi(ctx, await carberry(ctx))
      assert.deepEqual(
        next.errors.map((error) => error.source),
        ['openalex'],
      )
      assert.match(next.errors[0]?.message ?? '', /paused/)
      assert.equal(server.log.filter((request) => request.path.startsWith('/openalex')).length, asked)
      assert.ok(server.log.filter((request) => request.path.startsWith('/orcid')).length > orcidAsked)
    })
  },
  { config: sourcesConfig },
)

/** The PubMed fixture with one more article: the DOI the other three sources share, under its PMID. */
function withSharedArticle(): string {
  const base = FIXTURE_FILES.pubmedArticles[0]
  assert.ok(base)
  const shared = `<PubmedArticle><MedlineCitation><PMID Version="1">31234500</PMID><Article><ArticleTitle>Shared by every source</ArticleTitle></Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">31234500</ArticleId><ArticleId IdType="doi">${SHARED_DOI}</ArticleId></ArticleIdList></PubmedData></PubmedArticle>`
  return fixtureWithArticle(base, shared)
}

function fixtureWithArticle(file: string, article: string): string {
  return readFixture(file).replace('</PubmedArticleSet>', `${article}</PubmedArticleSet>`)
}

/** An ORCID iD from its first fifteen digits, with its ISO 7064 mod 11-2 check digit. */
function orcidOf(digits: string): string {
  let total = 0
  for (const digit of digits) total = (total + Number(digit)) * 2
  const check = (12 - (total % 11)) % 11
  const all = `${digits}${check === 10 ? 'X' : String(check)}`
  return `${all.slice(0, 4)}-${all.slice(4, 8)}-${all.slice(8, 12)}-${all.slice(12)}`
}

/** A fixture server on which every ORCID iD has one work of its own, and that logs who was asked. */
async function ownWorkPerOrcid(): Promise<SourceFixtureServer> {
  const processSources = await startSourceFixtures()
  processSources.handle('GET', '/orcid/', (_params, path) => {
    const orcid = path.split('/')[2] ?? ''
    // Put-codes of different records differ, as ORCID's do.
    const putCode = Number(orcid.replace(/\D/g, '').slice(-6))
    const externalIds = {
      'external-id': [
        {
          'external-id-type': 'doi',
          'external-id-value': `10.5555/own.${orcid}`,
          'external-id-relationship': 'self',
        },
      ],
    }
    if (!path.endsWith('/works'))
      return jsonReply({
        bulk: [
          {
            work: {
              'put-code': putCode,
              title: { title: { value: `The work of ${orcid}` } },
              type: 'journal-article',
              'external-ids': externalIds,
            },
          },
        ],
      })
    return jsonReply({
      'last-modified-date': { value: 1 },
      group: [
        {
          'external-ids': {
            'external-id': [
              {
                'external-id-type': 'doi',
                'external-id-value': `10.5555/own.${orcid}`,
                'external-id-relationship': 'self',
              },
            ],
          },
          'work-summary': [
            {
              'put-code': putCode,
              title: { title: { value: `The work of ${orcid}` } },
              type: 'journal-article',
            },
          ],
        },
      ],
    })
  })
  return processSources
}

const EXPERTS = 6

describeEachDialect('works schedule across processes', (ctx) => {
  let processSources: SourceFixtureServer
  before(async () => {
    processSources = await ownWorkPerOrcid()
  })
  after(() => processSources.close())

  test('two serve processes on one database refresh every expert exactly once', {
    timeout: 180_000,
  }, async () => {
    const orcids = Array.from({ length: EXPERTS }, (_, index) =>
      orcidOf(`000000021000${String(100 + index)}`),
    )
    const usernames: string[] = []
    for (const orcid of orcids) {
      const username = await createExpert(ctx, ctx.tenant)
      expectOk(
        await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}/expert/{username}', {
          params: { corporation: ctx.tenant.orgId, username },
          body: { orcid },
        }),
      )
      usernames.push(username)
    }
    const env = {
      EXPERTDIR_SOURCES: 'orcid',
      EXPERTDIR_SOURCES_ALLOW_PRIVATE: '1',
      EXPERTDIR_ORCID_URL: `${processSources.url}/orcid`,
    }
    const servers: ServerProcess[] = []
    try {
      servers.push(
        ...(await Promise.all([
          startServerProcess(ctx.testDatabase.url, { env }),
          startServerProcess(ctx.testDatabase.url, { env }),
        ])),
      )
      const db = ctx.testDatabase.database.db
      await eventually(
        async () => {
          const refreshed = await db
            .selectFrom('work_schedule')
            .select('expert_id')
            .where('org_id', '=', ctx.tenant.orgId)
            .where('last_refreshed_at', 'is not', null)
            .execute()
          return refreshed.length === EXPERTS
        },
        { what: 'every expert is refreshed', timeoutMs: 120_000, intervalMs: 200 },
      )
      for (const orcid of orcids) {
        const asked = processSources.log.filter((request) => request.path === `/orcid/${orcid}/works`)
        assert.equal(asked.length, 1, `${orcid} was read once`)
      }
      const runs = await db
        .selectFrom('work_runs')
        .select('expert_id')
        .where('org_id', '=', ctx.tenant.orgId)
        .where('trigger', '=', 'schedule')
        .execute()
      assert.equal(runs.length, EXPERTS, 'one run per expert')
      for (const username of usernames) {
        const works = await listWorks(ctx, username)
        assert.equal(works.length, 1)
        assert.equal(works[0]?.state, 'claimed')
      }
    } finally {
      for (const server of servers) {
        server.child.kill('SIGTERM')
        await server.exited
      }
    }
  })
})

describeEachDialect(
  'works refresh cut short by a killed process',
  (ctx) => {
    test('SIGKILL during a refresh, then a restart: it completes once, nothing duplicated, no decision lost', {
      timeout: 240_000,
    }, async () => {
      const db = ctx.testDatabase.database.db
      const username = await carberry(ctx)
      const expert = await findExpert(db, ctx.tenant.orgId, username)
      assert.ok(expert)
      await refreshOverApi(ctx, username)

      // A person's decisions: one work claimed, another rejected.
      const found = await listWorks(ctx, username)
      const [toClaim, toReject] = found.filter((work) => work.state !== 'claimed')
      const [claimedBefore] = found.filter((work) => work.state === 'claimed')
      assert.ok(toClaim && toReject, 'the fixtures give at least two works waiting for a decision')
      assert.ok(claimedBefore, 'and one on the ORCID record')
      const decided = expectOk(
        await api(ctx.app, ctx.tenant).post(
          '/v2/organization/{corporation}/expert/{username}/works/decisions',
          {
            params: { corporation: ctx.tenant.orgId, username },
            body: {
              decisions: [
                { id: toClaim.id, state: 'claimed' },
                { id: toReject.id, state: 'rejected' },
                { id: claimedBefore.id, state: 'rejected' },
              ],
            },
          },
        ),
      )
      assert.equal(decided.updated, 3)
      const stored = async () => ({
        works: await listWorks(ctx, username),
        articles: await articles(ctx, username),
        workRows: await db.selectFrom('works').select('id').where('org_id', '=', ctx.tenant.orgId).execute(),
        candidates: await db
          .selectFrom('work_candidates')
          .select(['work_id', 'state'])
          .where('org_id', '=', ctx.tenant.orgId)
          .orderBy('work_id')
          .execute(),
      })
      const before = await stored()
      const runsBefore = await db
        .selectFrom('work_runs')
        .select('id')
        .where('expert_id', '=', expert.id)
        .execute()

      // ORCID, the first source asked, answers process A's next request slowly.
      const asked = () => server.requests(ROUTES.orcidWorks).length
      const askedBefore = asked()
      server.fault(ROUTES.orcidWorks, { kind: 'delay', ms: 120_000 }, askedBefore + 1)
      const env = {
        EXPERTDIR_SOURCES_ALLOW_PRIVATE: '1',
        EXPERTDIR_ORCID_URL: sourcesConfig.orcidUrl,
        EXPERTDIR_OPENALEX_URL: sourcesConfig.openalexUrl,
        EXPERTDIR_CROSSREF_URL: sourcesConfig.crossrefUrl,
        EXPERTDIR_PUBMED_URL: sourcesConfig.pubmedUrl,
        EXPERTDIR_WORKS_LEASE_SECONDS: '2',
        EXPERTDIR_WORKS_POLL_SECONDS: '1',
      }
      const servers: ServerProcess[] = []
      try {
        const first = await startServerProcess(ctx.testDatabase.url, { env })
        servers.push(first)
        const started = await fetch(
          `${first.base}/v2/organization/${ctx.tenant.orgId}/expert/${username}/works/refresh`,
          { method: 'POST', headers: ctx.tenant.auth },
        )
        const text = await started.text()
        assert.equal(started.status, 202, text)
        const body: unknown = JSON.parse(text)
        assert.ok(isRecord(body) && isRecord(body.data) && typeof body.data.id === 'number')
        const killedRun = body.data.id
        await eventually(() => asked() === askedBefore + 1, {
          what: 'process A is waiting for ORCID',
          timeoutMs: 60_000,
        })
        first.child.kill('SIGKILL')
        await first.exited
        const left = await db
          .selectFrom('work_runs')
          .select('status')
          .where('id', '=', killedRun)
          .executeTakeFirstOrThrow()
        assert.equal(left.status, 'running', 'the killed process could not close its run')

        servers.push(await startServerProcess(ctx.testDatabase.url, { env }))
        const runs = await eventually(
          async () => {
            const rows = await db
              .selectFrom('work_runs')
              .selectAll()
              .where('expert_id', '=', expert.id)
              .where(
                'id',
                'not in',
                runsBefore.map((row) => row.id),
              )
              .orderBy('id')
              .execute()
            return rows.some((row) => row.status === 'finished') ? rows : undefined
          },
          { what: 'the restarted process refreshes the expert', timeoutMs: 120_000, intervalMs: 200 },
        )
        assert.deepEqual(
          runs.map((row) => [row.id === killedRun, row.status]),
          [
            [true, 'interrupted'],
            [false, 'finished'],
          ],
          'the killed run is closed as interrupted; the refresh completed once',
        )
        assert.match(runs[0]?.errors ?? '', /stopped before it finished/)
        assert.ok(runs[0]?.finished_at, 'the interrupted run has an end')
        assert.equal(asked(), askedBefore + 2, 'ORCID was asked once by each process')
        const after = await stored()
        assert.deepEqual(after, before, 'no work, candidate or article duplicated; every decision kept')
        const states = new Map(after.works.map((work) => [work.id, work.state]))
        assert.equal(states.get(toClaim.id), 'claimed')
        assert.equal(states.get(toReject.id), 'rejected')
        assert.equal(states.get(claimedBefore.id), 'rejected')
        const urls = after.articles.map((element) => element.url)
        assert.equal(new Set(urls).size, urls.length, 'no article twice')
        // The log served by the API says the same.
        const { runs: logged } = expectOk(
          await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/imports', {
            params: { corporation: ctx.tenant.orgId },
            query: { username },
          }),
        )
        assert.equal(logged.find((run) => run.id === killedRun)?.status, 'interrupted')
      } finally {
        for (const process of servers) {
          if (process.child.exitCode === null) process.child.kill('SIGTERM')
          await process.exited
        }
      }
    })
  },
  { config: sourcesConfig },
)
