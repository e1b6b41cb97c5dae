import assert from 'node:assert/strict'
import { test } from 'node:test'
import { findExpert } from '../src/experts/repository.js'
import { normalizeOrcid } from '../src/validation/orcid.js'
import { parseWorkFields } from '../src/works/fields.js'
import { normalizeDoi, titleFingerprint } from '../src/works/normalize.js'
import type { SourceName, SourceWork } from '../src/works/sources/source.js'
import { api, expectError, expectOk } from './helpers/api.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'
import { AuthoredSource, authoredWork } from './helpers/works.js'

/** The works importer over both databases, fed by authored test sources (CONTRACT §19, SOURCES.md §5). */

const ORCID = '0000-0002-1825-0097'
const orcid = new AuthoredSource('orcid')
const openalex = new AuthoredSource('openalex')
const crossref = new AuthoredSource('crossref')
const pubmed = new AuthoredSource('pubmed')
const sources = [orcid, openalex, crossref, pubmed]

test('ORCID iDs are checked with ISO 7064 mod 11-2 and stored with hyphens', () => {
  assert.equal(normalizeOrcid('0000-0002-1825-0097'), ORCID)
  assert.equal(normalizeOrcid('https://orcid.org/000000021825009 7'.replace(' ', '')), ORCID)
  assert.equal(normalizeOrcid('0000-0002-9079-593x'), '0000-0002-9079-593X')
  assert.equal(normalizeOrcid('0000-0002-1825-0098'), undefined)
  assert.equal(normalizeOrcid('0000-0002-1825'), undefined)
})

test('DOIs are matched bare and lower case; titles by fingerprint', () => {
  assert.equal(normalizeDoi('https://doi.org/10.1000/ABC%2F1'), '10.1000/abc/1')
  assert.equal(normalizeDoi('doi:10.1000/xyz'), '10.1000/xyz')
  assert.equal(normalizeDoi('not a doi'), undefined)
  assert.equal(titleFingerprint('<i>Café</i>  Études: a  Review!'), 'cafe etudes a review')
})

async function expertWithOrcid(ctx: TestContext, extra: Record<string, unknown> = {}) {
  const username = await createExpert(ctx, ctx.tenant)
  expectOk(
    await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: ctx.tenant.orgId, username },
      body: { orcid: `https://orcid.org/${ORCID}`, ...extra },
    }),
  )
  return username
}

/** An expert with the ORCID iD, whom each source finds with these works (none where not given). */
async function expertFinding(ctx: TestContext, found: Partial<Record<SourceName, SourceWork[]>>) {
  const username = await expertWithOrcid(ctx)
  for (const source of sources) source.works.set(ORCID, found[source.name] ?? [])
  return username
}

async function refresh(ctx: TestContext, username: string) {
  const expert = await findExpert(ctx.testDatabase.database.db, ctx.tenant.orgId, username)
  assert.ok(expert)
  const started = await ctx.app.worksSchedule.refreshNow(ctx.tenant.orgId, expert, {
    trigger: 'cli',
    trail: { actor: { kind: 'cli' }, action: 'cli works refresh' },
  })
  assert.ok(started, 'a refresh starts')
  return started.finished
}

async function listWorks(
  ctx: TestContext,
  username: string,
  state?: 'pending' | 'claimed' | 'rejected' | 'hidden',
) {
  return expectOk(
    await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}/works', {
      params: { corporation: ctx.tenant.orgId, username },
      ...(state ? { query: { state } } : {}),
    }),
  ).works
}

async function articles(ctx: TestContext, username: string) {
  const profile = expectOk(
    await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: ctx.tenant.orgId, username },
    }),
  )
  return profile.article
}

describeEachDialect(
  'works importer',
  (ctx) => {
    test('an ORCID iD with a wrong check digit is refused; a good one is stored bare with hyphens', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const client = api(ctx.app, ctx.tenant)
      const params = { corporation: ctx.tenant.orgId, username }
      const refused = expectError(
        await client.put('/v2/organization/{corporation}/expert/{username}', {
          params,
          body: { orcid: '0000-0002-1825-0098' },
        }),
        400,
        'validation_failed',
      )
      assert.ok(refused.details?.some((detail) => detail.field === 'orcid'))
      expectOk(
        await client.put('/v2/organization/{corporation}/expert/{username}', {
          params,
          body: {
            orcid: '000000021825009 7'.replace(' ', ''),
            orcid_policy: 'auto_claim',
            openalex_id: 'a5023888391',
          },
        }),
      )
      const [account] = expectOk(
        await client.get('/v2/organization/{corporation}/expert/{username}', { params }),
      ).account
      assert.equal(account?.orcid, ORCID)
      assert.equal(account?.orcid_policy, 'auto_claim')
      assert.equal(account?.openalex_id, 'A5023888391')
      assert.equal(account?.scopus_policy, 'suggest')
    })

    test('one DOI from three sources is one work, each field naming its source', async () => {
      const username = await expertFinding(ctx, {
        orcid: [
          authoredWork('orcid', {
            doi: '10.1000/three',
            orcidPutCode: '111',
            title: 'Three sources, one work',
            foundBecause: 'orcid_record',
          }),
        ],
        openalex: [
          authoredWork('openalex', {
            doi: 'https://doi.org/10.1000/THREE',
            openalexId: 'W123',
            title: 'Three Sources, One Work',
            abstract: 'An abstract rebuilt from the inverted index.',
            year: 2023,
          }),
        ],
        crossref: [
          authoredWork('crossref', {
            doi: '10.1000/three',
            title: 'Three sources, one work.',
            container: 'Journal of Tests',
            year: 2023,
            date: Date.UTC(2023, 4, 1) / 1000,
          }),
        ],
      })
      const run = await refresh(ctx, username)
      assert.equal(run.status, 'finished')
      assert.equal(run.counts.found, 3)
      assert.equal(run.counts.created, 1)
      const works = await listWorks(ctx, username)
      assert.equal(works.length, 1)
      const [work] = works
      assert.ok(work)
      assert.equal(work.doi, '10.1000/three')
      assert.equal(work.openalex_id, 'W123')
      assert.equal(work.title, 'Three sources, one work.')
      assert.deepEqual(work.provenance, {
        title: 'crossref',
        year: 'crossref',
        date: 'crossref',
        container: 'crossref',
        authors: 'crossref',
        abstract: 'openalex',
      })
      // On the expert's own ORCID record: claimed, and so in the article section.
      assert.equal(work.state, 'claimed')
      assert.equal(work.reason, 'orcid_record')
      const article = await articles(ctx, username)
      assert.equal(article.length, 1)
      assert.equal(article[0]?.title, 'Three sources, one work.')
      assert.equal(article[0]?.url, 'https://doi.org/10.1000/three')
      assert.equal(article[0]?.publisher, 'Journal of Tests')
    })

    test('one DOI from OpenAlex and PubMed: its concepts are the union of both, and a second refresh changes nothing', async () => {
      const username = await expertWithOrcid(ctx)
      const doi = '10.1000/concepts'
      orcid.works.set(ORCID, [])
      openalex.works.set(ORCID, [
        authoredWork('openalex', {
          doi,
          openalexId: 'W9001',
          title: 'Seeing lines',
          concepts: [
            { scheme: 'openalex_topic', id: 'T10764', label: 'Visual Perception', score: 0.99, major: true },
            {
              scheme: 'openalex_keyword',
              id: 'muller-lyer-illusion',
              label: 'Müller-Lyer illusion',
              score: 0.41,
              major: true,
            },
            { scheme: 'mesh', id: 'D009898', label: 'Optical Illusions', score: 1, major: true },
            { scheme: 'mesh', id: 'D006801', label: 'Humans (OpenAlex)', score: 1, major: false },
          ],
        }),
      ])
      pubmed.works.set(ORCID, [
        authoredWork('pubmed', {
          doi,
          pmid: '31239001',
          title: 'Seeing lines.',
          concepts: [
            { scheme: 'mesh', id: 'D006801', label: 'Humans', score: 1, major: false },
            { scheme: 'mesh', id: 'D009898', label: 'Optical Illusions', score: 1, major: false },
            { scheme: 'mesh', id: 'D014785', label: 'Vision, Ocular', score: 1, major: true },
          ],
        }),
      ])
      crossref.works.set(ORCID, [])
      try {
        const run = await refresh(ctx, username)
        assert.equal(run.counts.created, 1)
        const works = await listWorks(ctx, username)
        assert.equal(works.length, 1)
        const [work] = works
        assert.ok(work)
        assert.equal(work.pmid, '31239001')
        assert.equal(work.openalex_id, 'W9001')
        assert.equal(work.provenance.concepts, 'pubmed', 'the highest-ranked source that gave any')
        const storedFields = async () => {
          const row = await ctx.testDatabase.database.db
            .selectFrom('works')
            .select('fields')
            .where('org_id', '=', ctx.tenant.orgId)
            .where('id', '=', work.id)
            .executeTakeFirstOrThrow()
          return row.fields
        }
        const before = await storedFields()
        assert.deepEqual(parseWorkFields(before).concepts?.value, [
          { scheme: 'openalex_topic', id: 'T10764', label: 'Visual Perception', score: 0.99, major: true },
          {
            scheme: 'openalex_keyword',
            id: 'muller-lyer-illusion',
            label: 'Müller-Lyer illusion',
            score: 0.41,
            major: true,
          },
          // PubMed outranks OpenAlex for a shared heading's label; major when either says so.
          { scheme: 'mesh', id: 'D006801', label: 'Humans', score: 1, major: false },
          { scheme: 'mesh', id: 'D009898', label: 'Optical Illusions', score: 1, major: true },
          { scheme: 'mesh', id: 'D014785', label: 'Vision, Ocular', score: 1, major: true },
        ])
        ctx.clock.advance(60_000)
        const second = await refresh(ctx, username)
        assert.deepEqual(
          { created: second.counts.created, updated: second.counts.updated },
          { created: 0, updated: 0 },
        )
        assert.equal(await storedFields(), before, 'the stored text is the same')
      } finally {
        openalex.works.delete(ORCID)
        pubmed.works.delete(ORCID)
      }
    })

    test('refreshing twice changes nothing', async () => {
      const username = await expertFinding(ctx, {
        orcid: [
          authoredWork('orcid', {
            doi: '10.1000/twice',
            orcidPutCode: '222',
            title: 'Twice',
            foundBecause: 'orcid_record',
          }),
          authoredWork('orcid', {
            orcidPutCode: '223',
            title: 'No DOI, only a put-code',
            foundBecause: 'orcid_record',
          }),
        ],
        openalex: [authoredWork('openalex', { openalexId: 'W777', title: 'Suggested', score: 0.7 })],
      })
      await refresh(ctx, username)
      const before = { works: await listWorks(ctx, username), articles: await articles(ctx, username) }
      ctx.clock.advance(60_000)
      const second = await refresh(ctx, username)
      assert.deepEqual(
        {
          created: second.counts.created,
          updated: second.counts.updated,
          claimed: second.counts.claimed,
          pending: second.counts.pending,
        },
        { created: 0, updated: 0, claimed: 0, pending: 0 },
      )
      assert.deepEqual(
        { works: await listWorks(ctx, username), articles: await articles(ctx, username) },
        before,
      )
      assert.equal(before.articles.length, 2)
      assert.equal(before.works.find((work) => work.openalex_id === 'W777')?.state, 'pending')
    })

    test('a rejected work stays rejected when a later refresh adds its PMID, or finds it by the PMID alone', async () => {
      const username = await expertFinding(ctx, {
        openalex: [
          authoredWork('openalex', { doi: '10.1000/rejected', openalexId: 'W900', title: 'Not mine' }),
        ],
      })
      await refresh(ctx, username)
      const [work] = await listWorks(ctx, username)
      assert.ok(work)
      const client = api(ctx.app, ctx.tenant)
      const decided = expectOk(
        await client.patch('/v2/organization/{corporation}/expert/{username}/works/{id}', {
          params: { corporation: ctx.tenant.orgId, username, id: work.id },
          body: { state: 'rejected' },
        }),
      )
      assert.equal(decided.state, 'rejected')
      assert.equal(decided.decided_by, `client:${ctx.tenant.client.client_id}`)
      // A source adds a PMID to the same DOI; another gives the PMID and the OpenAlex id without the DOI.
      openalex.works.set(ORCID, [
        authoredWork('openalex', {
          doi: '10.1000/rejected',
          openalexId: 'W900',
          pmid: '4242',
          title: 'Not mine',
          foundBecause: 'orcid_record',
        }),
      ])
      await refresh(ctx, username)
      const after = await listWorks(ctx, username)
      assert.equal(after.length, 1)
      assert.equal(after[0]?.state, 'rejected')
      assert.equal(after[0]?.pmid, '4242')
      assert.deepEqual(await articles(ctx, username), [])
    })

    test('a claimed work is in the article section, the profile and search; unclaiming removes it', async () => {
      const username = await expertFinding(ctx, {
        openalex: [
          authoredWork('openalex', {
            doi: '10.1000/zygomorphic',
            title: 'Zygomorphic petals of orchids',
            year: 2020,
          }),
        ],
      })
      await refresh(ctx, username)
      const [work] = await listWorks(ctx, username, 'pending')
      assert.ok(work)
      const client = api(ctx.app, ctx.tenant)
      const params = { corporation: ctx.tenant.orgId, username }
      expectOk(
        await client.post('/v2/organization/{corporation}/expert/{username}/works/decisions', {
          params,
          body: { decisions: [{ id: work.id, state: 'claimed' }] },
        }),
      )
      const article = await articles(ctx, username)
      assert.equal(article.length, 1)
      assert.equal(article[0]?.title, 'Zygomorphic petals of orchids')
      assert.equal(article[0]?.date, Date.UTC(2020, 0, 1) / 1000)
      const found = expectOk(
        await client.get('/v2/organization/{corporation}/expert', {
          params: { corporation: ctx.tenant.orgId },
          query: { q: 'zygomorphic' },
        }),
      )
      assert.ok(JSON.stringify(found).includes(username), 'search finds the expert by the article')
      // A later refresh with new metadata updates the element in place.
      const [before] = article
      openalex.works.set(ORCID, [
        authoredWork('openalex', {
          doi: '10.1000/zygomorphic',
          title: 'Zygomorphic petals of orchids',
          year: 2020,
          container: 'Orchid Letters',
        }),
      ])
      await refresh(ctx, username)
      const updated = await articles(ctx, username)
      assert.equal(updated.length, 1)
      assert.equal(updated[0]?.id, before?.id)
      assert.equal(updated[0]?.publisher, 'Orchid Letters')
      expectOk(
        await client.patch('/v2/organization/{corporation}/expert/{username}/works/{id}', {
          params: { ...params, id: work.id },
          body: { state: 'hidden' },
        }),
      )
      assert.deepEqual(await articles(ctx, username), [])
    })

    test('decisions are all or nothing: an unknown work refuses the whole request', async () => {
      const username = await expertFinding(ctx, {
        openalex: [authoredWork('openalex', { doi: '10.1000/atomic', title: 'Atomic' })],
      })
      await refresh(ctx, username)
      const [work] = await listWorks(ctx, username)
      assert.ok(work)
      const refused = expectError(
        await api(ctx.app, ctx.tenant).post(
          '/v2/organization/{corporation}/expert/{username}/works/decisions',
          {
            params: { corporation: ctx.tenant.orgId, username },
            body: {
              decisions: [
                { id: work.id, state: 'claimed' },
                { id: 999_999, state: 'rejected' },
              ],
            },
          },
        ),
        404,
        'not_found',
      )
      assert.match(refused.message, /999999/)
      assert.equal((await listWorks(ctx, username))[0]?.state, 'pending')
    })

    test('a weaker key never joins works with different DOIs: two DOIs sharing a put-code and a PMID are two works', async () => {
      const username = await expertFinding(ctx, {
        orcid: [
          authoredWork('orcid', {
            doi: '10.1000/first',
            pmid: '4242',
            orcidPutCode: '900',
            title: 'First',
            foundBecause: 'orcid_record',
          }),
          authoredWork('orcid', {
            doi: '10.1000/second',
            pmid: '4242',
            orcidPutCode: '900',
            title: 'Second',
            foundBecause: 'orcid_record',
          }),
        ],
      })
      const run = await refresh(ctx, username)
      assert.deepEqual(run.errors, [])
      const dois = (await listWorks(ctx, username)).map((work) => work.doi).sort()
      assert.deepEqual(dois, ['10.1000/first', '10.1000/second'])
    })

    test('a title, year and first author match is a possible duplicate, never a merge', async () => {
      const username = await expertFinding(ctx, {
        openalex: [
          authoredWork('openalex', { doi: '10.1000/dup-a', title: 'A Study of Duplicates', year: 2019 }),
          authoredWork('openalex', { doi: '10.9999/dup-b', title: 'A study of duplicates.', year: 2020 }),
        ],
      })
      await refresh(ctx, username)
      const works = await listWorks(ctx, username)
      assert.equal(works.length, 2)
      const [a, b] = works
      assert.deepEqual(a?.possible_duplicates, [b?.id])
      assert.deepEqual(b?.possible_duplicates, [a?.id])
    })

    test('policies: auto_reject rejects with the reason kept; a typed ORCID never auto-claims an identifier match', async () => {
      const rejecting = await expertWithOrcid(ctx, { orcid_policy: 'auto_reject' })
      const claiming = await expertWithOrcid(ctx, { orcid_policy: 'auto_claim' })
      orcid.works.set(ORCID, [])
      crossref.works.set(ORCID, [
        authoredWork('crossref', { doi: '10.1000/policy', title: 'Policy', score: 0.6 }),
      ])
      openalex.works.set(ORCID, [])
      await refresh(ctx, rejecting)
      await refresh(ctx, claiming)
      const [rejected] = await listWorks(ctx, rejecting)
      assert.equal(rejected?.state, 'rejected')
      assert.equal(rejected?.decided_by, 'system')
      assert.ok(rejected?.note)
      const [pending] = await listWorks(ctx, claiming)
      assert.equal(pending?.state, 'pending')
      assert.equal(pending?.score, 0.9)
    })

    test('a failing source is an error of the run; a skipped one a note; a DOI without metadata is kept', async () => {
      const username = await expertWithOrcid(ctx)
      orcid.works.set(ORCID, [
        authoredWork('orcid', { doi: '10.1000/bare', orcidPutCode: '555', foundBecause: 'orcid_record' }),
      ])
      crossref.skip = 'EXPERTDIR_CROSSREF_MAILTO is not set'
      openalex.failWith = 'OpenAlex answered 503'
      try {
        const run = await refresh(ctx, username)
        assert.deepEqual(run.errors, [{ source: 'openalex', message: 'OpenAlex answered 503' }])
        assert.deepEqual(run.notes, [{ source: 'crossref', message: 'EXPERTDIR_CROSSREF_MAILTO is not set' }])
      } finally {
        crossref.skip = null
        openalex.failWith = undefined
      }
      const [work] = await listWorks(ctx, username)
      assert.equal(work?.doi, '10.1000/bare')
      assert.equal(work?.title, null)
      assert.equal(work?.state, 'claimed')
      // No title yet: not an article until a source gives its metadata.
      assert.deepEqual(await articles(ctx, username), [])
      const runs = expectOk(
        await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/imports', {
          params: { corporation: ctx.tenant.orgId },
          query: { username },
        }),
      ).runs
      assert.equal(runs[0]?.errors[0]?.source, 'openalex')
    })
  },
  { workSources: sources },
)
