import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { writeTransaction } from '../src/db/transactions.js'
import { rebuildSearchIndexes, rebuildSearchWhereMissing } from '../src/derived/search-rebuild.js'
import { findExpert } from '../src/experts/repository.js'
import { offerWork } from '../src/works/candidates.js'
import { mergeWork } from '../src/works/merge.js'
import type { WorkConcept } from '../src/works/sources/source.js'
import { api, expectError, expectOk, unchecked } from './helpers/api.js'
import { present } from './helpers/checked.js'
import { createExpert, describeEachDialect, requestToken } from './helpers/harness.js'
import { authoredWork } from './helpers/works.js'

/** Finding experts by meaning (CONTRACT §20): fingerprints, similar experts, experts for a text, related topics. */

interface Person {
  first: string
  department: string
  topics: string[]
  bio: string
  visibility?: 'private' | 'unpublished'
}

const PEOPLE: Person[] = [
  {
    first: 'Ada',
    department: 'Engineering',
    topics: ['Flood risk', 'Coastal engineering', 'Hydrology'],
    bio: '<p>Ada models <b>storm surge</b> barriers and flood defences for coastal cities, and sea level rise.</p>',
  },
  {
    first: 'Ben',
    department: 'Engineering',
    topics: ['Coastal engineering', 'Sea level rise'],
    bio: '<p>Ben designs breakwaters and storm surge defences against coastal erosion.</p>',
  },
  {
    first: 'Cara',
    department: 'Geography',
    topics: ['Flood risk', 'Hydrology'],
    bio: '<p>Cara forecasts river flooding from rainfall and catchment hydrology.</p>',
  },
  {
    first: 'Dan',
    department: 'Medicine',
    topics: ['Cardiology', 'Hypertension'],
    bio: '<p>Dan treats heart failure and high blood pressure in older patients.</p>',
  },
  {
    first: 'Eve',
    department: 'Medicine',
    topics: ['Cardiology'],
    bio: '<p>Eve runs clinical trials of heart failure drugs.</p>',
  },
  {
    first: 'Finn',
    department: 'Medicine',
    topics: ['Hypertension', 'Nutrition'],
    bio: '<p>Finn studies salt intake and blood pressure in children.</p>',
  },
  {
    first: 'Gina',
    department: 'Law',
    topics: ['Copyright', 'Intellectual property'],
    bio: '<p>Gina teaches copyright law and the licensing of creative works.</p>',
  },
  {
    first: 'Hugo',
    department: 'Law',
    topics: ['Intellectual property', 'Patents'],
    bio: '<p>Hugo litigates patents and licensing disputes.</p>',
  },
  {
    first: 'Ivy',
    department: 'Engineering',
    topics: ['Flood risk', 'Tsunami', 'Sea level rise'],
    bio: '<p>Ivy maps tsunami inundation and storm surge along coastal cities.</p>',
    visibility: 'private',
  },
  {
    first: 'Jon',
    department: 'Geography',
    topics: ['Flood risk', 'Hydrology', 'Sea level rise'],
    bio: '<p>Jon measures groundwater and flooding of river deltas.</p>',
    visibility: 'unpublished',
  },
  {
    first: 'Kim',
    department: 'Geography',
    topics: ['Hydrology', 'Flood risk', 'Sea level rise'],
    bio: '<p>Kim studies river catchments, rainfall and flood forecasting.</p>',
  },
  {
    first: 'Leo',
    department: 'Medicine',
    topics: ['Nutrition', 'Cardiology'],
    bio: '<p>Leo links diet and heart disease.</p>',
  },
]

const concept = (
  label: string,
  score: number,
  scheme: WorkConcept['scheme'] = 'openalex_topic',
  major = true,
) => ({
  scheme,
  id: label.toLowerCase().replace(/\W+/g, '-'),
  label,
  score,
  major,
})

const HEART_ABSTRACT =
  'We randomised 412 patients with chronic heart failure to a sodium restricted diet or usual care. Ventricular ejection fraction, natriuretic peptide and readmissions were measured over eighteen months; restricted sodium lowered readmissions.'

const WORKS = [
  {
    doi: '10.1000/surge-1',
    title: 'Storm surge barriers in a warmer climate',
    year: 2024,
    abstract: 'Storm surge barriers protect estuaries; we model surge heights under sea level rise.',
    concepts: [
      concept('Flood risk', 0.9),
      concept('Coastal engineering', 0.8),
      concept('Sea level rise', 0.7, 'openalex_keyword'),
    ],
    claimedBy: ['Ada', 'Ben', 'Ivy'],
  },
  {
    doi: '10.1000/breakwater-2',
    title: 'Breakwater design for eroding coasts',
    year: 2021,
    abstract: 'Rubble mound breakwaters reduce coastal erosion.',
    concepts: [concept('Coastal engineering', 0.9), concept('Coastal erosion', 0.6)],
    claimedBy: ['Ben'],
  },
  {
    doi: '10.1000/river-3',
    title: 'River flood forecasting with rainfall ensembles',
    year: 2022,
    abstract: 'Ensembles of rainfall improve river flood forecasting in small catchments.',
    concepts: [concept('Flood risk', 0.8), concept('Hydrology', 0.9)],
    claimedBy: ['Cara'],
  },
  {
    doi: '10.1000/heart-4',
    title: 'Sodium restriction in chronic heart failure',
    year: 2025,
    abstract: HEART_ABSTRACT,
    concepts: [
      concept('Heart Failure', 1, 'mesh', true),
      concept('Sodium, Dietary', 1, 'mesh', true),
      concept('Hypertension', 1, 'mesh', false),
    ],
    claimedBy: ['Eve'],
  },
]

describeEachDialect('finding experts by meaning', (ctx) => {
  const usernames = new Map<string, string>()
  const workIds = new Map<string, number>()
  let publicToken = ''
  const client = () => api(ctx.app, ctx.tenant)
  const corporation = () => ctx.tenant.orgId
  const user = (first: string) => present(usernames.get(first), first)
  const trail = { actor: { kind: 'cli' as const }, action: 'test' }

  async function addSection(username: string, section: 'topic' | 'biography', body: Record<string, string>) {
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${corporation()}/expert/${username}/${section}`,
      headers: ctx.tenant.auth,
      payload: body,
    })
    assert.equal(response.statusCode, 200, response.body)
    return Number(response.json().data.id)
  }

  async function claim(orgId: number, username: string, work: (typeof WORKS)[number]) {
    const { db } = ctx.testDatabase.database
    const expert = present(await findExpert(db, orgId, username))
    return writeTransaction(db, async (trx) => {
      const now = ctx.clock.now()
      const merged = await mergeWork(
        trx,
        orgId,
        authoredWork('crossref', {
          doi: work.doi,
          title: work.title,
          year: work.year,
          abstract: work.abstract,
          concepts: work.concepts,
        }),
        now,
      )
      await offerWork(trx, orgId, expert, merged.work, {
        outcome: { state: 'claimed', score: 1 },
        reason: 'identifier',
        now,
        trail,
      })
      return merged.work.id
    })
  }

  before(async () => {
    for (const person of PEOPLE) {
      const username = await createExpert(ctx, ctx.tenant, {
        firstname: person.first,
        lastname: 'Tester',
        job_title: `${person.department} researcher`,
        department: person.department,
      })
      usernames.set(person.first, username)
      expectOk(
        await client().put('/v2/organization/{corporation}/expert/{username}', {
          params: { corporation: corporation(), username },
          body: {
            is_published: person.visibility === 'unpublished' ? 0 : 1,
            is_private: person.visibility === 'private' ? 1 : 0,
          },
        }),
      )
      for (const topic of person.topics) await addSection(username, 'topic', { name: topic })
      await addSection(username, 'biography', { biography: person.bio })
    }
    for (const work of WORKS)
      for (const first of work.claimedBy) workIds.set(work.doi, await claim(corporation(), user(first), work))
    const { db } = ctx.testDatabase.database
    const publicClient = await createClient(db, corporation(), 'website', ctx.clock.now(), ['read:public'])
    publicToken = await requestToken(ctx.app, publicClient)
  })

  const similar = async (first: string, token?: string, limit?: number) =>
    expectOk(
      await api(ctx.app, token ?? ctx.tenant).get(
        '/v2/organization/{corporation}/expert/{username}/similar',
        {
          params: { corporation: corporation(), username: user(first) },
          ...(limit ? { query: { limit } } : {}),
        },
      ),
    ).experts
  const match = async (text: string, token?: string) =>
    expectOk(
      await api(ctx.app, token ?? ctx.tenant).post('/v2/organization/{corporation}/expert/match', {
        params: { corporation: corporation() },
        body: { text },
      }),
    ).experts
  const related = async (topic: string, token?: string) =>
    expectOk(
      await api(ctx.app, token ?? ctx.tenant).get('/v2/organization/{corporation}/topic/related', {
        params: { corporation: corporation() },
        query: { topic },
      }),
    ).topics
  const concepts = async (first: string) =>
    expectOk(
      await client().get('/v2/organization/{corporation}/expert/{username}/concepts', {
        params: { corporation: corporation(), username: user(first) },
      }),
    ).concepts
  const firstNames = (experts: { firstname: string }[]) => experts.map((expert) => expert.firstname)

  test('similar experts: fused concepts, co-authorship and words, with exact reasons', async () => {
    const found = await similar('Ada', undefined, 4)
    assert.deepEqual(
      found.map(({ firstname, score, reasons }) => ({ firstname, score, reasons })),
      SIMILAR_TO_ADA,
    )
    assert.ok(!firstNames(await similar('Ada')).includes('Ada'), 'the source is never similar to itself')
  })

  test('a pasted abstract finds its author, with concept and term reasons', async () => {
    const found = await match(`Press release. ${HEART_ABSTRACT} Contact the heart failure team.`)
    const [top] = found
    assert.equal(top?.firstname, 'Eve')
    assert.ok(top?.reasons.some((reason) => reason.kind === 'concept' && reason.label === 'Heart Failure'))
    assert.ok(top?.reasons.some((reason) => reason.kind === 'term'))
    assert.ok(top?.reasons.every((reason) => reason.kind !== 'coauthor'))
  })

  test("a DOI in the text brings in that work's concepts", async () => {
    const found = await match('Who can comment on doi:10.1000/heart-4 ?')
    assert.deepEqual(firstNames(found).slice(0, 1), ['Eve'])
    assert.deepEqual(
      found[0]?.reasons.filter((reason) => reason.kind === 'concept').map((reason) => reason.label),
      ['Heart Failure', 'Sodium, Dietary', 'Hypertension'],
    )
    assert.ok(firstNames(found).includes('Dan'), 'Hypertension is his topic')
  })

  test('related topics by normalised PMI, pairs of at least 3 experts', async () => {
    assert.deepEqual(await related('flood RISK'), RELATED_ALL)
    assert.deepEqual(await related('Unheard of'), [])
  })

  test('read:public never sees a private or unpublished expert, nor a reason drawn from one', async () => {
    const hidden = new Set(['Ivy', 'Jon'])
    for (const first of ['Ada', 'Cara', 'Kim', 'Ben']) {
      const found = await similar(first, publicToken, 50)
      assert.ok(!firstNames(found).some((name) => hidden.has(name)), `${first}: ${firstNames(found)}`)
      for (const expert of found)
        for (const reason of expert.reasons) assert.ok(!/tsunami|groundwater|delta/i.test(reason.label))
    }
    const withRead = firstNames(await similar('Ada', undefined, 50))
    assert.ok(withRead.includes('Ivy') && withRead.includes('Jon'), 'a read token sees them')
    const tsunami = await match('Tsunami inundation maps along the coast', publicToken)
    assert.ok(!firstNames(tsunami).some((name) => hidden.has(name)))
    for (const expert of tsunami) assert.ok(expert.reasons.every((reason) => reason.label !== 'Tsunami'))
    assert.equal(firstNames(await match('Tsunami inundation maps along the coast'))[0], 'Ivy')
    for (const first of ['Ivy', 'Jon'])
      expectError(
        await api(ctx.app, publicToken).get('/v2/organization/{corporation}/expert/{username}/similar', {
          params: { corporation: corporation(), username: user(first) },
        }),
        404,
        'not_found',
      )
    assert.deepEqual(await related('Flood risk', publicToken), RELATED_PUBLIC)
  })

  test('a hidden concept leaves the vector and the reasons, and stays hidden across recomputes', async () => {
    const hide = (hidden: boolean) =>
      client().put('/v2/organization/{corporation}/expert/{username}/concepts/{concept}', {
        params: { corporation: corporation(), username: user('Cara'), concept: 'hydrology' },
        body: { hidden },
      })
    const before = await concepts('Cara')
    assert.deepEqual(
      before.map((entry) => [entry.concept, entry.hidden]),
      [
        ['hydrology', false],
        ['flood-risk', false],
      ],
    )
    const shown = expectOk(await hide(true))
    assert.deepEqual(shown, { concept: 'hydrology', label: 'Hydrology', weight: 0, hidden: true })
    const after = await concepts('Cara')
    assert.deepEqual(after.find((entry) => entry.concept === 'flood-risk')?.weight, 1)
    const cara = (await similar('Ada', undefined, 50)).find((expert) => expert.firstname === 'Cara')
    assert.ok(cara, 'Cara is still similar through Flood risk')
    assert.ok(
      cara.reasons.every((reason) => reason.label !== 'Hydrology'),
      JSON.stringify(cara.reasons),
    )
    await addSection(user('Cara'), 'topic', { name: 'Rainfall' })
    assert.equal((await concepts('Cara')).find((entry) => entry.concept === 'hydrology')?.hidden, true)
    const audit = expectOk(
      await client().get('/v2/organization/{corporation}/audit', {
        params: { corporation: corporation() },
        query: { kind: 'concept' },
      }),
    )
    assert.ok(audit.entries.some((entry) => entry.record.id === `${user('Cara')}/hydrology`))
    expectOk(await hide(false))
    assert.equal((await concepts('Cara')).find((entry) => entry.concept === 'hydrology')?.hidden, false)
    expectError(
      await client().put('/v2/organization/{corporation}/expert/{username}/concepts/{concept}', {
        params: { corporation: corporation(), username: user('Cara'), concept: 'astrophysics' },
        body: { hidden: true },
      }),
      404,
      'not_found',
    )
  })

  test('fingerprints follow writes: a topic added and removed, a work claimed then rejected', async () => {
    const keys = async (first: string) => (await concepts(first)).map((entry) => entry.concept).sort()
    assert.deepEqual(await keys('Gina'), ['copyright', 'intellectual-property'])
    const id = await addSection(user('Gina'), 'topic', { name: 'Zoë’s Ethics' })
    assert.deepEqual(await keys('Gina'), ['copyright', 'intellectual-property', 'zoe-s-ethics'])
    expectOk(
      await client().delete('/v2/organization/{corporation}/expert/{username}/topic/{id}', {
        params: { corporation: corporation(), username: user('Gina'), id },
      }),
    )
    assert.deepEqual(await keys('Gina'), ['copyright', 'intellectual-property'])

    const workId = await claim(corporation(), user('Hugo'), WORKS[1] ?? assert.fail())
    assert.deepEqual(await keys('Hugo'), [
      'coastal-engineering',
      'coastal-erosion',
      'intellectual-property',
      'patents',
    ])
    assert.ok(firstNames(await similar('Hugo', undefined, 50)).includes('Ben'), 'co-author of the breakwater')
    expectOk(
      await client().patch('/v2/organization/{corporation}/expert/{username}/works/{id}', {
        params: { corporation: corporation(), username: user('Hugo'), id: workId },
        body: { state: 'rejected' },
      }),
    )
    assert.deepEqual(await keys('Hugo'), ['intellectual-property', 'patents'])
    assert.ok(!firstNames(await similar('Hugo', undefined, 50)).includes('Ben'))
  })

  test('a text naming no concept finds experts through the concepts its words go with in the claimed works', async () => {
    const { db } = ctx.testDatabase.database
    const orgId = corporation()
    const groundwater = (doi: string, title: string, abstract: string) => ({
      doi,
      title,
      year: 2023,
      abstract,
      concepts: [concept('Groundwater', 0.9)],
      claimedBy: ['Kim'],
    })
    const first = groundwater(
      '10.1000/aquifer-5',
      'Aquifer recharge under irrigated fields',
      'Boreholes across the plain show aquifer recharge slowing as irrigation draws down the water table.',
    )
    const second = groundwater(
      '10.1000/aquifer-6',
      'Karst aquifer recharge after drought',
      'Tracer tests in karst boreholes date aquifer recharge after a dry decade.',
    )
    const countedBefore = (
      await db.selectFrom('meaning_stats').select('works').where('org_id', '=', orgId).executeTakeFirst()
    )?.works
    await claim(orgId, user('Kim'), first)
    const secondId = await claim(orgId, user('Kim'), second)
    const pair = async () =>
      (
        await db
          .selectFrom('term_concepts')
          .select('works')
          .where('org_id', '=', orgId)
          .where('term', '=', 'aquif')
          .where('concept', '=', 'groundwater')
          .executeTakeFirst()
      )?.works
    assert.equal(await pair(), 2)

    const found = await match(
      'Why are the boreholes drying up? Aquifer recharge is slowing, the water table falls.',
    )
    assert.equal(found[0]?.firstname, 'Kim')
    assert.ok(
      found[0]?.reasons.some((reason) => reason.kind === 'concept' && reason.label === 'Groundwater'),
      JSON.stringify(found[0]?.reasons),
    )

    // A work no expert claims any more teaches nothing: its words and concepts leave the counts.
    expectOk(
      await client().patch('/v2/organization/{corporation}/expert/{username}/works/{id}', {
        params: { corporation: orgId, username: user('Kim'), id: secondId },
        body: { state: 'rejected' },
      }),
    )
    assert.equal(await pair(), 1)
    const countedAfter = (
      await db.selectFrom('meaning_stats').select('works').where('org_id', '=', orgId).executeTakeFirst()
    )?.works
    assert.equal(countedAfter, (countedBefore ?? 0) + 1)
  })

  test("an expert's delete takes out the works only it claimed, and keeps those another expert claims", async () => {
    const { db } = ctx.testDatabase.database
    const orgId = corporation()
    const username = await createExpert(ctx, ctx.tenant, {
      firstname: 'Zed',
      lastname: 'Tester',
      job_title: 'Geography researcher',
      department: 'Geography',
    })
    const own = {
      doi: '10.1000/glacier-7',
      title: 'Glacier melt and meltwater lakes',
      year: 2024,
      abstract: 'Proglacial meltwater lakes grow as glaciers retreat.',
      concepts: [concept('Glaciology', 0.9)],
      claimedBy: ['Zed'],
    }
    const counted = async () =>
      (await db.selectFrom('meaning_stats').select('works').where('org_id', '=', orgId).executeTakeFirst())
        ?.works ?? 0
    const stored = async (doi: string) =>
      db
        .selectFrom('meaning_works')
        .select('concepts')
        .where('org_id', '=', orgId)
        .where('work_id', '=', present(workIds.get(doi)))
        .executeTakeFirst()
    const before = await counted()
    workIds.set(own.doi, await claim(orgId, username, own))
    const shared = present(WORKS[2])
    await claim(orgId, username, shared)
    assert.equal(await counted(), before + 1, 'the river work was counted already, through Cara')
    expectOk(
      await api(ctx.app, ctx.tenant).delete('/v2/organization/{corporation}/expert/{username}', {
        params: { corporation: orgId, username },
      }),
    )
    assert.equal(await counted(), before)
    assert.equal(await stored(own.doi), undefined)
    assert.equal((await stored(shared.doi))?.concepts, 'flood-risk hydrology')
    const glacier = await db
      .selectFrom('term_concepts')
      .select('term')
      .where('org_id', '=', orgId)
      .where('concept', '=', 'glaciology')
      .execute()
    assert.deepEqual(glacier, [])
  })

  test('a rebuild recreates identical rows', async () => {
    const { db } = ctx.testDatabase.database
    const orgId = corporation()
    const snapshot = async () => ({
      documents: await db
        .selectFrom('meaning_documents')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('expert_id')
        .execute(),
      stats: await db.selectFrom('meaning_stats').selectAll().where('org_id', '=', orgId).execute(),
      concepts: await db
        .selectFrom('expert_concepts')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('expert_id')
        .orderBy('concept')
        .execute(),
      conceptDf: await db
        .selectFrom('concept_df')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('concept')
        .execute(),
      terms: await db
        .selectFrom('expert_terms')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('expert_id')
        .orderBy('term')
        .execute(),
      termDf: await db
        .selectFrom('term_df')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('term')
        .execute(),
      works: await db
        .selectFrom('meaning_works')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('work_id')
        .execute(),
      termConcepts: await db
        .selectFrom('term_concepts')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('term')
        .orderBy('concept')
        .execute(),
      termWorks: await db
        .selectFrom('term_works')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('term')
        .execute(),
    })
    const written = await snapshot()
    assert.ok(written.concepts.length > 30 && written.terms.length > 100)
    assert.ok(written.works.length >= 5 && written.termConcepts.length > 50)
    await rebuildSearchIndexes(db, [orgId])
    assert.deepEqual(await snapshot(), written)
    // Data from before migration 0030: migrate's derived step finds experts without their rows.
    for (const table of [
      'meaning_documents',
      'expert_concepts',
      'expert_terms',
      'concept_df',
      'term_df',
    ] as const)
      await db.deleteFrom(table).where('org_id', '=', orgId).execute()
    assert.ok((await rebuildSearchWhereMissing(db)).includes(orgId))
    assert.deepEqual(await snapshot(), written)
    // Data from before migration 0033: a claimed work without its row.
    await db.deleteFrom('meaning_works').where('org_id', '=', orgId).execute()
    assert.ok((await rebuildSearchWhereMissing(db)).includes(orgId))
    assert.deepEqual(await snapshot(), written)
  })

  test('bad requests are 4xx: unknown expert, text too long or empty, bad limits, no topic', async () => {
    const params = { corporation: corporation(), username: 'nobody-here' }
    expectError(
      await client().get('/v2/organization/{corporation}/expert/{username}/similar', { params }),
      404,
      'not_found',
    )
    expectError(
      await client().get('/v2/organization/{corporation}/expert/{username}/concepts', { params }),
      404,
      'not_found',
    )
    for (const limit of [0, 51, 2.5])
      expectError(
        await client().get('/v2/organization/{corporation}/expert/{username}/similar', {
          params: { corporation: corporation(), username: user('Ada') },
          query: { limit },
        }),
        400,
        'validation_failed',
      )
    for (const text of ['', 'x'.repeat(20_001)])
      expectError(
        await client().post('/v2/organization/{corporation}/expert/match', {
          params: { corporation: corporation() },
          body: { text },
        }),
        400,
        'validation_failed',
      )
    expectError(
      await client().post('/v2/organization/{corporation}/expert/match', {
        params: { corporation: corporation() },
        body: unchecked({ text: 'flood', limit: 500 }),
      }),
      400,
      'validation_failed',
    )
    assert.equal((await match('x'.repeat(20_000))).length, 0)
    expectError(
      await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${corporation()}/topic/related`,
        headers: ctx.tenant.auth,
      }),
      400,
      'validation_failed',
    )
  })

  test("another organization's experts never appear", async () => {
    const other = ctx.other
    const stranger = await createExpert(ctx, other, { firstname: 'Olga', lastname: 'Outsider' })
    expectOk(
      await api(ctx.app, other).put('/v2/organization/{corporation}/expert/{username}', {
        params: { corporation: other.orgId, username: stranger },
        body: { is_published: 1 },
      }),
    )
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${other.orgId}/expert/${stranger}/topic`,
      headers: other.auth,
      payload: { name: 'Flood risk' },
    })
    assert.equal(response.statusCode, 200)
    await claim(other.orgId, stranger, WORKS[0] ?? assert.fail())
    assert.ok(!firstNames(await similar('Ada', undefined, 50)).includes('Olga'))
    assert.ok(!firstNames(await match('Storm surge barriers and flood risk')).includes('Olga'))
    const theirs = expectOk(
      await api(ctx.app, other).get('/v2/organization/{corporation}/expert/{username}/similar', {
        params: { corporation: other.orgId, username: stranger },
      }),
    ).experts
    assert.deepEqual(theirs, [])
    expectError(
      await api(ctx.app, other).get('/v2/organization/{corporation}/expert/{username}/similar', {
        params: { corporation: other.orgId, username: user('Ada') },
      }),
      404,
      'not_found',
    )
  })
})

/** Ivy (private) and Jon (unpublished) appear: the token has `read`. */
const SIMILAR_TO_ADA = [
  {
    firstname: 'Ben',
    score: 0.053014,
    reasons: [
      { kind: 'concept', label: 'Coastal engineering' },
      { kind: 'concept', label: 'Flood risk' },
      { kind: 'concept', label: 'Sea level rise' },
      { kind: 'coauthor', label: 'Storm surge barriers in a warmer climate' },
      { kind: 'term', label: 'surge' },
      { kind: 'term', label: 'coastal' },
      { kind: 'term', label: 'storm' },
    ],
  },
  {
    firstname: 'Ivy',
    score: 0.051939,
    reasons: [
      { kind: 'concept', label: 'Flood risk' },
      { kind: 'concept', label: 'Coastal engineering' },
      { kind: 'concept', label: 'Sea level rise' },
      { kind: 'coauthor', label: 'Storm surge barriers in a warmer climate' },
      { kind: 'term', label: 'surge' },
      { kind: 'term', label: 'storm' },
      { kind: 'term', label: 'barriers' },
    ],
  },
  {
    firstname: 'Jon',
    score: 0.032002,
    reasons: [
      { kind: 'concept', label: 'Flood risk' },
      { kind: 'concept', label: 'Hydrology' },
      { kind: 'concept', label: 'Sea level rise' },
      { kind: 'term', label: 'flood' },
      { kind: 'term', label: 'hydrology' },
      { kind: 'term', label: 'level' },
    ],
  },
  {
    firstname: 'Kim',
    score: 0.031498,
    reasons: [
      { kind: 'concept', label: 'Flood risk' },
      { kind: 'concept', label: 'Hydrology' },
      { kind: 'concept', label: 'Sea level rise' },
      { kind: 'term', label: 'flood' },
      { kind: 'term', label: 'hydrology' },
      { kind: 'term', label: 'level' },
    ],
  },
]
const RELATED_ALL = [
  { topic: 'Sea level rise', strength: 0.7917, experts: 5 },
  { topic: 'Hydrology', strength: 0.6309, experts: 4 },
  { topic: 'Coastal engineering', strength: 0.5, experts: 3 },
]
/** Ivy and Jon are not counted: Coastal engineering falls under 3 experts. */
const RELATED_PUBLIC = [
  { topic: 'Hydrology', strength: 0.7611, experts: 3 },
  { topic: 'Sea level rise', strength: 0.7611, experts: 3 },
]
