import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { type Config, loadConfig } from '../src/config.js'
import { parseXml } from '../src/works/sources/client.js'
import { conceptScore, unionConcepts } from '../src/works/sources/concepts.js'
import { type SourcesDeps, sourcesFrom } from '../src/works/sources/index.js'
import {
  normalizeDoi,
  normalizeMeshUi,
  normalizeOpenalexKeywordId,
  normalizeOpenalexTopicId,
  normalizeOrcid,
  normalizePmid,
  orcidCheckDigit,
  titleFingerprint,
  unixDate,
} from '../src/works/sources/normalize.js'
import { rebuildAbstract } from '../src/works/sources/openalex.js'
import { Pacer, retryAfterMs, systemClock } from '../src/works/sources/pacer.js'
import { PUBMED_REPEATABLE } from '../src/works/sources/pubmed.js'
import {
  CrossrefWorksShape,
  OpenalexAuthorShape,
  OpenalexWorksShape,
  OrcidBulkShape,
  OrcidTokenShape,
  OrcidWorksShape,
  PubmedArticleSetShape,
  PubmedSearchShape,
  shapeDrift,
} from '../src/works/sources/shapes.js'
import {
  type ExpertToSearch,
  type Source,
  SourceError,
  type SourceName,
  type SourceWork,
  type WorkConcept,
} from '../src/works/sources/source.js'
import { runCli } from './helpers/cli.js'
import {
  CARBERRY,
  FIXTURE_FILES,
  fixtureJson,
  fixtureText,
  HYPER,
  HYPER_WORKS,
  jsonReply,
  ROUTES,
  registerStandardFixtures,
  type SourceFixtureServer,
  startSourceFixtures,
} from './helpers/source-fixtures.js'
import { VirtualClock } from './helpers/virtual-clock.js'

const carberry: ExpertToSearch = {
  orcid: CARBERRY,
  familyName: 'Carberry',
  givenNames: 'Josiah',
  affiliation: 'Brown University',
}
const hyper: ExpertToSearch = { orcid: HYPER, familyName: 'Hyper', givenNames: 'Author' }

function fixtureConfig(server: SourceFixtureServer, overrides: Partial<Config> = {}): Config {
  return loadConfig(
    {
      sourcesAllowPrivate: true,
      sourcesTimeoutMs: 1500,
      orcidUrl: `${server.url}/orcid`,
      orcidTokenUrl: `${server.url}/orcid-token`,
      openalexUrl: `${server.url}/openalex`,
      crossrefUrl: `${server.url}/crossref`,
      crossrefMailto: 'ops@example.org',
      pubmedUrl: `${server.url}/pubmed`,
      ...overrides,
    },
    {},
  )
}

/** One connector of a configuration. */
function connector(config: Config, name: SourceName, deps: SourcesDeps = {}): Source {
  const source = sourcesFrom({ ...config, sources: [name] }, deps)[0]
  if (!source) throw new Error(`no ${name} connector`)
  return source
}

async function collect(source: Source, expert: ExpertToSearch): Promise<SourceWork[]> {
  const works: SourceWork[] = []
  for await (const work of source.worksFor(expert)) works.push(work)
  return works
}

/** The error a run ends with; fails the test when it ends without one. */
async function failure(run: Promise<unknown>): Promise<SourceError> {
  try {
    await run
  } catch (error) {
    if (error instanceof SourceError) return error
    throw error
  }
  assert.fail('expected a SourceError')
}

const day = (year: number, month?: number, date?: number) => unixDate(year, month, date)

let server: SourceFixtureServer
let clock: VirtualClock

before(async () => {
  clock = new VirtualClock()
  server = await startSourceFixtures({ now: clock.now })
  registerStandardFixtures(server)
})
after(() => server.close())

describe('golden replies become SourceWorks', () => {
  test('ORCID: one work per group, only self DOIs, full works in one bulk call, an unreadable put-code kept from its summary', async () => {
    const before = server.log.length
    const works = await collect(connector(fixtureConfig(server), 'orcid', { clock }), carberry)
    assert.deepEqual(works, [
      {
        source: 'orcid',
        doi: '10.5555/carberry.2020.001',
        orcidPutCode: '1001',
        title: 'Pencils and the Mind: A Study',
        year: 2020,
        date: day(2020, 3, 15),
        container: 'Journal of Brown University Studies',
        authors: [
          { name: 'Josiah Carberry', orcid: CARBERRY, position: 'first' },
          { name: 'Zoë Müller', orcid: '0000-0001-5555-4447', position: 'middle' },
          { name: 'Łukasz Żółć', orcid: '0000-0002-9999-111X', position: 'last' },
        ],
        abstract: 'We study pencils & minds.',
        type: 'journal-article',
        url: 'https://example.org/pencils',
        foundBecause: 'orcid_record',
        score: 1,
      },
      {
        source: 'orcid',
        orcidPutCode: '1003',
        title: 'A chapter on psychoceramics',
        year: 2019,
        date: day(2019, 11),
        container: 'The Handbook of Cracked Pots',
        authors: [{ name: 'Josiah Carberry', orcid: CARBERRY, position: 'first' }],
        type: 'book-chapter',
        foundBecause: 'orcid_record',
        score: 1,
      },
      {
        source: 'orcid',
        pmid: '31234567',
        orcidPutCode: '1004',
        title: 'Über die Strömung in gesprungenen Töpfen',
        year: 2018,
        date: day(2018),
        container: 'Zeitschrift für Keramik',
        authors: [],
        type: 'journal-article',
        foundBecause: 'orcid_record',
        score: 1,
      },
    ])
    assert.deepEqual(
      server.log.slice(before).map((entry) => `${entry.method} ${entry.path}`),
      [ROUTES.orcidWorks, ROUTES.orcidBulk],
      'the summaries, then one bulk call for the three groups',
    )
  })

  test('ORCID: with client credentials a token is minted once and sent as a bearer', async () => {
    const before = server.log.length
    const config = fixtureConfig(server, { orcidClientId: 'APP-1', orcidClientSecret: 'secret' })
    const source = connector(config, 'orcid', { clock })
    assert.equal((await collect(source, carberry)).length, 3)
    const requests = server.log.slice(before)
    assert.deepEqual(
      requests.map((entry) => `${entry.method} ${entry.path}`),
      ['POST /orcid-token', `GET /orcid/${CARBERRY}/works`, `GET /orcid/${CARBERRY}/works/1001,1003,1004`],
    )
    assert.equal(requests[0]?.params.get('grant_type'), 'client_credentials')
    assert.equal(requests[1]?.headers.authorization, 'Bearer fixture-token')
    assert.deepEqual(source.notes?.(), [])
    assert.match(connector(fixtureConfig(server), 'orcid').notes?.()[0]?.message ?? '', /anonymously/)
  })

  test('OpenAlex: cursor pages to the end, abstracts rebuilt, the author list cut at 100, a missing index is no abstract', async () => {
    const before = server.log.length
    const config = fixtureConfig(server, { openalexApiKey: 'key-1' })
    const works = await collect(connector(config, 'openalex', { clock }), carberry)
    assert.equal(works.length, 3)
    const [first, crowded, french] = works
    assert.deepEqual(first, {
      source: 'openalex',
      doi: '10.5555/carberry.2020.001',
      pmid: '31234500',
      openalexId: 'W3000000001',
      title: 'Pencils and the Mind: A Study',
      year: 2020,
      date: day(2020, 3, 15),
      container: 'Journal of Brown University Studies',
      authors: [
        { name: 'Josiah Carberry', orcid: CARBERRY, position: 'first' },
        { name: 'Zoë Müller', orcid: '0000-0001-5555-4447', position: 'last' },
      ],
      abstract: 'We study pencils and minds; sharp pencils win.',
      type: 'article',
      url: 'https://doi.org/10.5555/carberry.2020.001',
      concepts: [
        {
          scheme: 'openalex_topic',
          id: 'T10764',
          label: 'Visual Perception and Processing Mechanisms',
          score: 0.9987,
          major: true,
        },
        {
          scheme: 'openalex_topic',
          id: 'T12162',
          label: 'Handwriting and Writing Instruments',
          score: 0.9712,
          major: true,
        },
        { scheme: 'openalex_keyword', id: 'pencil', label: 'Pencil', score: 0.6, major: true },
        {
          scheme: 'openalex_keyword',
          id: 'muller-lyer-illusion',
          label: 'Müller-Lyer illusion',
          score: 0.41,
          major: true,
        },
        // Two rows of one descriptor (with and without a qualifier): one concept, major from either.
        { scheme: 'mesh', id: 'D006801', label: 'Humans', score: 1, major: false },
        { scheme: 'mesh', id: 'D009898', label: 'Optical Illusions', score: 1, major: true },
      ],
      foundBecause: 'identifier',
      score: 0.85,
    })
    assert.deepEqual(
      crowded?.concepts?.map((concept) => [concept.scheme, concept.id, concept.score]),
      [
        ['openalex_topic', 'T13154', 0.0001],
        ['openalex_topic', 'T14235', 0.0001],
        ['openalex_topic', 'T14423', 0.0001],
      ],
      'low-score topics are kept as given: dropping them is for the fingerprints',
    )
    assert.equal(crowded?.authors.length, 100)
    assert.equal(crowded?.doi, undefined)
    assert.equal(
      crowded?.authors.some((author) => author.orcid === CARBERRY),
      false,
      'the expert is the 101st author, cut by OpenAlex',
    )
    assert.equal(french?.doi, '10.5555/carberry.2017.9')
    assert.equal(french?.title, 'Sur la céramique fêlée')
    assert.equal(french?.abstract, undefined)
    assert.equal(french?.container, undefined)
    const requests = server.log.slice(before)
    assert.deepEqual(
      requests.map((entry) => entry.params.get('cursor')),
      ROUTES.openalexCursors,
    )
    assert.ok(requests.every((entry) => entry.params.get('api_key') === 'key-1'))
    assert.match(
      connector(fixtureConfig(server), 'openalex').notes?.()[0]?.message ?? '',
      /no OpenAlex API key/,
    )
  })

  test('OpenAlex: a merged author id follows the 301 and reads the works of the id it was merged into', async () => {
    const works = await collect(connector(fixtureConfig(server), 'openalex', { clock }), {
      ...carberry,
      orcid: undefined,
      openalexId: 'A5000000123',
    })
    assert.equal(works.length, 3)
    assert.equal(works[0]?.score, 0.8)
    assert.ok(server.requests('GET /openalex/authors/A5000000777').length > 0)
  })

  test('Crossref: authenticated-orcid per author, [[null]] dates, JATS abstracts stripped, title and container arrays', async () => {
    const signedIn = await collect(connector(fixtureConfig(server), 'crossref', { clock }), {
      ...carberry,
      orcidAuthenticated: true,
    })
    assert.deepEqual(signedIn, [
      {
        source: 'crossref',
        doi: '10.5555/carberry.2020.001',
        title: 'Pencils and the Mind: A Study',
        year: 2020,
        date: day(2020, 3, 15),
        container: 'Journal of Brown University Studies',
        authors: [
          { name: 'Josiah Carberry', orcid: CARBERRY, orcidAuthenticated: true, position: 'first' },
          { name: 'Zoë Müller', orcid: '0000-0001-5555-4447', position: 'last' },
        ],
        abstract: 'We study pencils and minds.',
        type: 'journal-article',
        url: 'https://doi.org/10.5555/carberry.2020.001',
        foundBecause: 'authenticated_orcid',
        score: 1,
      },
      {
        source: 'crossref',
        doi: '10.5555/carberry.undated',
        title: 'An undated note',
        authors: [
          { name: 'Josiah Carberry', orcid: CARBERRY, position: 'first' },
          { name: 'The Psychoceramics Consortium', position: 'last' },
        ],
        type: 'posted-content',
        url: 'https://doi.org/10.5555/carberry.undated',
        foundBecause: 'identifier',
        score: 0.85,
      },
      {
        source: 'crossref',
        doi: '10.5555/carberry.2016.x',
        title: 'Cracks, a year later',
        year: 2016,
        date: day(2016),
        container: 'Letters in Ceramics',
        authors: [{ name: 'Josiah Carberry', position: 'first' }],
        type: 'journal-article',
        url: 'https://doi.org/10.5555/carberry.2016.x',
        foundBecause: 'identifier',
        score: 0.7,
      },
    ])
    const typedIn = await collect(connector(fixtureConfig(server), 'crossref', { clock }), carberry)
    assert.deepEqual(
      typedIn.map((work) => [work.foundBecause, work.score]),
      [
        ['identifier', 0.85],
        ['identifier', 0.85],
        ['identifier', 0.7],
      ],
      'a typed-in iD never gives authenticated_orcid',
    )
  })

  test('PubMed: ORCID and name + affiliation searches, MedlineDate, inline tags, the three ORCID forms', async () => {
    const works = await collect(connector(fixtureConfig(server), 'pubmed', { clock }), carberry)
    assert.deepEqual(works, [
      {
        source: 'pubmed',
        pmid: '31234567',
        doi: '10.5555/keramik.2018.12',
        title: 'Über die Strömung in gesprungenen Töpfen: H2O & more.',
        year: 2018,
        date: day(2018, 3),
        container: 'Zeitschrift für Keramik',
        authors: [
          { name: 'Josiah Carberry', orcid: CARBERRY, position: 'first' },
          { name: 'Zoë Müller', position: 'last' },
        ],
        abstract: 'BACKGROUND: Pots crack.\nRESULTS: Water flows through them.',
        type: 'Journal Article',
        url: 'https://pubmed.ncbi.nlm.nih.gov/31234567/',
        concepts: [
          { scheme: 'mesh', id: 'D003412', label: 'Ceramics', score: 1, major: true },
          { scheme: 'mesh', id: 'D005858', label: 'Germany', score: 1, major: false },
          { scheme: 'mesh', id: 'D006801', label: 'Humans', score: 1, major: false },
          { scheme: 'mesh', id: 'D008422', label: 'Materials Testing', score: 1, major: false },
          // Major through its qualifier (physiology, MajorTopicYN="Y").
          { scheme: 'mesh', id: 'D014867', label: 'Water', score: 1, major: true },
        ],
        foundBecause: 'identifier',
        score: 0.85,
      },
      {
        source: 'pubmed',
        pmid: '29876543',
        title: 'Glaze and memory.',
        year: 2017,
        date: day(2017, 2, 7),
        container: 'Letters in Ceramics',
        authors: [
          { name: 'Łukasz Żółć', orcid: '0000-0002-9999-111X', position: 'first' },
          { name: 'Josiah Carberry', orcid: CARBERRY, position: 'last' },
        ],
        type: 'Journal Article',
        url: 'https://pubmed.ncbi.nlm.nih.gov/29876543/',
        foundBecause: 'identifier',
        score: 0.85,
      },
      {
        source: 'pubmed',
        pmid: '27000001',
        title: 'A consortium report on kilns.',
        year: 2015,
        date: day(2015),
        container: 'Journal of Brown University Studies',
        authors: [
          { name: 'J Carberry', position: 'first' },
          { name: 'Kiln Study Group', position: 'last' },
        ],
        url: 'https://pubmed.ncbi.nlm.nih.gov/27000001/',
        foundBecause: 'name_affiliation',
        score: 0.4,
      },
    ])
  })

  test('PubMed: a name without an affiliation is never searched', async () => {
    const before = server.log.length
    const works = await collect(connector(fixtureConfig(server), 'pubmed', { clock }), {
      familyName: 'Carberry',
      givenNames: 'Josiah',
    })
    assert.deepEqual(works, [])
    assert.equal(server.log.length, before)
  })
})

describe('faults end in a retry or a SourceError, never a crash or a hang', () => {
  const crossrefFirst = ROUTES.crossrefPage('*')

  test('a 500, a 503 with Retry-After in seconds and a 429 with an HTTP date are retried', async () => {
    for (const fault of [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 503, retryAfter: 'seconds' },
      { kind: 'status', status: 429, retryAfter: 'date' },
    ] as const) {
      const fresh = await startSourceFixtures({ now: clock.now })
      registerStandardFixtures(fresh)
      fresh.fault(crossrefFirst, fault, 1)
      const works = await collect(connector(fixtureConfig(fresh), 'crossref', { clock }), carberry)
      assert.equal(works.length, 3, `${fault.status} then success`)
      assert.equal(fresh.requests(crossrefFirst).length, 2)
      await fresh.close()
    }
  })

  test('a 429 asking for longer than a request waits is a SourceError with retryAt', async () => {
    const fresh = await startSourceFixtures({ now: clock.now })
    registerStandardFixtures(fresh)
    fresh.fault(crossrefFirst, { kind: 'status', status: 429, retryAfter: 'seconds', seconds: 3600 })
    const started = clock.now()
    const error = await failure(collect(connector(fixtureConfig(fresh), 'crossref', { clock }), carberry))
    assert.equal(error.source, 'crossref')
    assert.match(error.message, /HTTP 429/)
    assert.equal(error.retryAt, started + 3_600_000)
    assert.equal(fresh.requests(crossrefFirst).length, 1)
    await fresh.close()
  })

  test('OpenAlex: a 429 without Retry-After pauses until midnight UTC (its daily budget)', async () => {
    const fresh = await startSourceFixtures({ now: clock.now })
    registerStandardFixtures(fresh)
    fresh.fault(ROUTES.openalexPage('*'), { kind: 'status', status: 429 })
    const error = await failure(collect(connector(fixtureConfig(fresh), 'openalex', { clock }), carberry))
    const now = new Date(clock.now())
    assert.equal(error.retryAt, Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
    await fresh.close()
  })

  test('persistent 500s, 404, a hang, a truncated body, malformed JSON and XML, and drift are SourceErrors', async () => {
    const cases: [
      route: string,
      fault: Parameters<SourceFixtureServer['fault']>[1] | 'drift',
      source: SourceName,
      message: RegExp,
    ][] = [
      [crossrefFirst, { kind: 'status', status: 500 }, 'crossref', /HTTP 500/],
      [crossrefFirst, { kind: 'status', status: 404 }, 'crossref', /HTTP 404/],
      [crossrefFirst, { kind: 'hang' }, 'crossref', /no reply within 1500 ms|cut off/],
      [crossrefFirst, { kind: 'truncate' }, 'crossref', /cut off/],
      [crossrefFirst, { kind: 'malformed' }, 'crossref', /not valid JSON/],
      [ROUTES.orcidWorks, { kind: 'malformed' }, 'orcid', /not valid JSON/],
      [
        ROUTES.pubmedFetch(['31234567', '29876543', '27000001']),
        { kind: 'malformed' },
        'pubmed',
        /not valid XML/,
      ],
      [ROUTES.openalexPage('*'), 'drift', 'openalex', /\/results\/0\/authorships: must be array/],
    ]
    for (const [route, fault, name, message] of cases) {
      const fresh = await startSourceFixtures({ now: clock.now })
      registerStandardFixtures(fresh)
      if (fault === 'drift') {
        const page = fixtureJson(FIXTURE_FILES.openalexPages[0] ?? '')
        const drifted = JSON.stringify(page).replace('"authorships":[', '"authorships":"none","was":[')
        fresh.reply(route, { headers: { 'content-type': 'application/json' }, body: drifted })
      } else fresh.fault(route, fault)
      const error = await failure(collect(connector(fixtureConfig(fresh), name, { clock }), carberry))
      assert.equal(error.source, name)
      assert.match(error.message, message, `${route}: ${JSON.stringify(fault)}`)
      await fresh.close()
    }
  })

  test('a gzipped reply is read; a reply over the size cap is a SourceError', async () => {
    const fresh = await startSourceFixtures({ now: clock.now })
    registerStandardFixtures(fresh)
    fresh.reply(crossrefFirst, {
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(fixtureText(FIXTURE_FILES.crossrefPages[0] ?? '')),
    })
    assert.equal((await collect(connector(fixtureConfig(fresh), 'crossref', { clock }), carberry)).length, 3)
    const error = await failure(
      collect(connector(fixtureConfig(fresh), 'crossref', { clock, maxBytes: 100 }), carberry),
    )
    assert.match(error.message, /reply larger than 100 bytes/)
    await fresh.close()
  })

  test('ORCID: a 401 mints a new token once and tries again', async () => {
    const fresh = await startSourceFixtures({ now: clock.now })
    registerStandardFixtures(fresh)
    fresh.fault(ROUTES.orcidWorks, { kind: 'status', status: 401 }, 1)
    const config = fixtureConfig(fresh, { orcidClientId: 'APP-1', orcidClientSecret: 'secret' })
    assert.equal((await collect(connector(config, 'orcid', { clock }), carberry)).length, 3)
    assert.equal(fresh.log.filter((entry) => entry.path === '/orcid-token').length, 2)
    fresh.fault(ROUTES.orcidWorks, { kind: 'status', status: 401 })
    const error = await failure(collect(connector(config, 'orcid', { clock }), carberry))
    assert.match(error.message, /HTTP 401/)
    await fresh.close()
  })

  test('an internal address is refused unless the operator allows it', async () => {
    const config = fixtureConfig(server, { sourcesAllowPrivate: false })
    const error = await failure(collect(connector(config, 'crossref', { clock }), carberry))
    assert.match(error.message, /address refused: the host is a loopback address/)
  })
})

describe('pacing, batching and paging, read from the request log', () => {
  test('every paging loop ends on the hyper-author, with ≤100 ORCID put-codes per call', async () => {
    const before = server.log.length
    const config = fixtureConfig(server, { sources: ['orcid', 'openalex', 'crossref', 'pubmed'] })
    for (const source of sourcesFrom(config, { clock })) {
      const works = await collect(source, hyper)
      assert.equal(works.length, HYPER_WORKS[source.name], source.name)
      assert.equal(new Set(works.map((work) => work.doi ?? work.openalexId ?? work.pmid)).size, works.length)
    }
    const bulk = server.log.slice(before).filter((entry) => entry.path.startsWith(`/orcid/${HYPER}/works/`))
    assert.equal(bulk.length, 25)
    assert.ok(bulk.every((entry) => (entry.path.split('/').pop() ?? '').split(',').length <= 100))
  })

  test('the ORCID batch size is a setting', async () => {
    const before = server.log.length
    await collect(connector(fixtureConfig(server, { orcidBatchSize: 50 }), 'orcid', { clock }), hyper)
    const bulk = server.log.slice(before).filter((entry) => entry.path.startsWith(`/orcid/${HYPER}/works/`))
    assert.equal(bulk.length, 50)
  })

  test('PubMed pages esearch by retstart and fetches more than 200 ids in one POST', async () => {
    const before = server.log.length
    await collect(connector(fixtureConfig(server), 'pubmed', { clock }), hyper)
    const requests = server.log.slice(before)
    const searches = requests.filter((entry) => entry.path.endsWith('esearch.fcgi'))
    assert.deepEqual(
      searches.map((entry) => [entry.params.get('retstart'), entry.params.get('retmax')]),
      [
        ['0', '200'],
        ['200', '200'],
        ['400', '200'],
      ],
    )
    const fetches = requests.filter((entry) => entry.path.endsWith('efetch.fcgi'))
    assert.deepEqual(
      fetches.map((entry) => [entry.method, (entry.params.get('id') ?? '').split(',').length]),
      [['POST', 450]],
    )
    assert.ok(requests.every((entry) => entry.params.get('tool') === 'expertdir'))
    assert.ok(requests.every((entry) => entry.params.get('email') === 'ops@example.org'))
  })

  test('PubMed with 200 ids or fewer fetches by GET', async () => {
    const before = server.log.length
    await collect(connector(fixtureConfig(server), 'pubmed', { clock, pubmedFetchBatch: 200 }), hyper)
    const fetches = server.log.slice(before).filter((entry) => entry.path.endsWith('efetch.fcgi'))
    assert.deepEqual(
      fetches.map((entry) => [entry.method, (entry.params.get('id') ?? '').split(',').length]),
      [
        ['GET', 200],
        ['GET', 200],
        ['GET', 50],
      ],
    )
  })

  /** The gaps between the starts of a source's requests, on the virtual clock. */
  function gaps(entries: { at: number }[]): number[] {
    return entries.slice(1).map((entry, index) => entry.at - (entries[index]?.at ?? 0))
  }

  test('each source keeps its rate: Crossref 3/s, PubMed 3/s (10/s with a key), ORCID 12/s', async () => {
    for (const [name, overrides, prefix, least] of [
      ['crossref', {}, '/crossref/', 1000 / 3],
      ['pubmed', {}, '/pubmed/', 1000 / 3],
      ['pubmed', { ncbiApiKey: 'k' }, '/pubmed/', 100],
      ['orcid', {}, '/orcid/', 1000 / 12],
    ] as const) {
      const before = server.log.length
      await collect(connector(fixtureConfig(server, overrides), name, { clock }), hyper)
      const entries = server.log.slice(before).filter((entry) => entry.path.startsWith(prefix))
      assert.ok(entries.length >= 3, name)
      const shortest = Math.min(...gaps(entries))
      assert.ok(shortest >= least - 1, `${name}: ${shortest} ms apart, at least ${least} expected`)
      assert.ok(shortest < least + 1, `${name}: no slower than its budget`)
    }
  })

  test('Crossref follows its x-rate-limit headers when they are lower', async () => {
    const fresh = await startSourceFixtures({ now: clock.now })
    registerStandardFixtures(fresh)
    fresh.reply(ROUTES.crossrefPage('*'), {
      headers: {
        'content-type': 'application/json',
        'x-rate-limit-limit': '1',
        'x-rate-limit-interval': '1s',
      },
      body: fixtureText(FIXTURE_FILES.crossrefPages[0] ?? ''),
    })
    await collect(connector(fixtureConfig(fresh), 'crossref', { clock }), carberry)
    assert.deepEqual(gaps(fresh.log), [1000])
    await fresh.close()
  })

  test('a 429 pauses only its own source', async () => {
    const fresh = await startSourceFixtures({ now: clock.now })
    registerStandardFixtures(fresh)
    fresh.fault(
      ROUTES.crossrefPage('*'),
      { kind: 'status', status: 429, retryAfter: 'seconds', seconds: 30 },
      1,
    )
    const config = fixtureConfig(fresh)
    const started = clock.now()
    const [crossrefWorks, openalexWorks] = await Promise.all([
      collect(connector(config, 'crossref', { clock }), carberry),
      collect(connector(config, 'openalex', { clock }), carberry),
    ])
    assert.equal(crossrefWorks.length, 3)
    assert.equal(openalexWorks.length, 3)
    const crossref = fresh.log.filter((entry) => entry.path.startsWith('/crossref/'))
    const openalex = fresh.log.filter((entry) => entry.path.startsWith('/openalex/'))
    assert.equal(crossref[1]?.at, started + 30_000, 'Crossref waited for Retry-After')
    assert.ok(
      openalex.every((entry) => entry.at < started + 30_000),
      'OpenAlex went on meanwhile',
    )
    await fresh.close()
  })

  test('a pacer never runs more than its concurrency at once', async () => {
    const pacer = new Pacer(systemClock, { perSecond: 1_000_000, concurrency: 3 })
    let running = 0
    let most = 0
    await Promise.all(
      Array.from({ length: 12 }, () =>
        pacer.run(async () => {
          running += 1
          most = Math.max(most, running)
          await new Promise((resolve) => setImmediate(resolve))
          running -= 1
        }),
      ),
    )
    assert.equal(most, 3)
  })

  test('Retry-After is read in seconds and as an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1)
    assert.equal(retryAfterMs('120', now), now + 120_000)
    assert.equal(retryAfterMs(new Date(now + 5000).toUTCString(), now), now + 5000)
    assert.equal(retryAfterMs('soon', now), undefined)
  })
})

describe('normalisers and shapes', () => {
  const doiArbitrary = fc
    .tuple(
      fc.integer({ min: 1000, max: 999_999_999 }),
      fc.stringMatching(/^[A-Za-z0-9._;()/:-]{1,30}$/).filter((suffix) => suffix.trim() !== ''),
    )
    .map(([registrant, suffix]) => `10.${registrant}/${suffix}`)

  test('the DOI normaliser is idempotent and ignores prefix, case and percent-encoding', () => {
    fc.assert(
      fc.property(
        doiArbitrary,
        fc.constantFrom('', 'https://doi.org/', 'http://dx.doi.org/', 'doi:', 'DOI: ', 'HTTPS://DOI.ORG/'),
        fc.boolean(),
        fc.boolean(),
        (doi, prefix, upper, encode) => {
          const plain = normalizeDoi(doi)
          assert.equal(plain, doi.toLowerCase())
          const written = `${prefix}${upper ? doi.toUpperCase() : doi}`
          const variant = encode ? encodeURIComponent(written) : written
          assert.equal(normalizeDoi(variant), plain)
          assert.equal(normalizeDoi(plain), plain)
        },
      ),
    )
    assert.equal(normalizeDoi('not a doi'), undefined)
  })

  test('an ORCID iD is accepted only with its ISO 7064 mod 11-2 check digit, in any of its written forms', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{15}$/), fc.constantFrom(...'0123456789X'), (digits, check) => {
        const written = `${digits}${check}`.replace(/^(.{4})(.{4})(.{4})(.{4})$/, '$1-$2-$3-$4')
        const valid = orcidCheckDigit(digits) === check
        assert.equal(normalizeOrcid(written), valid ? written : undefined)
        if (valid) {
          assert.equal(normalizeOrcid(`https://orcid.org/${written}`), written)
          assert.equal(normalizeOrcid(`http://orcid.org/${written.replace(/-/g, '')}`), written)
        }
      }),
    )
    assert.equal(normalizeOrcid(CARBERRY), CARBERRY)
    assert.equal(normalizeOrcid('0000-0002-1825-0098'), undefined)
    assert.equal(normalizeOrcid('0000-0002-9999-111x'), '0000-0002-9999-111X')
  })

  test('an abstract rebuilt from its inverted index round-trips', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[^\s]{1,12}$/), { minLength: 1, maxLength: 60 }), (words) => {
        const positions = new Map<string, number[]>()
        words.forEach((word, position) => {
          positions.set(word, [...(positions.get(word) ?? []), position])
        })
        assert.equal(rebuildAbstract(Object.fromEntries(positions)), words.join(' '))
      }),
    )
    assert.equal(rebuildAbstract(null), undefined)
  })

  test('PMIDs are digits, titles fingerprint without case, accents, tags or punctuation', () => {
    assert.equal(normalizePmid('PMID: 0031234567'), '31234567')
    assert.equal(normalizePmid('12a'), undefined)
    assert.equal(titleFingerprint("Zoë's <i>Übung</i>: H<sub>2</sub>O!"), 'zoe s ubung h2o')
  })

  test('concept ids are bare (T-id, keyword slug, MeSH UI); a union keeps the highest score and any major', () => {
    assert.equal(normalizeOpenalexTopicId('https://openalex.org/T10017'), 'T10017')
    assert.equal(normalizeOpenalexTopicId('https://openalex.org/keywords/t1'), undefined)
    assert.equal(normalizeOpenalexKeywordId('https://openalex.org/keywords/climate-change'), 'climate-change')
    assert.equal(normalizeOpenalexKeywordId('https://openalex.org/keywords/'), undefined)
    assert.equal(normalizeMeshUi(' d006801 '), 'D006801')
    assert.equal(normalizeMeshUi('Q000502'), undefined)
    const pubmedSays = [
      { scheme: 'mesh', id: 'D009898', label: 'Optical Illusions', score: 1, major: false },
    ] satisfies WorkConcept[]
    const openalexSays = [
      { scheme: 'mesh', id: 'D009898', label: 'Illusions (optical)', score: 0.5, major: true },
      { scheme: 'openalex_keyword', id: 'pencil', label: 'Pencil', score: 0.6, major: true },
      { scheme: 'openalex_topic', id: 'T2', label: 'Two', score: 0.5, major: true },
      { scheme: 'openalex_topic', id: 'T1', label: 'One', score: 0.5, major: true },
    ] satisfies WorkConcept[]
    const union = unionConcepts(pubmedSays, openalexSays, false)
    assert.deepEqual(union, [
      { scheme: 'openalex_topic', id: 'T1', label: 'One', score: 0.5, major: true },
      { scheme: 'openalex_topic', id: 'T2', label: 'Two', score: 0.5, major: true },
      { scheme: 'openalex_keyword', id: 'pencil', label: 'Pencil', score: 0.6, major: true },
      { scheme: 'mesh', id: 'D009898', label: 'Optical Illusions', score: 1, major: true },
    ])
    assert.deepEqual(
      unionConcepts(union, openalexSays, false),
      union,
      'adding the same concepts again changes nothing',
    )
    assert.deepEqual(
      unionConcepts(openalexSays, pubmedSays, true),
      union,
      'the order of arrival does not matter',
    )
    assert.equal(conceptScore(Number.NaN), 1)
    assert.equal(conceptScore(1.5), 1)
  })

  test('every fixture has the shape its connector reads', () => {
    const json: [string, Parameters<typeof shapeDrift>[0]][] = [
      [FIXTURE_FILES.orcidWorks, OrcidWorksShape],
      [FIXTURE_FILES.orcidBulk, OrcidBulkShape],
      [FIXTURE_FILES.orcidToken, OrcidTokenShape],
      [FIXTURE_FILES.openalexAuthor, OpenalexAuthorShape],
      ...FIXTURE_FILES.openalexPages.map((file): [string, typeof OpenalexWorksShape] => [
        file,
        OpenalexWorksShape,
      ]),
      ...FIXTURE_FILES.crossrefPages.map((file): [string, typeof CrossrefWorksShape] => [
        file,
        CrossrefWorksShape,
      ]),
      ...FIXTURE_FILES.pubmedSearches.map((file): [string, typeof PubmedSearchShape] => [
        file,
        PubmedSearchShape,
      ]),
    ]
    for (const [file, shape] of json) assert.deepEqual(shapeDrift(shape, fixtureJson(file)), [], file)
    for (const file of FIXTURE_FILES.pubmedArticles) {
      const parsed = parseXml('pubmed', fixtureText(file), PUBMED_REPEATABLE)
      assert.deepEqual(shapeDrift(PubmedArticleSetShape, parsed), [], file)
    }
  })

  test('EXPERTDIR_SOURCES=none turns every source off', () => {
    const config = loadConfig({}, { EXPERTDIR_SOURCES: 'none' })
    assert.deepEqual(sourcesFrom(config), [])
    assert.deepEqual(loadConfig({}, { EXPERTDIR_SOURCES: 'crossref, pubmed' }).sources, [
      'crossref',
      'pubmed',
    ])
    assert.throws(() => loadConfig({}, { EXPERTDIR_SOURCES: 'scopus' }), /EXPERTDIR_SOURCES/)
  })
})

describe('expertdir works check-sources', () => {
  const env = (fixtures: SourceFixtureServer, extra: Record<string, string> = {}) => ({
    EXPERTDIR_SOURCES_ALLOW_PRIVATE: '1',
    EXPERTDIR_ORCID_URL: `${fixtures.url}/orcid`,
    EXPERTDIR_OPENALEX_URL: `${fixtures.url}/openalex`,
    EXPERTDIR_CROSSREF_URL: `${fixtures.url}/crossref`,
    EXPERTDIR_CROSSREF_MAILTO: 'ops@example.org',
    EXPERTDIR_PUBMED_URL: `${fixtures.url}/pubmed`,
    ...extra,
  })

  test('prints ok per source when the replies fit, and skipped for a source turned off', async () => {
    const result = await runCli(
      ['works', 'check-sources'],
      env(server, { EXPERTDIR_SOURCES: 'orcid,openalex,crossref' }),
    )
    assert.equal(result.code, 0, result.stderr)
    assert.equal(
      result.stdout,
      'orcid: ok\nopenalex: ok\ncrossref: ok\npubmed: skipped\n  turned off (EXPERTDIR_SOURCES)\n',
    )
    const json = await runCli(['works', 'check-sources', '--json'], env(server))
    assert.equal(json.code, 0, json.stderr)
    assert.deepEqual(JSON.parse(json.stdout), {
      orcid: CARBERRY,
      sources: ['orcid', 'openalex', 'crossref', 'pubmed'].map((source) => ({
        source,
        status: 'ok',
        problems: [],
      })),
    })
  })

  test('prints drift by field path and exits non-zero', async () => {
    const fresh = await startSourceFixtures()
    registerStandardFixtures(fresh)
    const page = fixtureJson(FIXTURE_FILES.crossrefPages[0] ?? '')
    fresh.reply(
      ROUTES.crossrefPage('*'),
      jsonReply(
        JSON.parse(
          JSON.stringify(page)
            .replace('"title":["Pencils', '"title":"Pencils')
            .replace('A Study"],"container', 'A Study","container'),
        ),
      ),
    )
    const result = await runCli(['works', 'check-sources'], env(fresh))
    assert.equal(result.code, 1)
    assert.match(result.stdout, /crossref: drift\n {2}works: \/message\/items\/0\/title: must be array/)
    assert.match(result.stdout, /orcid: ok/)
    await fresh.close()
  })

  test('refuses an iD with a wrong check digit', async () => {
    const result = await runCli(['works', 'check-sources', '--orcid', '0000-0002-1825-0098'], env(server))
    assert.equal(result.code, 2)
    assert.match(result.stderr, /no valid ORCID iD/)
  })
})
