import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { InjectOptions } from 'fastify'
import { createClient } from '../src/auth/clients.js'
import { ImportRejected } from '../src/import/index.js'
import { PROFILE_KEYS } from '../src/profiles/read.js'
import { importDocument } from './helpers/content.js'
import {
  createExpert,
  createStaff,
  describeEachDialect,
  detailsOf,
  envelope,
  expertBody,
  inquiryBody,
  type Tenant,
  type TestContext,
} from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'
import { withoutContactDetails } from './helpers/public-view.js'

type Element = Record<string, unknown>

function call(
  ctx: TestContext,
  method: InjectOptions['method'],
  url: string,
  payload?: object,
  tenant?: Tenant,
) {
  return ctx.inject({
    method,
    url,
    headers: (tenant ?? ctx.tenant).auth,
    ...(payload !== undefined ? { payload } : {}),
  })
}

async function data(response: Awaited<ReturnType<typeof call>>) {
  assert.equal(response.statusCode, 200, response.body)
  return envelope(response).data as Element
}

function expectError(response: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(envelope(response).success, false)
  assert.equal(envelope(response).error?.code, code)
}

async function storedType(ctx: TestContext, orgId: number, username: string) {
  const row = await ctx.testDatabase.database.db
    .selectFrom('experts')
    .select('type')
    .where('org_id', '=', orgId)
    .where('username', '=', username)
    .executeTakeFirst()
  return row?.type
}

describeEachDialect('staff profiles', (ctx) => {
  const org = () => ctx.tenant.orgId
  const staffUrl = (username: string, orgId = org()) => `/v2/organization/${orgId}/staff/${username}`
  const expertUrl = (username: string, orgId = org()) => `/v2/organization/${orgId}/expert/${username}`

  test('create, read, update and delete a staff member, stored as a profile of type staff', async () => {
    const created = await data(
      await call(
        ctx,
        'POST',
        `/v2/organization/${org()}/staff`,
        expertBody({ firstname: 'Ines', lastname: 'Dubois' }),
      ),
    )
    assert.equal(created.inserted, true)
    const username = String(created.username)
    assert.match(username, /^ines-dubois(-\d+)?$/)
    assert.equal(await storedType(ctx, org(), username), 'staff')

    const profile = await data(await call(ctx, 'GET', staffUrl(username)))
    assert.deepEqual(Object.keys(profile).sort(), [...PROFILE_KEYS].sort())
    const [account] = profile.account as Element[]
    assert.equal(account?.username, username)
    assert.equal(account?.is_published, 0)
    assert.equal(account?.is_private, 0)
    assert.deepEqual(profile.biography, [])

    assert.deepEqual(
      await data(
        await call(ctx, 'PUT', staffUrl(username), { job_title: 'Dean of Students', is_published: 1 }),
      ),
      {
        username,
        updated: true,
      },
    )
    assert.deepEqual(
      await data(await call(ctx, 'PUT', staffUrl(username), { job_title: 'Dean of Students' })),
      {
        username,
        updated: false,
      },
    )
    const [changed] = (await data(await call(ctx, 'GET', staffUrl(username)))).account as Element[]
    assert.equal(changed?.job_title, 'Dean of Students')
    assert.equal(changed?.is_published, 1)

    assert.deepEqual(await data(await call(ctx, 'DELETE', staffUrl(username))), { deleted: true, username })
    assert.equal(await storedType(ctx, org(), username), undefined)
    expectError(await call(ctx, 'GET', staffUrl(username)), 404, 'not_found')
    expectError(await call(ctx, 'DELETE', staffUrl(username)), 404, 'not_found')
  })

  test('the write API validates as for experts: flags not accepted on create, unknown fields, empty update', async () => {
    const url = `/v2/organization/${org()}/staff`
    const rejected = detailsOf(
      await call(ctx, 'POST', url, expertBody({ is_published: 1, shoe_size: 9, email: 'nope' })),
    )
    assert.match(rejected.is_published ?? '', /not accepted on create/)
    assert.ok(rejected.shoe_size, 'the unknown field is named')
    assert.ok(rejected.email, 'the bad email is named')
    const username = await createStaff(ctx, ctx.tenant)
    assert.ok(detailsOf(await call(ctx, 'PUT', staffUrl(username), {})))
    assert.ok(
      detailsOf(await call(ctx, 'PUT', staffUrl(username), { location_country: 'ZZ' })).location_country,
    )
  })

  test('experts and staff share the username space and the email addresses of the organization', async () => {
    const email = `shared.${Date.now()}@example.edu`
    const expert = await createExpert(ctx, ctx.tenant, { firstname: 'Kim', lastname: 'Sato', email })
    const staff = await createStaff(ctx, ctx.tenant, { firstname: 'Kim', lastname: 'Sato' })
    assert.notEqual(staff, expert)
    assert.equal(staff, `${expert}-2`)

    const taken = await call(ctx, 'POST', `/v2/organization/${org()}/staff`, expertBody({ email }))
    expectError(taken, 409, 'conflict')
    assert.equal(envelope(taken).error?.details?.[0]?.field, 'email')
    assert.match(envelope(taken).error?.message ?? '', /expert/)

    const staffEmail = `office.${Date.now()}@example.edu`
    const member = await createStaff(ctx, ctx.tenant, { email: staffEmail })
    const clash = await call(
      ctx,
      'POST',
      `/v2/organization/${org()}/expert`,
      expertBody({ email: staffEmail }),
    )
    expectError(clash, 409, 'conflict')
    assert.match(envelope(clash).error?.message ?? '', /staff member/)
    expectError(
      await call(ctx, 'PUT', expertUrl(expert), { email: staffEmail.toUpperCase() }),
      409,
      'conflict',
    )

    await data(await call(ctx, 'DELETE', staffUrl(member)))
    const again = await createStaff(ctx, ctx.tenant, { firstname: 'Kim', lastname: 'Sato' })
    assert.notEqual(again, staff, 'a deleted username is not handed out again')
  })

  test('each staff section is written and read with the shapes of the expert sections', async () => {
    const username = await createStaff(ctx, ctx.tenant)
    const base = staffUrl(username)

    const biography = await data(
      await call(ctx, 'POST', `${base}/biography`, {
        description: '<p>Runs <b>admissions</b>.<script>x()</script></p>',
      }),
    )
    assert.equal(biography.updated, true)
    assert.deepEqual((await data(await call(ctx, 'GET', `${base}/biography`))).biography, [
      { id: biography.id, biography: '<p>Runs <b>admissions</b>.</p>' },
    ])
    await data(await call(ctx, 'POST', `${base}/tagline`, { tagline: 'Your first contact' }))
    assert.equal(
      ((await data(await call(ctx, 'GET', `${base}/tagline`))).tagline as Element[])[0]?.tagline,
      'Your first contact',
    )

    const link = await data(
      await call(ctx, 'POST', `${base}/link`, { name: 'Office', url: 'https://office.example' }),
    )
    assert.deepEqual(
      await data(await call(ctx, 'PUT', `${base}/link/${link.id}`, { name: 'Front office' })),
      { id: link.id, updated: true },
    )
    assert.deepEqual(await data(await call(ctx, 'GET', `${base}/link/${link.id}`)), {
      link: [{ id: link.id, name: 'Front office', url: 'https://office.example' }],
    })

    const education = await data(
      await call(ctx, 'POST', `${base}/education`, { institution: 'Sorbonne', degree: 'MA', date: 2004 }),
    )
    assert.equal(
      ((await data(await call(ctx, 'GET', `${base}/education/${education.id}`))).education as Element[])[0]
        ?.institution,
      'Sorbonne',
    )

    const language = await data(await call(ctx, 'POST', `${base}/language`, { name: 'French' }))
    const category = await data(await call(ctx, 'POST', `${base}/category`, { name: 'Admissions' }))
    assert.deepEqual(await data(await call(ctx, 'POST', `${base}/category`, { name: 'admissions' })), {
      id: category.id,
    })
    const tag = await data(await call(ctx, 'POST', `${base}/tag`, { tag: 'front-desk' }))
    expectError(
      await call(ctx, 'PUT', `${base}/category/${category.id}`, { name: 'X' }),
      405,
      'method_not_allowed',
    )

    const profile = await data(await call(ctx, 'GET', base))
    assert.equal((profile.biography as Element[]).length, 1)
    assert.equal((profile.tagline as Element[]).length, 1)
    assert.deepEqual(
      (profile.link as Element[]).map((e) => e.name),
      ['Front office'],
    )
    assert.deepEqual(
      (profile.education as Element[]).map((e) => e.degree),
      ['MA'],
    )
    assert.deepEqual(
      (profile.language as Element[]).map((e) => e.id),
      [language.id],
    )
    assert.deepEqual(
      (profile.category as Element[]).map((e) => e.name),
      ['Admissions'],
    )
    assert.deepEqual(
      (profile.tag as Element[]).map((e) => [e.id, e.tag]),
      [[tag.id, 'front-desk']],
    )

    await data(await call(ctx, 'DELETE', `${base}/link/${link.id}`))
    await data(await call(ctx, 'DELETE', `${base}/tagline`))
    expectError(await call(ctx, 'DELETE', `${base}/tagline`), 404, 'not_found')
    const after = await data(await call(ctx, 'GET', base))
    assert.deepEqual(after.link, [])
    assert.deepEqual(after.tagline, [])
  })

  test('a staff write changes the stored document and its ETag; an unchanged profile answers 304', async () => {
    const username = await createStaff(ctx, ctx.tenant)
    const first = await call(ctx, 'GET', staffUrl(username))
    const etag = String(first.headers.etag)
    const cached = await ctx.inject({
      method: 'GET',
      url: staffUrl(username),
      headers: { ...ctx.tenant.auth, 'if-none-match': etag },
    })
    assert.equal(cached.statusCode, 304)
    await data(await call(ctx, 'POST', `${staffUrl(username)}/tagline`, { tagline: 'New' }))
    const second = await call(ctx, 'GET', staffUrl(username))
    assert.notEqual(second.headers.etag, etag)
    assert.equal(((await data(second)).tagline as Element[])[0]?.tagline, 'New')
  })

  test('sections a staff member does not have are not routes under /staff', async () => {
    const username = await createStaff(ctx, ctx.tenant)
    for (const section of ['article', 'topic', 'availability', 'account', 'spotlight']) {
      expectError(await call(ctx, 'GET', `${staffUrl(username)}/${section}`), 404, 'not_found')
    }
    expectError(await call(ctx, 'POST', `${staffUrl(username)}/article`, { title: 'No' }), 404, 'not_found')
  })

  test('an expert route under a staff username is 404, and a staff route under an expert username', async () => {
    const staff = await createStaff(ctx, ctx.tenant)
    const expert = await createExpert(ctx, ctx.tenant)
    const before = await data(await call(ctx, 'GET', staffUrl(staff)))
    for (const [method, path, payload] of [
      ['GET', '', undefined],
      ['PUT', '', { job_title: 'Changed' }],
      ['DELETE', '', undefined],
      ['GET', '/biography', undefined],
      ['POST', '/tagline', { tagline: 'Leaked' }],
      ['POST', '/link', { name: 'Leaked', url: 'https://leak.example' }],
    ] as const) {
      expectError(await call(ctx, method, `${expertUrl(staff)}${path}`, payload), 404, 'not_found')
      expectError(await call(ctx, method, `${staffUrl(expert)}${path}`, payload), 404, 'not_found')
    }
    assert.deepEqual(
      await data(await call(ctx, 'GET', staffUrl(staff))),
      before,
      'the staff member is unchanged',
    )
    assert.equal(await storedType(ctx, org(), expert), 'expert', 'the expert is still there')

    expectError(
      await call(ctx, 'POST', `/v2/organization/${org()}/inquiry/general`, inquiryBody('general', staff)),
      404,
      'not_found',
    )
    const post = await call(ctx, 'POST', `/v2/spotlight/${org()}`, {
      title: 'T',
      html: '<p>x</p>',
      tagged: [staff],
    })
    assert.match(detailsOf(post)['tagged[0]'] ?? '', /not an expert/)
    const question = await data(await call(ctx, 'POST', `/v2/qanda/${org()}`, { question: 'Who?' }))
    const answer = await call(ctx, 'POST', `/v2/qanda/${org()}/${question.id}/answer`, {
      username: staff,
      answer: 'Me',
    })
    assert.match(detailsOf(answer).username ?? '', /not an expert/)
  })

  test('staff members are not in the expert search, its total or its facet counts', async () => {
    const tenant = await ctx.addTenant('Search College')
    await createExpert(ctx, tenant, { firstname: 'Zelda', lastname: 'Quintero' })
    const staff = await createStaff(ctx, tenant, { firstname: 'Zelda', lastname: 'Quasimodo' })
    await data(
      await call(ctx, 'POST', `${staffUrl(staff, tenant.orgId)}/category`, { name: 'Registry' }, tenant),
    )
    await data(
      await call(ctx, 'POST', `${staffUrl(staff, tenant.orgId)}/tagline`, { tagline: 'Zelda' }, tenant),
    )
    const search = async (query: string) =>
      data(await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/expert?${query}`, undefined, tenant))
    const byName = await search('q=zelda&access=all')
    assert.deepEqual(
      (byName.experts as Element[]).map((e) => e.lastname),
      ['Quintero'],
    )
    assert.equal(byName.total, 1)
    const all = await search('access=all')
    assert.equal(all.total, 1)
    assert.deepEqual((all.aggregations as { categories: unknown[] }).categories, [])
    const byCategory = await search('access=all&categories=Registry')
    assert.equal(byCategory.total, 0)
    const { db } = ctx.testDatabase.database
    const indexed = await db
      .selectFrom('expert_search')
      .select(['username', 'type'])
      .where('org_id', '=', tenant.orgId)
      .orderBy('username')
      .execute()
    assert.deepEqual(
      indexed.map((row) => [row.username, row.type]),
      [
        [staff, 'staff'],
        ['zelda-quintero', 'expert'],
      ],
      'the staff member is indexed with its type, for the staff lists',
    )
    const facets = await db
      .selectFrom('expert_facets')
      .select('value')
      .where('org_id', '=', tenant.orgId)
      .where('facet', '=', 'categories')
      .execute()
    assert.deepEqual(facets, [], 'a staff member has no facet rows')
  })

  test('the staff and employee lists page by name with exact totals and the privacy filter', async () => {
    const tenant = await ctx.addTenant('List University')
    for (const lastname of ['Cole', 'Abbott', 'Baker'])
      await createStaff(ctx, tenant, { firstname: 'Sam', lastname })
    const hidden = await createStaff(ctx, tenant, { firstname: 'Pat', lastname: 'Adams' })
    await data(await call(ctx, 'PUT', staffUrl(hidden, tenant.orgId), { is_private: 1 }, tenant))
    await createExpert(ctx, tenant, { firstname: 'Eve', lastname: 'Bishop' })
    const list = async (path: string) =>
      data(await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/${path}`, undefined, tenant))

    const first = await list('staff?page_size=2')
    assert.equal(first.total, 3)
    assert.deepEqual(
      (first.staff as Element[]).map((e) => e.lastname),
      ['Abbott', 'Baker'],
    )
    const second = await list('staff?page_size=2&page_from=2')
    assert.deepEqual(
      (second.staff as Element[]).map((e) => e.lastname),
      ['Cole'],
    )
    assert.equal(second.total, 3)
    const entry = (first.staff as Element[])[0] as Element
    assert.equal(entry.fullname, 'Sam Abbott')
    assert.equal(entry.tagline, '')
    assert.equal('type' in entry, false)

    const everyone = await list('staff?access=all')
    assert.deepEqual(
      (everyone.staff as Element[]).map((e) => e.lastname),
      ['Abbott', 'Adams', 'Baker', 'Cole'],
    )
    assert.equal((await list('staff?access=private')).total, 1)

    const employees = await list('employee?page_size=10')
    assert.equal(employees.total, 4)
    assert.deepEqual(
      (employees.employees as Element[]).map((e) => [e.lastname, e.type]),
      [
        ['Abbott', 'staff'],
        ['Baker', 'staff'],
        ['Bishop', 'expert'],
        ['Cole', 'staff'],
      ],
    )
    const page = await list('employee?page_size=1&page_from=2')
    assert.deepEqual(
      (page.employees as Element[]).map((e) => e.lastname),
      ['Bishop'],
    )
    assert.equal(page.total, 4)

    assert.ok(
      detailsOf(
        await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/staff?page_size=0`, undefined, tenant),
      ).page_size,
    )
    assert.ok(
      detailsOf(
        await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/employee?sort=name`, undefined, tenant),
      ).sort,
    )
    assert.ok(
      detailsOf(
        await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/staff?access=some`, undefined, tenant),
      ).access,
    )
  })

  test("q finds staff by name, job title, tagline, category, tag and biography, as the expert search's q does", async () => {
    const tenant = await ctx.addTenant('Search Staff University')
    const helene = await createStaff(ctx, tenant, {
      firstname: 'Hélène',
      lastname: 'Marchetti',
      job_title: 'Registrar',
    })
    const base = staffUrl(helene, tenant.orgId)
    for (const [section, body] of [
      ['category', { name: 'Admissions' }],
      ['tag', { tag: 'front-desk' }],
      ['tagline', { tagline: 'Your first contact' }],
      ['biography', { description: '<p>Handles <strong>transcripts</strong>.</p>' }],
    ] as const)
      await data(await call(ctx, 'POST', `${base}/${section}`, body, tenant))
    await createStaff(ctx, tenant, { firstname: 'Sam', lastname: 'Okafor', job_title: 'Bursar' })
    const found = async (query: string) => {
      const list = await data(
        await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/staff?${query}`, undefined, tenant),
      )
      const lastnames = (list.staff as Element[]).map((e) => e.lastname)
      assert.equal(list.total, lastnames.length, `the total of ${query} counts the matches`)
      return lastnames
    }
    for (const query of [
      'q=helene',
      'q=MARCHETTI',
      `q=${encodeURIComponent('Hélène march')}`,
      'q=marchetti+registrar',
      'q=admissions',
      'q=front',
      'q=desk',
      'q=first+contact',
      'q=transcripts',
    ])
      assert.deepEqual(await found(query), ['Marchetti'], query)
    assert.deepEqual(await found('q=bursar'), ['Okafor'])
    assert.deepEqual(await found('q=marchetti+bursar'), [], 'every word must match')
    assert.deepEqual(await found('q=strong'), [], 'markup is not text')
    assert.deepEqual(await found('q=%22OR%22+NEAR'), [], 'query syntax is plain text')
    assert.deepEqual(await found('q=+&page_size=5'), ['Marchetti', 'Okafor'], 'no words: the list by name')
  })

  test('the employee list searches staff and experts together, by relevance; each list keeps to its kinds', async () => {
    const tenant = await ctx.addTenant('Relevance College')
    await createStaff(ctx, tenant, { firstname: 'Tom', lastname: 'Archer' })
    const expert = await createExpert(ctx, tenant, { firstname: 'Eve', lastname: 'Bishop' })
    await data(
      await call(
        ctx,
        'POST',
        `${expertUrl(expert, tenant.orgId)}/tagline`,
        { tagline: 'Archer and coach' },
        tenant,
      ),
    )
    await createStaff(ctx, tenant, { firstname: 'Ann', lastname: 'Clay' })
    const list = async (path: string) =>
      data(await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/${path}`, undefined, tenant))
    const employees = await list('employee?q=archer')
    assert.deepEqual(
      (employees.employees as Element[]).map((e) => [e.lastname, e.type]),
      [
        ['Archer', 'staff'],
        ['Bishop', 'expert'],
      ],
      'a name match ranks above a tagline match',
    )
    assert.equal(employees.total, 2)
    const staff = await list('staff?q=archer')
    assert.deepEqual(
      (staff.staff as Element[]).map((e) => e.lastname),
      ['Archer'],
    )
    assert.equal(staff.total, 1)
    const experts = await list('expert?q=archer')
    assert.deepEqual(
      (experts.experts as Element[]).map((e) => e.lastname),
      ['Bishop'],
    )
    assert.equal(experts.total, 1)
    const second = await list('employee?q=archer&page_size=1&page_from=1')
    assert.deepEqual(
      (second.employees as Element[]).map((e) => e.lastname),
      ['Bishop'],
    )
    assert.equal(second.total, 2)
  })

  test('read:public: q neither finds nor counts hidden staff members or experts', async () => {
    const tenant = await ctx.addTenant('Public Search University')
    const website = await createClient(
      ctx.testDatabase.database.db,
      tenant.orgId,
      'website',
      ctx.clock.now(),
      ['read:public'],
    )
    const publicAuth = { authorization: `Bearer ${await scopedToken(ctx.app, website)}` }
    const flagged = async (create: typeof createStaff, segment: string, lastname: string, flags: object) => {
      const username = await create(ctx, tenant, { firstname: 'Quinn', lastname })
      await data(
        await call(ctx, 'PUT', `/v2/organization/${tenant.orgId}/${segment}/${username}`, flags, tenant),
      )
    }
    await flagged(createStaff, 'staff', 'Vale', { is_published: 1 })
    await flagged(createStaff, 'staff', 'Varga', { is_published: 0 })
    await flagged(createStaff, 'staff', 'Voss', { is_published: 1, is_private: 1 })
    await flagged(createExpert, 'expert', 'Ward', { is_published: 0 })
    await flagged(createExpert, 'expert', 'Yates', { is_published: 1 })
    const list = async (path: string, headers: Record<string, string>) => {
      const response = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${tenant.orgId}/${path}`,
        headers,
      })
      const body = await data(response)
      const [entries] = [body.staff ?? body.employees] as [Element[]]
      return { names: entries.map((e) => e.lastname), total: body.total }
    }
    assert.deepEqual(await list('staff?q=quinn', publicAuth), { names: ['Vale'], total: 1 })
    assert.deepEqual(await list('staff?q=varga', publicAuth), { names: [], total: 0 })
    assert.deepEqual(await list('staff?q=voss', publicAuth), { names: [], total: 0 })
    assert.deepEqual(await list('employee?q=quinn', publicAuth), { names: ['Vale', 'Yates'], total: 2 })
    assert.deepEqual(await list('employee?q=ward', publicAuth), { names: [], total: 0 })
    assert.deepEqual(await list('staff?q=quinn&access=all', tenant.auth), {
      names: ['Vale', 'Varga', 'Voss'],
      total: 3,
    })
    expectError(
      await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${tenant.orgId}/employee?q=quinn&status=all`,
        headers: publicAuth,
      }),
      403,
      'insufficient_scope',
    )
  })

  test('a staff write is found by q at once, and a delete is not found any more', async () => {
    const tenant = await ctx.addTenant('Fresh Index College')
    const username = await createStaff(ctx, tenant, { firstname: 'Lena', lastname: 'Frost' })
    const url = staffUrl(username, tenant.orgId)
    const total = async (path: string) =>
      (await data(await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/${path}`, undefined, tenant)))
        .total
    assert.equal(await total('staff?q=zephyr'), 0)
    await data(await call(ctx, 'POST', `${url}/tagline`, { tagline: 'Zephyr office' }, tenant))
    assert.equal(await total('staff?q=zephyr'), 1)
    assert.equal(await total('employee?q=zephyr'), 1)
    const category = await data(await call(ctx, 'POST', `${url}/category`, { name: 'Housing' }, tenant))
    assert.equal(await total('staff?q=housing'), 1)
    await data(await call(ctx, 'DELETE', `${url}/category/${category.id}`, undefined, tenant))
    assert.equal(await total('staff?q=housing'), 0)
    await data(await call(ctx, 'PUT', url, { lastname: 'Winter', is_private: 1 }, tenant))
    assert.equal(await total('staff?q=frost&access=all'), 0)
    assert.equal(await total('staff?q=winter'), 0, 'now private: not in the default (public) filter')
    assert.equal(await total('staff?q=winter&access=private'), 1)
    await data(await call(ctx, 'DELETE', url, undefined, tenant))
    assert.equal(await total('staff?q=winter&access=all'), 0)
    assert.equal(await total('employee?q=winter&access=all'), 0)
  })

  test('a bad q is the same 400 as in the expert search: too long, too many words, control characters', async () => {
    const error = async (path: string, q: string) => {
      const response = await call(ctx, 'GET', `/v2/organization/${org()}/${path}?q=${q}`)
      assert.equal(response.statusCode, 400, response.body)
      return envelope(response).error
    }
    for (const q of [
      'x'.repeat(201),
      Array.from({ length: 21 }, (_, i) => `w${i}`).join('+'),
      'a%01b',
      'tab%09here',
    ]) {
      const expected = await error('expert', q)
      assert.equal(expected?.details?.[0]?.field, 'q')
      for (const path of ['staff', 'employee'])
        assert.deepEqual(await error(path, q), expected, `${path} ${q}`)
    }
  })

  test("a staff member's rename: the old username answers 308 under /staff (not under /expert)", async () => {
    const oldName = await createStaff(ctx, ctx.tenant, { firstname: 'Rhea', lastname: 'Renamed' })
    const newName = `${oldName}-new`
    await data(await call(ctx, 'PUT', staffUrl(oldName), { username: newName }))
    const redirected = await call(ctx, 'GET', `${staffUrl(oldName)}/link?x=1`)
    assert.equal(redirected.statusCode, 308, redirected.body)
    assert.equal(redirected.headers.location, `${staffUrl(newName)}/link?x=1`)
    expectError(await call(ctx, 'GET', expertUrl(oldName)), 404, 'not_found')
    assert.equal((await call(ctx, 'GET', staffUrl(newName))).statusCode, 200)
  })

  test('read:public sees only published, non-private staff: lists and counts, profiles and sections, 403 for more', async () => {
    const tenant = await ctx.addTenant('Public Staff University')
    const website = await createClient(
      ctx.testDatabase.database.db,
      tenant.orgId,
      'website',
      ctx.clock.now(),
      ['read:public'],
    )
    const publicAuth = { authorization: `Bearer ${await scopedToken(ctx.app, website)}` }
    const asPublic = (url: string) => ctx.inject({ method: 'GET', url, headers: publicAuth })
    const flagged = async (create: typeof createStaff, segment: string, lastname: string, flags: object) => {
      const username = await create(ctx, tenant, { firstname: 'Sam', lastname })
      const url = `/v2/organization/${tenant.orgId}/${segment}/${username}`
      await data(await call(ctx, 'PUT', url, flags, tenant))
      return url
    }
    const visible = await flagged(createStaff, 'staff', 'Abbott', { is_published: 1 })
    const draft = await flagged(createStaff, 'staff', 'Baker', { is_published: 0 })
    const privateOne = await flagged(createStaff, 'staff', 'Cole', { is_published: 1, is_private: 1 })
    await flagged(createExpert, 'expert', 'Bishop', { is_published: 1 })
    await flagged(createExpert, 'expert', 'Dent', { is_published: 0 })
    const links = new Map<string, number>()
    for (const url of [visible, draft, privateOne]) {
      const link = await data(
        await call(ctx, 'POST', `${url}/link`, { name: 'Office', url: 'https://office.example' }, tenant),
      )
      links.set(url, Number(link.id))
    }

    const list = async (path: string) => {
      const response = await asPublic(`/v2/organization/${tenant.orgId}/${path}`)
      return data(response)
    }
    const staff = await list('staff?page_size=10')
    assert.deepEqual(
      (staff.staff as Element[]).map((e) => e.lastname),
      ['Abbott'],
    )
    assert.equal(staff.total, 1, 'the total counts only what the public sees')
    const employees = await list('employee?page_size=10')
    assert.deepEqual(
      (employees.employees as Element[]).map((e) => [e.lastname, e.type]),
      [
        ['Abbott', 'staff'],
        ['Bishop', 'expert'],
      ],
    )
    assert.equal(employees.total, 2)
    assert.deepEqual(await list('staff?status=published&access=public&page_size=10'), staff)
    for (const query of ['status=unpublished', 'status=all', 'access=private', 'access=all']) {
      for (const path of ['staff', 'employee'])
        expectError(
          await asPublic(`/v2/organization/${tenant.orgId}/${path}?${query}`),
          403,
          'insufficient_scope',
        )
    }

    for (const url of [draft, privateOne]) {
      for (const suffix of ['', '/link', `/link/${links.get(url)}`, '/tagline']) {
        expectError(await asPublic(`${url}${suffix}`), 404, 'not_found')
        assert.equal((await call(ctx, 'GET', `${url}${suffix}`, undefined, tenant)).statusCode, 200)
      }
    }
    const publicRead = await asPublic(visible)
    assert.equal(publicRead.statusCode, 200, publicRead.body)
    assert.deepEqual(
      publicRead.json(),
      withoutContactDetails((await call(ctx, 'GET', visible, undefined, tenant)).json()),
    )
    const cached = await ctx.inject({
      method: 'GET',
      url: visible,
      headers: { ...publicAuth, 'if-none-match': String(publicRead.headers.etag) },
    })
    assert.equal(cached.statusCode, 304)
    assert.equal((await asPublic(`${visible}/link/${links.get(visible)}`)).statusCode, 200)

    await data(await call(ctx, 'PUT', visible, { is_private: 1 }, tenant))
    expectError(await asPublic(visible), 404, 'not_found')
    assert.equal((await list('staff')).total, 0, 'a visibility change reaches the list at once')
  })

  test("another organization's staff members are neither listed nor counted nor found", async () => {
    const mine = await ctx.addTenant('Mine')
    const theirs = await ctx.addTenant('Theirs')
    await createStaff(ctx, mine, { lastname: 'Own' })
    const foreign = await createStaff(ctx, theirs, { lastname: 'Foreign' })
    const staff = await data(
      await call(ctx, 'GET', `/v2/organization/${mine.orgId}/staff?access=all`, undefined, mine),
    )
    assert.deepEqual(
      (staff.staff as Element[]).map((e) => e.lastname),
      ['Own'],
    )
    assert.equal(staff.total, 1)
    const employees = await data(
      await call(ctx, 'GET', `/v2/organization/${mine.orgId}/employee?access=all`, undefined, mine),
    )
    assert.equal(employees.total, 1)
    expectError(await call(ctx, 'GET', staffUrl(foreign, mine.orgId), undefined, mine), 404, 'not_found')
    expectError(await call(ctx, 'GET', staffUrl(foreign, theirs.orgId), undefined, mine), 403, 'forbidden')
  })

  test('an import does not take a staff member for an expert with the same email', async () => {
    const email = `records.${Date.now()}@example.edu`
    const staff = await createStaff(ctx, ctx.tenant, { email })
    const error = await importDocument(ctx, org(), {
      experts: [
        { key: 'records', firstname: 'Ann', lastname: 'Lee', job_title: 'Clerk', email, company: 'U' },
      ],
    }).then(
      () => assert.fail('the import was accepted'),
      (thrown: unknown) => thrown,
    )
    assert.ok(error instanceof ImportRejected)
    assert.deepEqual(
      error.issues.map((issue) => `${issue.field}: ${issue.message}`),
      [`email: is already used by staff member ${staff}`],
    )
    assert.equal(await storedType(ctx, org(), staff), 'staff')
  })
})
