import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { sql } from 'kysely'
import type { components } from '../packages/client/src/schema.js'
import { buildApp } from '../src/app.js'
import { openDatabase } from '../src/db/database.js'
import { migrateTo, migrateToLatest } from '../src/db/migrate.js'
import { migrateDatabase } from '../src/system/migrate.js'
import { api, expectOk } from './helpers/api.js'
import { present } from './helpers/checked.js'
import { runCli } from './helpers/cli.js'
import { importDocument } from './helpers/content.js'
import { createExpert, describeEachDialect, envelope, expertBody, type Tenant } from './helpers/harness.js'

interface ExpertFixture {
  key: string
  firstname: string
  lastname: string
  country?: string
  company?: string
  job_title?: string
  is_published?: number
  is_private?: number
  topics?: string[]
  industries?: string[]
  categories?: string[]
  tags?: string[]
  tagline?: string
  biography?: string
}

function expertRecord(fixture: ExpertFixture) {
  const sections: Record<string, unknown> = {}
  const named = (values?: string[]) => values?.map((name) => ({ name }))
  if (fixture.topics) sections.topic = named(fixture.topics)
  if (fixture.industries) sections.industry = named(fixture.industries)
  if (fixture.categories) sections.category = named(fixture.categories)
  if (fixture.tags) sections.tag = fixture.tags.map((tag) => ({ tag }))
  if (fixture.tagline) sections.tagline = { tagline: fixture.tagline }
  if (fixture.biography) sections.biography = { biography: fixture.biography }
  return {
    key: fixture.key,
    firstname: fixture.firstname,
    lastname: fixture.lastname,
    job_title: fixture.job_title ?? 'Researcher',
    email: `${fixture.key}@uni.example`,
    company: fixture.company ?? 'Uni A',
    ...(fixture.country ? { location_country: fixture.country } : {}),
    is_published: fixture.is_published ?? 1,
    is_private: fixture.is_private ?? 0,
    sections,
  }
}

const EXPERTS: ExpertFixture[] = [
  {
    key: 'mueller',
    firstname: 'Hans',
    lastname: 'Müller',
    job_title: 'Professor of Physics',
    country: 'DE',
    topics: ['Quantum Computing', 'Physics'],
    industries: ['Education'],
    categories: ['Science'],
    tags: ['AI'],
    tagline: 'Explains quantum things',
    biography: '<p>Works on superconducting <strong>qubits</strong>.</p>',
  },
  {
    key: 'yilmaz',
    firstname: 'Ömer',
    lastname: 'Yılmaz',
    job_title: 'Data Scientist',
    company: 'Uni B',
    country: 'TR',
    topics: ['Machine Learning', 'physics'],
    industries: ['Technology'],
    tags: ['AI', 'Data'],
  },
  {
    key: 'schmidt',
    firstname: 'Anna',
    lastname: 'Schmidt',
    job_title: 'Historian',
    country: 'DE',
    topics: ['History'],
    industries: ['Education'],
    is_published: 0,
  },
  { key: 'dupont', firstname: 'Jean', lastname: 'Dupont', country: 'FR', topics: ['Physics'], is_private: 1 },
  { key: 'quantum', firstname: 'Quentin', lastname: 'Quantum', country: 'CA', topics: ['Chemistry'] },
  {
    key: 'volcano-tagline',
    firstname: 'Vera',
    lastname: 'Lava',
    country: 'CA',
    tagline: 'Volcano researcher',
    biography: 'Studies rocks.',
  },
  {
    key: 'volcano-bio',
    firstname: 'Victor',
    lastname: 'Ash',
    country: 'CA',
    tagline: 'Geologist',
    biography: 'Once climbed a volcano in Iceland.',
  },
]

type Schemas = components['schemas']

describeEachDialect('search', (ctx) => {
  const search = async (query: string, tenant: Tenant = ctx.tenant, path = 'organization') => {
    const url =
      path === 'organization'
        ? `/v2/organization/${tenant.orgId}/expert${query ? `?${query}` : ''}`
        : `/v2/${path}/${tenant.orgId}/search${query ? `?${query}` : ''}`
    const response = await ctx.inject({ method: 'GET', url, headers: tenant.auth })
    return response
  }
  const experts = async (query: string, tenant: Tenant = ctx.tenant) => {
    const url = `/v2/organization/${tenant.orgId}/expert${query ? `?${query}` : ''}`
    return expectOk(await api(ctx.app, tenant).send<Schemas['ExpertSearchResult']>('GET', url))
  }
  const names = async (query: string, tenant: Tenant = ctx.tenant) =>
    (await experts(query, tenant)).experts.map((expert) => expert.fullname)
  const errorFields = async (query: string, path = 'organization') => {
    const response = await search(query, ctx.tenant, path)
    assert.equal(response.statusCode, 400, response.body)
    const body = envelope(response)
    assert.equal(body.error?.code, 'validation_failed')
    return (body.error?.details ?? []).map((detail) => detail.field)
  }

  /** The experts of both organizations: every test reads them; a test that changes them restores them. */
  before(async () => {
    await importDocument(ctx, ctx.tenant.orgId, { experts: EXPERTS.map(expertRecord) })
    await importDocument(ctx, ctx.other.orgId, {
      experts: [
        expertRecord({
          key: 'other-mueller',
          firstname: 'Hans',
          lastname: 'Müller',
          country: 'DE',
          topics: ['Physics'],
        }),
        expertRecord({
          key: 'other-x',
          firstname: 'Xavier',
          lastname: 'Other',
          country: 'US',
          topics: ['Physics'],
        }),
      ],
    })
  })

  test('without parameters: public experts by name, exact total, counts over all of them', async () => {
    const data = await experts('')
    assert.deepEqual(
      data.experts.map((e) => e.fullname),
      [
        'Victor Ash',
        'Jean Dupont',
        'Vera Lava',
        'Hans Müller',
        'Quentin Quantum',
        'Anna Schmidt',
        'Ömer Yılmaz',
      ].filter((name) => name !== 'Jean Dupont'),
    )
    assert.equal(data.total, 6)
    assert.deepEqual(data.aggregations.countries, [
      { key: 'CA', count: 3 },
      { key: 'DE', count: 2 },
      { key: 'TR', count: 1 },
    ])
    assert.deepEqual(data.aggregations.topics?.[0], { key: 'Physics', count: 2 })
    assert.deepEqual(Object.keys(data.aggregations).sort(), [
      'categories',
      'countries',
      'industries',
      'interview_languages',
      'media_available',
      'tags',
      'topics',
    ])
  })

  test('the list entry has the contract shape', async () => {
    const data = await experts('q=muller')
    assert.equal(data.experts.length, 1)
    const [entry] = data.experts
    assert.deepEqual(Object.keys(entry ?? {}).sort(), [
      'avatar',
      'company',
      'corporation_id',
      'department',
      'firstname',
      'fullname',
      'interview_languages',
      'is_private',
      'is_published',
      'job_title',
      'lastname',
      'location_city',
      'location_country',
      'location_state',
      'media_available',
      'media_available_until',
      'modified',
      'remote_ready',
      'studio_ready',
      'tagline',
      'topics',
      'username',
    ])
    assert.deepEqual(entry?.topics, [{ title: 'Quantum Computing' }, { title: 'Physics' }])
    assert.equal(entry?.tagline, 'Explains quantum things')
    assert.deepEqual(entry?.avatar, { small: '', medium: '', large: '', original: '' })
    assert.equal(entry?.corporation_id, ctx.tenant.orgId)
    assert.equal(entry?.modified, Math.floor(ctx.clock.now() / 1000))
  })

  test('q ignores case and diacritics: muller finds Müller, omer and Ömer find Ömer', async () => {
    assert.deepEqual(await names('q=muller'), ['Hans Müller'])
    assert.deepEqual(await names('q=MULLER'), ['Hans Müller'])
    assert.deepEqual(await names('q=omer'), ['Ömer Yılmaz'])
    assert.deepEqual(await names(`q=${encodeURIComponent('Ömer')}`), ['Ömer Yılmaz'])
  })

  test('q matches the last word as a prefix, words in any order, every word required', async () => {
    assert.deepEqual(await names('q=mul'), ['Hans Müller'])
    assert.deepEqual(await names('q=hans+m%C3%BC'), ['Hans Müller'])
    assert.deepEqual(await names('q=muller+hans'), ['Hans Müller'])
    // Words that are not a name's (a name is also found by its likeness: test/fuzzy-names.test.ts).
    assert.deepEqual(await names('q=ph+education'), [])
    assert.deepEqual(await names('q=muller+physics'), ['Hans Müller'])
    assert.deepEqual(await names('q=physics+history'), [])
    assert.deepEqual(await names('q=muller+history'), [], 'a word like no word of the name')
    assert.deepEqual(await names('q=qubits'), ['Hans Müller'], 'biography HTML is indexed as text')
    assert.deepEqual(await names('q=strong'), [], 'tag names are not indexed')
    assert.deepEqual(await names('q=%22OR%22+NEAR'), [], 'query syntax is plain text')
  })

  test('ranking: names before other fields, tagline before biography', async () => {
    assert.deepEqual(await names('q=quantum'), ['Quentin Quantum', 'Hans Müller'])
    assert.deepEqual(await names('q=volcano'), ['Vera Lava', 'Victor Ash'])
    assert.deepEqual(await names('q=volcano&sort=name'), ['Victor Ash', 'Vera Lava'])
  })

  test('searchfield=fullname searches first and last names only', async () => {
    assert.deepEqual(await names('q=quantum&searchfield=fullname'), ['Quentin Quantum'])
    assert.deepEqual(await names('q=volcano&searchfield=fullname'), [])
  })

  test('access and status filter private and unpublished experts', async () => {
    assert.deepEqual(await names('q=dupont'), [])
    assert.deepEqual(await names('access=private'), ['Jean Dupont'])
    assert.equal((await experts('access=all')).total, 7)
    assert.deepEqual(await names('status=unpublished'), ['Anna Schmidt'])
    assert.equal((await experts('status=published')).total, 5)
    assert.deepEqual(await names('access=all&status=unpublished'), ['Anna Schmidt'])
  })

  test('facet filters: repeated keys, [] keys and a JSON array; OR within a facet, AND across', async () => {
    const expected = ['Hans Müller', 'Anna Schmidt', 'Ömer Yılmaz']
    assert.deepEqual(await names('topics=physics&topics=History'), expected)
    assert.deepEqual(await names('topics[]=physics&topics[]=History'), expected)
    assert.deepEqual(await names(`topics=${encodeURIComponent('["physics","History"]')}`), expected)
    assert.deepEqual(await names('topics=Physics'), ['Hans Müller', 'Ömer Yılmaz'])
    assert.deepEqual(await names('topics=Physics&countries=de'), ['Hans Müller'])
    assert.deepEqual(await names('industries=education'), ['Hans Müller', 'Anna Schmidt'])
    assert.deepEqual(await names('categories=Science&tags=ai'), ['Hans Müller'])
    assert.deepEqual(await names('tags=data&tags=AI'), ['Hans Müller', 'Ömer Yılmaz'])
    assert.deepEqual(await names('companies=uni+b'), ['Ömer Yılmaz'])
    assert.deepEqual(await names('companies[]=UNI+B&companies[]=nobody'), ['Ömer Yılmaz'])
  })

  test('facet counts are disjunctive: each facet ignores its own filter and applies the others', async () => {
    const data = await experts('topics=Physics&countries=DE')
    assert.equal(data.total, 1)
    // topics: every DE expert (Müller, Schmidt), whatever their topics
    assert.deepEqual(data.aggregations.topics, [
      { key: 'History', count: 1 },
      { key: 'Physics', count: 1 },
      { key: 'Quantum Computing', count: 1 },
    ])
    // countries: every Physics expert (Müller DE, Yılmaz TR), whatever their country
    assert.deepEqual(data.aggregations.countries, [
      { key: 'DE', count: 1 },
      { key: 'TR', count: 1 },
    ])
    // other facets apply both filters
    assert.deepEqual(data.aggregations.industries, [{ key: 'Education', count: 1 }])
    const withText = await experts('q=physics&countries=TR')
    assert.deepEqual(withText.aggregations.countries, [
      { key: 'DE', count: 1 },
      { key: 'TR', count: 1 },
    ])
    assert.deepEqual(withText.aggregations.topics, [
      { key: 'Machine Learning', count: 1 },
      { key: 'physics', count: 1 },
    ])
  })

  test('paging: pages are disjoint and together complete; total is exact', async () => {
    for (const sort of ['name', 'modified', 'featured']) {
      const seen: string[] = []
      for (let from = 0; from < 8; from += 4) {
        const page = await experts(`access=all&sort=${sort}&page_size=4&page_from=${from}`)
        assert.equal(page.total, 7)
        seen.push(...page.experts.map((e) => e.username))
      }
      assert.equal(seen.length, 7)
      assert.equal(new Set(seen).size, 7)
    }
    const beyond = await experts('page_from=100')
    assert.deepEqual(beyond.experts, [])
    assert.equal(beyond.total, 6)
  })

  test('sort=featured puts the most complete profiles first; sort=modified the latest change first', async () => {
    assert.equal((await names('sort=featured'))[0], 'Hans Müller')
    ctx.clock.advance(5000)
    const put = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/vera-lava`,
      headers: ctx.tenant.auth,
      payload: { job_title: 'Volcanologist' },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal((await names('sort=modified'))[0], 'Vera Lava')
  })

  test('another organization: its own results and counts only', async () => {
    const other = await experts('q=muller', ctx.other)
    const mineByName = await experts('q=muller')
    assert.equal(other.total, 1)
    assert.equal(mineByName.total, 1)
    assert.equal(other.experts[0]?.corporation_id, ctx.other.orgId)
    assert.equal(mineByName.experts[0]?.corporation_id, ctx.tenant.orgId)
    const all = await experts('', ctx.other)
    assert.equal(all.total, 2)
    assert.deepEqual(all.aggregations.topics, [{ key: 'Physics', count: 2 }])
    assert.deepEqual(all.aggregations.countries, [
      { key: 'DE', count: 1 },
      { key: 'US', count: 1 },
    ])
    const mine = await experts('topics=physics')
    assert.deepEqual(mine.aggregations.countries, [
      { key: 'DE', count: 1 },
      { key: 'TR', count: 1 },
    ])
  })

  test('the index follows API writes: create, update, publish, delete', async () => {
    const username = await createExpert(ctx, ctx.tenant, {
      firstname: 'Zoë',
      lastname: 'Ångström',
      company: 'Lab Z',
    })
    assert.deepEqual(await names('q=angstrom'), ['Zoë Ångström'])
    assert.deepEqual(await names('companies=lab+z&status=unpublished'), ['Zoë Ångström'])
    const put = (payload: Record<string, unknown>) =>
      ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
        headers: ctx.tenant.auth,
        payload,
      })
    assert.equal((await put({ lastname: 'Nordström', location_country: 'SE' })).statusCode, 200)
    assert.deepEqual(await names('q=angstrom'), [])
    assert.deepEqual(await names('q=nordstrom'), ['Zoë Nordström'])
    assert.deepEqual(await names('countries=se'), ['Zoë Nordström'])
    assert.deepEqual(await names('countries=se&status=published'), [])
    assert.equal((await put({ is_published: 1 })).statusCode, 200)
    assert.deepEqual(await names('countries=se&status=published'), ['Zoë Nordström'])
    const deleted = await ctx.inject({
      method: 'DELETE',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: ctx.tenant.auth,
    })
    assert.equal(deleted.statusCode, 200)
    assert.deepEqual(await names('q=nordstrom'), [])
    const data = await experts('')
    assert.equal(
      data.aggregations.countries?.some((bucket) => bucket.key === 'SE'),
      false,
    )
  })

  test('a write through another process changes the next search here at once (kept results are per index version)', async () => {
    // A second app on its own connection to the same database: what a second process sees.
    const otherHandle = openDatabase(ctx.testDatabase.url)
    const otherApp = await buildApp({ config: ctx.config, database: otherHandle, now: ctx.clock.now })
    try {
      const query = 'q=kepler&countries=nz'
      for (let i = 0; i < 2; i++) assert.equal((await experts(query)).total, 0)
      const { username } = expectOk(
        await api(otherApp, ctx.tenant).post('/v2/organization/{corporation}/expert', {
          params: { corporation: ctx.tenant.orgId },
          body: expertBody({ firstname: 'Johannes', lastname: 'Kepler', location_country: 'NZ' }),
        }),
      )
      const after = await experts(query)
      assert.deepEqual(
        after.experts.map((expert) => expert.fullname),
        ['Johannes Kepler'],
      )
      assert.deepEqual(after.aggregations.countries, [{ key: 'NZ', count: 1 }])
      const deleted = await otherApp.inject({
        method: 'DELETE',
        url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
        headers: ctx.tenant.auth,
      })
      assert.equal(deleted.statusCode, 200, deleted.body)
      assert.equal((await experts(query)).total, 0)
    } finally {
      await otherApp.close()
      await otherHandle.close()
    }
  })

  test('the index follows a re-import: sections added and removed, facts changed', async () => {
    const changed = EXPERTS.map((fixture) =>
      fixture.key === 'quantum'
        ? expertRecord({ ...fixture, topics: ['Astronomy'], tagline: 'Stargazer', lastname: 'Quasar' })
        : expertRecord(fixture),
    )
    await importDocument(ctx, ctx.tenant.orgId, { experts: changed })
    assert.deepEqual(await names('topics=chemistry'), [])
    assert.deepEqual(await names('topics=astronomy'), ['Quentin Quasar'])
    assert.deepEqual(await names('q=stargaz'), ['Quentin Quasar'])
    assert.deepEqual(await names('q=quantum'), ['Hans Müller'])
    const topics = (await experts('')).aggregations.topics ?? []
    assert.equal(
      topics.some((bucket) => bucket.key === 'Chemistry'),
      false,
    )
    await importDocument(ctx, ctx.tenant.orgId, { experts: EXPERTS.map(expertRecord) })
    assert.deepEqual(await names('topics=chemistry'), ['Quentin Quantum'])
    assert.deepEqual(await names('topics=astronomy'), [])
    assert.deepEqual(await names('q=quasar'), [])
  })

  test('migrating data that predates the index: 0006 creates empty tables, the rebuild step fills them', async () => {
    const { database } = ctx.testDatabase
    const { db } = database
    const before = await experts('access=all')
    await migrateTo(db, '0004_performance')
    const applied = await migrateToLatest(db)
    assert.ok(applied.includes('0006_search'))
    const indexed = await db.selectFrom('expert_search').select('expert_id').execute()
    assert.deepEqual(indexed, [], 'the migration writes no index rows')
    const run = await migrateDatabase(database)
    assert.deepEqual(run.applied, [])
    assert.deepEqual(
      run.rebuiltSearch,
      [ctx.tenant.orgId, ctx.other.orgId].sort((a, b) => a - b),
    )
    const after = await experts('access=all')
    assert.deepEqual(after, before)
    assert.deepEqual(await names('q=muller'), ['Hans Müller'])
    assert.deepEqual(
      await migrateDatabase(database),
      { applied: [], rebuiltSearch: [] },
      'nothing when current',
    )
  })

  test('the rebuild step fills only organizations whose index lacks rows; search rebuild redoes one', async () => {
    const { database } = ctx.testDatabase
    const { db } = database
    const before = await experts('access=all')
    // What an upgrade stopped between the migrations and the rebuild leaves: tables without rows.
    await db.deleteFrom('expert_search').where('org_id', '=', ctx.tenant.orgId).execute()
    assert.deepEqual((await migrateDatabase(database)).rebuiltSearch, [ctx.tenant.orgId])
    assert.deepEqual(await experts('access=all'), before)
    const rebuilt = await runCli([
      '--db',
      ctx.testDatabase.url,
      'search',
      'rebuild',
      '--org',
      String(ctx.tenant.orgId),
      '--json',
    ])
    assert.equal(rebuilt.code, 0, rebuilt.stderr)
    assert.deepEqual(JSON.parse(rebuilt.stdout).rebuilt, [ctx.tenant.orgId])
    assert.deepEqual(await experts('access=all'), before)
    const missing = await runCli(['--db', ctx.testDatabase.url, 'search', 'rebuild', '--org', '999999'])
    assert.equal(missing.code, 1)
    assert.match(missing.stderr, /No organization 999999/)
  })

  test('rejects unknown and malformed parameters, naming them', async () => {
    assert.deepEqual(await errorFields('foo=1'), ['foo'])
    assert.deepEqual(await errorFields('page_size=0'), ['page_size'])
    assert.deepEqual(await errorFields('page_size=101'), ['page_size'])
    assert.deepEqual(await errorFields('page_size=ten'), ['page_size'])
    assert.deepEqual(await errorFields('page_from=10001'), ['page_from'])
    assert.deepEqual(await errorFields('page_from=-1'), ['page_from'])
    assert.deepEqual(await errorFields('sort=random'), ['sort'])
    assert.deepEqual(await errorFields('access=secret'), ['access'])
    assert.deepEqual(await errorFields('status=draft'), ['status'])
    assert.deepEqual(await errorFields('searchfield=email'), ['searchfield'])
    assert.deepEqual(await errorFields('countries=XX'), ['countries.0'])
    assert.deepEqual(await errorFields('countries=CAN'), ['countries.0'])
    assert.deepEqual(await errorFields(`topics=${encodeURIComponent('["a",')}`), ['topics'])
    assert.deepEqual(await errorFields(`topics=${encodeURIComponent('[1,2]')}`), ['topics'])
    assert.deepEqual(await errorFields('q=a&q=b'), ['q'])
    assert.deepEqual(await errorFields('q[]=a'), ['q[]'])
    assert.deepEqual(await errorFields(`q=${'x'.repeat(201)}`), ['q'])
    assert.deepEqual(await errorFields(`q=${Array.from({ length: 21 }, (_, i) => `w${i}`).join('+')}`), ['q'])
    assert.deepEqual((await errorFields('foo=1&sort=x&page_size=0')).sort(), ['foo', 'page_size', 'sort'])
    assert.deepEqual(await errorFields('month=3', 'spotlight'), ['month'])
    assert.deepEqual(await errorFields('month=13&year=2024', 'spotlight'), ['month'])
    assert.deepEqual(await errorFields('tagged=Not+A+Username', 'spotlight'), ['tagged.0'])
    assert.deepEqual(await errorFields('answered_by[]=x&countries=CA', 'qanda'), ['countries'])
  })

  test('the search path wins over the read path, and a bad id is still a 400', async () => {
    const read = await ctx.inject({
      method: 'GET',
      url: `/v2/spotlight/${ctx.tenant.orgId}/abc`,
      headers: ctx.tenant.auth,
    })
    assert.equal(read.statusCode, 400)
    assert.equal(envelope(read).error?.details?.[0]?.field, 'id')
    assert.equal((await search('', ctx.tenant, 'spotlight')).statusCode, 200)
    assert.equal((await search('', ctx.tenant, 'qanda')).statusCode, 200)
  })

  test('needs a token, and the token of the organization', async () => {
    const anonymous = await ctx.inject({ method: 'GET', url: `/v2/organization/${ctx.tenant.orgId}/expert` })
    assert.equal(anonymous.statusCode, 401)
    for (const path of [
      `/v2/organization/${ctx.tenant.orgId}/expert`,
      `/v2/spotlight/${ctx.tenant.orgId}/search`,
      `/v2/qanda/${ctx.tenant.orgId}/search`,
    ]) {
      const foreign = await ctx.inject({ method: 'GET', url: path, headers: ctx.other.auth })
      assert.equal(foreign.statusCode, 403, path)
    }
  })

  test('deleting an organization deletes its index rows with it', async () => {
    const { db } = ctx.testDatabase.database
    const rows = (table: 'expert_search' | 'expert_facets') =>
      db.selectFrom(table).select('expert_id').where('org_id', '=', ctx.other.orgId).execute()
    assert.equal((await rows('expert_search')).length, 2)
    await db.deleteFrom('organizations').where('id', '=', ctx.other.orgId).execute()
    assert.equal((await rows('expert_search')).length, 0)
    assert.equal((await rows('expert_facets')).length, 0)
    if (ctx.dialect === 'sqlite') {
      // The FTS table follows its content table through the triggers, cascaded deletes included.
      await sql`insert into expert_search_fts(expert_search_fts) values ('integrity-check')`.execute(db)
    }
    assert.deepEqual(await names('q=muller'), ['Hans Müller'])
  })
})

describeEachDialect('post and Q&A search', (ctx) => {
  let ids: { spotlights: number[]; questions: number[] }
  interface Results {
    spotlight: Schemas['SpotlightSearchResult']
    qanda: Schemas['QuestionSearchResult']
  }
  const get = async <Path extends keyof Results>(path: Path, query: string, tenant: Tenant = ctx.tenant) => {
    const url = `/v2/${path}/${tenant.orgId}/search${query ? `?${query}` : ''}`
    return expectOk(await api(ctx.app, tenant).send<Results[Path]>('GET', url))
  }
  const posts = async (query: string, tenant?: Tenant) => {
    const data = await get('spotlight', query, tenant)
    return data.spotlights.map((post) => post.title)
  }
  const questions = async (query: string, tenant?: Tenant) => {
    const data = await get('qanda', query, tenant)
    return data.questions.map((question) => question.question)
  }
  const at = (iso: string) => Date.parse(iso) / 1000

  /** The posts and questions of both organizations, read by every test. */
  before(async () => {
    const people = [
      expertRecord({ key: 'e1', firstname: 'Rosa', lastname: 'Parks' }),
      expertRecord({ key: 'e2', firstname: 'Alan', lastname: 'Turing' }),
    ]
    const result = await importDocument(ctx, ctx.tenant.orgId, {
      experts: people,
      spotlights: [
        {
          key: 'p1',
          title: 'Café culture in Zürich',
          html: '<p>Coffee &amp; <em>science</em>.</p>',
          published: 1,
          published_date: at('2024-03-10T00:00:00Z'),
          experts: ['e1', 'e2'],
          tags: ['Science', 'Europe'],
        },
        {
          key: 'p2',
          title: 'Machine learning explained',
          html: '<p>Neural networks and the cafe next door.</p>',
          published: 1,
          published_date: at('2025-01-05T00:00:00Z'),
          experts: ['e2'],
          tags: ['science'],
        },
        { key: 'p3', title: 'Draft about turtles', html: '<p>Slow.</p>', published: 0 },
      ],
      questions: [
        {
          key: 'q1',
          question: 'Why is the sky blue?',
          details: '<p>Asked by a child.</p>',
          published: 1,
          published_date: at('2024-06-01T00:00:00Z'),
          answers: [{ expert: 'e2', answer: '<p>Rayleigh scattering.</p>' }],
          tags: ['Physics'],
        },
        {
          key: 'q2',
          question: 'How do volcanoes form?',
          published: 1,
          published_date: at('2024-07-01T00:00:00Z'),
          answers: [
            { expert: 'e1', answer: '<p>Magma rises.</p>' },
            { expert: 'e2', answer: '<p>Plates move.</p>' },
          ],
          tags: ['Geology', 'physics'],
        },
        { key: 'q3', question: 'Unpublished question?', published: 0 },
      ],
    })
    ids = result.ids
    await importDocument(ctx, ctx.other.orgId, {
      spotlights: [
        { key: 'x', title: 'Café elsewhere', html: '<p>Other.</p>', published: 1, tags: ['Science'] },
      ],
      questions: [{ key: 'x', question: 'Why is the sky blue elsewhere?', published: 1, tags: ['Physics'] }],
    })
  })

  test('post search: newest first, shape, facets', async () => {
    const data = await get('spotlight', '')
    assert.equal(data.total, 3)
    const list = data.spotlights
    assert.deepEqual(
      list.map((post) => post.title),
      ['Draft about turtles', 'Machine learning explained', 'Café culture in Zürich'],
    )
    const first = present(list.find((post) => post.title === 'Café culture in Zürich'))
    assert.equal(first.published_date, at('2024-03-10T00:00:00Z'))
    assert.equal(first.reading_time, 1)
    assert.equal(first.summary, 'Coffee & science.')
    assert.deepEqual(
      first.tags.map((tag) => tag.tag),
      ['Science', 'Europe'],
    )
    assert.deepEqual(first.tagged_experts, [
      { username: 'rosa-parks', firstname: 'Rosa', lastname: 'Parks' },
      { username: 'alan-turing', firstname: 'Alan', lastname: 'Turing' },
    ])
    assert.deepEqual(data.aggregations.tags, [
      { key: 'Science', count: 2 },
      { key: 'Europe', count: 1 },
    ])
    assert.deepEqual(data.aggregations.tagged_experts, [
      { key: 'alan-turing', count: 2 },
      { key: 'rosa-parks', count: 1 },
    ])
    // The draft has no published_date: its year is that of its creation.
    const created = new Date(ctx.clock.now()).getUTCFullYear()
    assert.deepEqual(
      data.aggregations.year,
      [2024, 2025, created]
        .reduce<{ key: number; count: number }[]>((buckets, key) => {
          const bucket = buckets.find((b) => b.key === key)
          if (bucket) bucket.count++
          else buckets.push({ key, count: 1 })
          return buckets
        }, [])
        .sort((a, b) => b.count - a.count || a.key - b.key),
    )
  })

  test('post search: q over title and text without diacritics, filters, disjunctive counts', async () => {
    assert.deepEqual(await posts('q=cafe'), ['Café culture in Zürich', 'Machine learning explained'])
    assert.deepEqual(await posts('q=zurich'), ['Café culture in Zürich'])
    assert.deepEqual(await posts('q=neur'), ['Machine learning explained'])
    assert.deepEqual(await posts('status=unpublished'), ['Draft about turtles'])
    assert.deepEqual(await posts('tags=europe'), ['Café culture in Zürich'])
    assert.deepEqual(await posts('tagged=rosa-parks'), ['Café culture in Zürich'])
    assert.deepEqual(await posts('tagged[]=rosa-parks&tagged[]=alan-turing'), [
      'Machine learning explained',
      'Café culture in Zürich',
    ])
    assert.deepEqual(await posts('year=2024'), ['Café culture in Zürich'])
    assert.deepEqual(await posts('year=2024&month=3'), ['Café culture in Zürich'])
    assert.deepEqual(await posts('year=2024&month=4'), [])
    const data = await get('spotlight', 'year=2024&tags=science')
    assert.equal(data.total, 1)
    assert.deepEqual(data.aggregations.tags, [
      { key: 'Europe', count: 1 },
      { key: 'Science', count: 1 },
    ])
    assert.deepEqual(
      data.aggregations.year?.filter((bucket) => bucket.key === 2024 || bucket.key === 2025),
      [
        { key: 2024, count: 1 },
        { key: 2025, count: 1 },
      ],
    )
  })

  test('Q&A search: q over question, details and answers; answered_by; status', async () => {
    assert.deepEqual(await questions('q=rayleigh'), ['Why is the sky blue?'])
    assert.deepEqual(await questions('q=child'), ['Why is the sky blue?'])
    assert.deepEqual(await questions('q=volcano'), ['How do volcanoes form?'])
    assert.deepEqual(await questions('answered_by=rosa-parks'), ['How do volcanoes form?'])
    assert.deepEqual(await questions('status=unpublished'), ['Unpublished question?'])
    const data = await get('qanda', 'tags=physics')
    assert.equal(data.total, 2)
    assert.deepEqual(data.aggregations.answered_by, [
      { key: 'alan-turing', count: 2 },
      { key: 'rosa-parks', count: 1 },
    ])
    assert.deepEqual(data.aggregations.tags, [
      { key: 'Physics', count: 2 },
      { key: 'Geology', count: 1 },
    ])
    const item = present(data.questions[0])
    assert.deepEqual(Object.keys(item).sort(), [
      'answered_by',
      'id',
      'published',
      'published_date',
      'question',
      'tags',
    ])
  })

  test('q matches a post’s or a question’s tags as its words; a change of tags follows', async () => {
    assert.deepEqual(await posts('q=europe'), ['Café culture in Zürich'])
    assert.deepEqual(await posts('q=coffee europ'), ['Café culture in Zürich'])
    assert.deepEqual(await questions('q=geolog'), ['How do volcanoes form?'])
    assert.deepEqual(await questions('q=physics'), ['How do volcanoes form?', 'Why is the sky blue?'])
    const post = present(ids.spotlights[1])
    const retag = async (tags: string[]) => {
      const response = await ctx.inject({
        method: 'PUT',
        url: `/v2/spotlight/${ctx.tenant.orgId}/${post}`,
        headers: ctx.tenant.auth,
        payload: { tags },
      })
      assert.equal(response.statusCode, 200, response.body)
    }
    await retag(['science', 'Robotics'])
    assert.deepEqual(await posts('q=robotics'), ['Machine learning explained'])
    await retag(['science'])
    assert.deepEqual(await posts('q=robotics'), [])
    assert.deepEqual(await posts('q=europe', ctx.other), [], "another organization's tags match nothing")
  })

  test('another organization sees its own posts and questions and counts only', async () => {
    assert.deepEqual(await posts('q=cafe', ctx.other), ['Café elsewhere'])
    const data = await get('qanda', '', ctx.other)
    assert.equal(data.total, 1)
    assert.deepEqual(data.aggregations.tags, [{ key: 'Physics', count: 1 }])
    const mine = await get('spotlight', '')
    assert.deepEqual(
      mine.aggregations.tags?.find((bucket) => bucket.key === 'Science'),
      { key: 'Science', count: 2 },
    )
  })

  test('the index follows re-imports and the deletion of an answering expert', async () => {
    await importDocument(ctx, ctx.tenant.orgId, {
      spotlights: [
        {
          key: 'p3',
          title: 'Published piece about tortoises',
          html: '<p>Slow.</p>',
          published: 1,
          published_date: at('2023-02-01T00:00:00Z'),
        },
      ],
    })
    assert.deepEqual(await posts('q=turtles'), [])
    assert.deepEqual(await posts('q=tortoise'), ['Published piece about tortoises'])
    assert.deepEqual(await posts('year=2023&status=published'), ['Published piece about tortoises'])
    const deleted = await ctx.inject({
      method: 'DELETE',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/rosa-parks`,
      headers: ctx.tenant.auth,
    })
    assert.equal(deleted.statusCode, 200)
    assert.deepEqual(await questions('q=magma'), [])
    assert.deepEqual(await questions('q=plates'), ['How do volcanoes form?'])
    assert.deepEqual(await questions('answered_by=rosa-parks'), [])
    assert.ok(ids.questions.length === 3)
  })
})
