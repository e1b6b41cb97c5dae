import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import type { Config } from '../src/config.js'
import { findExpert } from '../src/experts/repository.js'
import { expertToSearch } from '../src/works/refresh.js'
import { nameAndAffiliationTerm } from '../src/works/sources/pubmed.js'
import { api, expectOk } from './helpers/api.js'
import { isRecord } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'
import {
  CARBERRY,
  FIXTURE_FILES,
  ROUTES,
  fixtureText as readFixture,
  registerStandardFixtures,
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
