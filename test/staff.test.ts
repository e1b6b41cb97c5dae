import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { ImportRejected } from '../src/import/index.js'
import { PROFILE_KEYS } from '../src/profiles/read.js'
import { api, expectError, expectOk } from './helpers/api.js'
import { importDocument } from './helpers/content.js'
import {
  createExpert,
  createStaff,
  describeEachDialect,
  detailsOf,
  expertBody,
  inquiryBody,
  type TestContext,
} from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'
import { withoutContactDetails } from './helpers/public-view.js'

const STAFF_LIST = '/v2/organization/{corporation}/staff'
const STAFF = '/v2/organization/{corporation}/staff/{username}'
const EMPLOYEES = '/v2/organization/{corporation}/employee'
const EXPERTS = '/v2/organization/{corporation}/expert'

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
  const client = () => api(ctx.app, ctx.tenant)
  const member = (username: string, corporation = org()) => ({ params: { corporation, username } })
  const staffUrl = (username: string, orgId = org()) => `/v2/organization/${orgId}/staff/${username}`
  const expertUrl = (username: string, orgId = org()) => `/v2/organization/${orgId}/expert/${username}`

  test('create, read, update and delete a staff member, stored as a profile of type staff', async () => {
    const created = expectOk(
      await client().post(STAFF_LIST, {
        params: { corporation: org() },
        body: expertBody({ firstname: 'Ines', lastname: 'Dubois' }),
      }),
    )
    assert.equal(created.inserted, true)
    const username = String(created.username)
    assert.match(username, /^ines-dubois(-\d+)?$/)
    assert.equal(await storedType(ctx, org(), username), 'staff')

    const profile = expectOk(await client().get(STAFF, member(username)))
    assert.deepEqual(Object.keys(profile).sort(), [...PROFILE_KEYS].sort())
    const [account] = profile.account
    assert.equal(account?.username, username)
    assert.equal(account?.is_published, 0)
    assert.equal(account?.is_private, 0)
    assert.deepEqual(profile.biography, [])

    assert.deepEqual(
      expectOk(
        await client().put(STAFF, {
          ...member(username),
          body: { job_title: 'Dean of Students', is_published: 1 },
        }),
      ),
      { username, updated: true },
    )
    assert.deepEqual(
      expectOk(await client().put(STAFF, { ...member(username), body: { job_title: 'Dean of Students' } })),
      { username, updated: false },
    )
    const [changed] = expectOk(await client().get(STAFF, member(username))).account
    assert.equal(changed?.job_title, 'Dean of Students')
    assert.equal(changed?.is_published, 1)

    assert.deepEqual(expectOk(await client().delete(STAFF, member(username))), { deleted: true, username })
    assert.equal(await storedType(ctx, org(), username), undefined)
    expectError(await client().get(STAFF, member(username)), 404, 'not_found')
    expectError(await client().delete(STAFF, member(username)), 404, 'not_found')
  })

  test('the write API validates as for experts: flags not accepted on create, unknown fields, empty update', async () => {
    const rejected = detailsOf(
      await client().post(STAFF_LIST, {
        params: { corporation: org() },
        body: expertBody({ is_published: 1, shoe_size: 9, email: 'nope' }),
      }),
    )
    assert.match(rejected.is_published ?? '', /not accepted on create/)
    assert.ok(rejected.shoe_size, 'the unknown field is named')
    assert.ok(rejected.email, 'the bad email is named')
    const username = await createStaff(ctx, ctx.tenant)
    assert.ok(detailsOf(await client().put(STAFF, { ...member(username), body: {} })))
    assert.ok(
      detailsOf(await client().send('PUT', staffUrl(username), { location_country: 'ZZ' })).location_country,
    )
  })

  test('experts and staff share the username space and the email addresses of the organization', async () => {
    const email = `shared.${Date.now()}@example.edu`
    const expert = await createExpert(ctx, ctx.tenant, { firstname: 'Kim', lastname: 'Sato', email })
    const staff = await createStaff(ctx, ctx.tenant, { firstname: 'Kim', lastname: 'Sato' })
    assert.notEqual(staff, expert)
    assert.equal(staff, `${expert}-2`)

    const taken = expectError(
      await client().post(STAFF_LIST, { params: { corporation: org() }, body: expertBody({ email }) }),
      409,
      'conflict',
    )
    assert.equal(taken.details?.[0]?.field, 'email')
    assert.match(taken.message, /expert/)

    const staffEmail = `office.${Date.now()}@example.edu`
    const member = await createStaff(ctx, ctx.tenant, { email: staffEmail })
    const clash = expectError(
      await client().post(EXPERTS, {
        params: { corporation: org() },
        body: expertBody({ email: staffEmail }),
      }),
      409,
      'conflict',
    )
    assert.match(clash.message, /staff member/)
    expectError(
      await client().put('/v2/organization/{corporation}/expert/{username}', {
        params: { corporation: org(), username: expert },
        body: { email: staffEmail.toUpperCase() },
      }),
      409,
      'conflict',
    )

    expectOk(await client().delete(STAFF, { params: { corporation: org(), username: member } }))
    const again = await createStaff(ctx, ctx.tenant, { firstname: 'Kim', lastname: 'Sato' })
    assert.notEqual(again, staff, 'a deleted username is not handed out again')
  })

  test('each staff section is written and read with the shapes of the expert sections', async () => {
    const username = await createStaff(ctx, ctx.tenant)
    const base = staffUrl(username)
    const it = member(username)
    const element = (id: number) => ({ params: { ...it.params, id } })
    const BIOGRAPHY = '/v2/organization/{corporation}/staff/{username}/biography'
    const TAGLINE = '/v2/organization/{corporation}/staff/{username}/tagline'
    const LINKS = '/v2/organization/{corporation}/staff/{username}/link'
    const LINK = '/v2/organization/{corporation}/staff/{username}/link/{id}'
    const CATEGORIES = '/v2/organization/{corporation}/staff/{username}/category'

    const biography = expectOk(
      await client().send<{ id: number; updated: boolean }>('POST', `${base}/biography`, {
        description: '<p>Runs <b>admissions</b>.<script>x()</script></p>',
      }),
    )
    assert.equal(biography.updated, true)
    assert.deepEqual(expectOk(await client().get(BIOGRAPHY, it)).biography, [
      { id: biography.id, biography: '<p>Runs <b>admissions</b>.</p>' },
    ])
    expectOk(await client().post(TAGLINE, { ...it, body: { tagline: 'Your first contact' } }))
    assert.equal(expectOk(await client().get(TAGLINE, it)).tagline[0]?.tagline, 'Your first contact')

    const link = expectOk(
      await client().post(LINKS, { ...it, body: { name: 'Office', url: 'https://office.example' } }),
    )
    assert.deepEqual(
      expectOk(await client().put(LINK, { ...element(link.id), body: { name: 'Front office' } })),
      { id: link.id, updated: true },
    )
    assert.deepEqual(expectOk(await client().get(LINK, element(link.id))), {
      link: [{ id: link.id, name: 'Front office', url: 'https://office.example' }],
    })

    const education = expectOk(
      await client().post('/v2/organization/{corporation}/staff/{username}/education', {
        ...it,
        body: { institution: 'Sorbonne', degree: 'MA', date: 2004 },
      }),
    )
    assert.equal(
      expectOk(
        await client().get(
          '/v2/organization/{corporation}/staff/{username}/education/{id}',
          element(education.id),
        ),
      ).education[0]?.institution,
      'Sorbonne',
    )

    const language = expectOk(
      await client().post('/v2/organization/{corporation}/staff/{username}/language', {
        ...it,
        body: { name: 'French' },
      }),
    )
    const category = expectOk(await client().post(CATEGORIES, { ...it, body: { name: 'Admissions' } }))
    assert.deepEqual(expectOk(await client().post(CATEGORIES, { ...it, body: { name: 'admissions' } })), {
      id: category.id,
    })
    const tag = expectOk(await client().send<{ id: number }>('POST', `${base}/tag`, { tag: 'front-desk' }))
    expectError(
      await client().send('PUT', `${base}/category/${category.id}`, { name: 'X' }),
      405,
      'method_not_allowed',
    )

    const profile = expectOk(await client().get(STAFF, it))
    assert.equal(profile.biography.length, 1)
    assert.equal(profile.tagline.length, 1)
    assert.deepEqual(
      profile.link.map((e) => e.name),
      ['Front office'],
    )
    assert.deepEqual(
      profile.education.map((e) => e.degree),
      ['MA'],
    )
    assert.deepEqual(
      profile.language.map((e) => e.id),
      [language.id],
    )
    assert.deepEqual(
      profile.category.map((e) => e.name),
      ['Admissions'],
    )
    assert.deepEqual(
      profile.tag.map((e) => [e.id, e.tag]),
      [[tag.id, 'front-desk']],
    )

    expectOk(await client().delete(LINK, element(link.id)))
    expectOk(await client().delete(TAGLINE, it))
    expectError(await client().delete(TAGLINE, it), 404, 'not_found')
    const after = expectOk(await client().get(STAFF, it))
    assert.deepEqual(after.link, [])
    assert.deepEqual(after.tagline, [])
  })

  test('a staff write changes the stored document and its ETag; an unchanged profile answers 304', async () => {
    const username = await createStaff(ctx, ctx.tenant)
    const it = member(username)
    const first = await client().get(STAFF, it)
    const etag = String(first.headers.etag)
    const cached = await client().get(STAFF, { ...it, headers: { 'if-none-match': etag } })
    assert.equal(cached.statusCode, 304)
    expectOk(
      await client().post('/v2/organization/{corporation}/staff/{username}/tagline', {
        ...it,
        body: { tagline: 'New' },
      }),
    )
    const second = await client().get(STAFF, it)
    assert.notEqual(second.headers.etag, etag)
    assert.equal(expectOk(second).tagline[0]?.tagline, 'New')
  })

  test('sections a staff member does not have are not routes under /staff', async () => {
    const username = await createStaff(ctx, ctx.tenant)
    for (const section of ['article', 'topic', 'availability', 'account', 'spotlight']) {
      expectError(await client().send('GET', `${staffUrl(username)}/${section}`), 404, 'not_found')
    }
    expectError(
      await client().send('POST', `${staffUrl(username)}/article`, { title: 'No' }),
      404,
      'not_found',
    )
  })

  test('an expert route under a staff username is 404, and a staff route under an expert username', async () => {
    const staff = await createStaff(ctx, ctx.tenant)
    const expert = await createExpert(ctx, ctx.tenant)
    const before = expectOk(await client().get(STAFF, member(staff)))
    for (const [method, path, payload] of [
      ['GET', '', undefined],
      ['PUT', '', { job_title: 'Changed' }],
      ['DELETE', '', undefined],
      ['GET', '/biography', undefined],
      ['POST', '/tagline', { tagline: 'Leaked' }],
      ['POST', '/link', { name: 'Leaked', url: 'https://leak.example' }],
    ] as const) {
      expectError(await client().send(method, `${expertUrl(staff)}${path}`, payload), 404, 'not_found')
      expectError(await client().send(method, `${staffUrl(expert)}${path}`, payload), 404, 'not_found')
    }
    assert.deepEqual(
      expectOk(await client().get(STAFF, member(staff))),
      before,
      'the staff member is unchanged',
    )
    assert.equal(await storedType(ctx, org(), expert), 'expert', 'the expert is still there')

    expectError(
      await client().send('POST', `/v2/organization/${org()}/inquiry/general`, inquiryBody('general', staff)),
      404,
      'not_found',
    )
    const post = await client().post('/v2/spotlight/{corporation}', {
      params: { corporation: org() },
      body: { title: 'T', html: '<p>x</p>', tagged: [staff] },
    })
    assert.match(detailsOf(post)['tagged[0]'] ?? '', /not an expert/)
    const question = expectOk(
      await client().post('/v2/qanda/{corporation}', {
        params: { corporation: org() },
        body: { question: 'Who?' },
      }),
    )
    const answer = await client().post('/v2/qanda/{corporation}/{id}/answer', {
      params: { corporation: org(), id: question.id },
      body: { username: staff, answer: 'Me' },
    })
    assert.match(detailsOf(answer).username ?? '', /not an expert/)
  })

  test('staff members are not in the expert search, its total or its facet counts', async () => {
    const tenant = await ctx.addTenant('Search College')
    const theirs = api(ctx.app, tenant)
    await createExpert(ctx, tenant, { firstname: 'Zelda', lastname: 'Quintero' })
    const staff = await createStaff(ctx, tenant, { firstname: 'Zelda', lastname: 'Quasimodo' })
    const it = member(staff, tenant.orgId)
    expectOk(
      await theirs.post('/v2/organization/{corporation}/staff/{username}/category', {
        ...it,
        body: { name: 'Registry' },
      }),
    )
    expectOk(
      await theirs.post('/v2/organization/{corporation}/staff/{username}/tagline', {
        ...it,
        body: { tagline: 'Zelda' },
      }),
    )
    const search = async (query: { q?: string; categories?: string[] }) =>
      expectOk(
        await theirs.get(EXPERTS, {
          params: { corporation: tenant.orgId },
          query: { ...query, access: 'all' },
        }),
      )
    const byName = await search({ q: 'zelda' })
    assert.deepEqual(
      byName.experts.map((e) => e.lastname),
      ['Quintero'],
    )
    assert.equal(byName.total, 1)
    const all = await search({})
    assert.equal(all.total, 1)
    assert.deepEqual(all.aggregations.categories, [])
    const byCategory = await search({ categories: ['Registry'] })
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
    const theirs = api(ctx.app, tenant)
    const corporation = { corporation: tenant.orgId }
    for (const lastname of ['Cole', 'Abbott', 'Baker'])
      await createStaff(ctx, tenant, { firstname: 'Sam', lastname })
    const hidden = await createStaff(ctx, tenant, { firstname: 'Pat', lastname: 'Adams' })
    expectOk(await theirs.put(STAFF, { ...member(hidden, tenant.orgId), body: { is_private: 1 } }))
    await createExpert(ctx, tenant, { firstname: 'Eve', lastname: 'Bishop' })
    type ListQuery = { access?: 'all' | 'private'; page_size?: number; page_from?: number }
    const staffList = async (query: ListQuery) =>
      expectOk(await theirs.get(STAFF_LIST, { params: corporation, query }))
    const employeeList = async (query: ListQuery) =>
      expectOk(await theirs.get(EMPLOYEES, { params: corporation, query }))

    const first = await staffList({ page_size: 2 })
    assert.equal(first.total, 3)
    assert.deepEqual(
      first.staff.map((e) => e.lastname),
      ['Abbott', 'Baker'],
    )
    const second = await staffList({ page_size: 2, page_from: 2 })
    assert.deepEqual(
      second.staff.map((e) => e.lastname),
      ['Cole'],
    )
    assert.equal(second.total, 3)
    const [entry] = first.staff
    assert.equal(entry?.fullname, 'Sam Abbott')
    assert.equal(entry?.tagline, '')
    assert.equal(entry && 'type' in entry, false)

    const everyone = await staffList({ access: 'all' })
    assert.deepEqual(
      everyone.staff.map((e) => e.lastname),
      ['Abbott', 'Adams', 'Baker', 'Cole'],
    )
    assert.equal((await staffList({ access: 'private' })).total, 1)

    const employees = await employeeList({ page_size: 10 })
    assert.equal(employees.total, 4)
    assert.deepEqual(
      employees.employees.map((e) => [e.lastname, e.type]),
      [
        ['Abbott', 'staff'],
        ['Baker', 'staff'],
        ['Bishop', 'expert'],
        ['Cole', 'staff'],
      ],
    )
    const page = await employeeList({ page_size: 1, page_from: 2 })
    assert.deepEqual(
      page.employees.map((e) => e.lastname),
      ['Bishop'],
    )
    assert.equal(page.total, 4)

    assert.ok(
      detailsOf(await theirs.send('GET', `/v2/organization/${tenant.orgId}/staff?page_size=0`)).page_size,
    )
    assert.ok(detailsOf(await theirs.send('GET', `/v2/organization/${tenant.orgId}/employee?sort=name`)).sort)
    assert.ok(
      detailsOf(await theirs.send('GET', `/v2/organization/${tenant.orgId}/staff?access=some`)).access,
    )
  })

  test("q finds staff by name, job title, tagline, category, tag and biography, as the expert search's q does", async () => {
    const tenant = await ctx.addTenant('Search Staff University')
    const theirs = api(ctx.app, tenant)
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
      expectOk(await theirs.send('POST', `${base}/${section}`, body))
    await createStaff(ctx, tenant, { firstname: 'Sam', lastname: 'Okafor', job_title: 'Bursar' })
    const found = async (q: string, page_size?: number) => {
      const list = expectOk(
        await theirs.get(STAFF_LIST, { params: { corporation: tenant.orgId }, query: { q, page_size } }),
      )
      const lastnames = list.staff.map((e) => e.lastname)
      assert.equal(list.total, lastnames.length, `the total of ${q} counts the matches`)
      return lastnames
    }
    for (const q of [
      'helene',
      'MARCHETTI',
      'Hélène march',
      'marchetti registrar',
      'admissions',
      'front',
      'desk',
      'first contact',
      'transcripts',
    ])
      assert.deepEqual(await found(q), ['Marchetti'], q)
    assert.deepEqual(await found('bursar'), ['Okafor'])
    // Two words that are no one's name (a name is also found by its likeness: test/fuzzy-names.test.ts).
    assert.deepEqual(await found('registrar bursar'), [], 'every word must match')
    assert.deepEqual(await found('marchetti bursar'), [], 'a word like no word of the name')
    assert.deepEqual(await found('strong'), [], 'markup is not text')
    assert.deepEqual(await found('"OR" NEAR'), [], 'query syntax is plain text')
    assert.deepEqual(await found(' ', 5), ['Marchetti', 'Okafor'], 'no words: the list by name')
  })

  test('the employee list searches staff and experts together, by relevance; each list keeps to its kinds', async () => {
    const tenant = await ctx.addTenant('Relevance College')
    const theirs = api(ctx.app, tenant)
    const params = { corporation: tenant.orgId }
    await createStaff(ctx, tenant, { firstname: 'Tom', lastname: 'Archer' })
    const expert = await createExpert(ctx, tenant, { firstname: 'Eve', lastname: 'Bishop' })
    expectOk(
      await theirs.post('/v2/organization/{corporation}/expert/{username}/tagline', {
        params: { ...params, username: expert },
        body: { tagline: 'Archer and coach' },
      }),
    )
    await createStaff(ctx, tenant, { firstname: 'Ann', lastname: 'Clay' })
    const employees = expectOk(await theirs.get(EMPLOYEES, { params, query: { q: 'archer' } }))
    assert.deepEqual(
      employees.employees.map((e) => [e.lastname, e.type]),
      [
        ['Archer', 'staff'],
        ['Bishop', 'expert'],
      ],
      'a name match ranks above a tagline match',
    )
    assert.equal(employees.total, 2)
    const staff = expectOk(await theirs.get(STAFF_LIST, { params, query: { q: 'archer' } }))
    assert.deepEqual(
      staff.staff.map((e) => e.lastname),
      ['Archer'],
    )
    assert.equal(staff.total, 1)
    const experts = expectOk(await theirs.get(EXPERTS, { params, query: { q: 'archer' } }))
    assert.deepEqual(
      experts.experts.map((e) => e.lastname),
      ['Bishop'],
    )
    assert.equal(experts.total, 1)
    const second = expectOk(
      await theirs.get(EMPLOYEES, { params, query: { q: 'archer', page_size: 1, page_from: 1 } }),
    )
    assert.deepEqual(
      second.employees.map((e) => e.lastname),
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
    const theirs = api(ctx.app, tenant)
    const asPublic = api(ctx.app, await scopedToken(ctx.app, website))
    const flagged = async (create: typeof createStaff, segment: string, lastname: string, flags: object) => {
      const username = await create(ctx, tenant, { firstname: 'Quinn', lastname })
      expectOk(await theirs.send('PUT', `/v2/organization/${tenant.orgId}/${segment}/${username}`, flags))
    }
    await flagged(createStaff, 'staff', 'Vale', { is_published: 1 })
    await flagged(createStaff, 'staff', 'Varga', { is_published: 0 })
    await flagged(createStaff, 'staff', 'Voss', { is_published: 1, is_private: 1 })
    await flagged(createExpert, 'expert', 'Ward', { is_published: 0 })
    await flagged(createExpert, 'expert', 'Yates', { is_published: 1 })
    const params = { corporation: tenant.orgId }
    const names = (list: { total: number }, entries: { lastname: string }[]) => ({
      names: entries.map((e) => e.lastname),
      total: list.total,
    })
    const staffOf = async (who: typeof theirs, query: { q: string; access?: 'all' }) => {
      const list = expectOk(await who.get(STAFF_LIST, { params, query }))
      return names(list, list.staff)
    }
    const employeesOf = async (q: string) => {
      const list = expectOk(await asPublic.get(EMPLOYEES, { params, query: { q } }))
      return names(list, list.employees)
    }
    assert.deepEqual(await staffOf(asPublic, { q: 'quinn' }), { names: ['Vale'], total: 1 })
    assert.deepEqual(await staffOf(asPublic, { q: 'varga' }), { names: [], total: 0 })
    assert.deepEqual(await staffOf(asPublic, { q: 'voss' }), { names: [], total: 0 })
    assert.deepEqual(await employeesOf('quinn'), { names: ['Vale', 'Yates'], total: 2 })
    assert.deepEqual(await employeesOf('ward'), { names: [], total: 0 })
    assert.deepEqual(await staffOf(theirs, { q: 'quinn', access: 'all' }), {
      names: ['Vale', 'Varga', 'Voss'],
      total: 3,
    })
    expectError(
      await asPublic.get(EMPLOYEES, { params, query: { q: 'quinn', status: 'all' } }),
      403,
      'insufficient_scope',
    )
  })

  test('a staff write is found by q at once, and a delete is not found any more', async () => {
    const tenant = await ctx.addTenant('Fresh Index College')
    const theirs = api(ctx.app, tenant)
    const username = await createStaff(ctx, tenant, { firstname: 'Lena', lastname: 'Frost' })
    const it = member(username, tenant.orgId)
    const params = { corporation: tenant.orgId }
    const staffTotal = async (q: string, access?: 'all' | 'private') =>
      expectOk(await theirs.get(STAFF_LIST, { params, query: { q, access } })).total
    const employeeTotal = async (q: string, access?: 'all') =>
      expectOk(await theirs.get(EMPLOYEES, { params, query: { q, access } })).total
    assert.equal(await staffTotal('zephyr'), 0)
    expectOk(
      await theirs.post('/v2/organization/{corporation}/staff/{username}/tagline', {
        ...it,
        body: { tagline: 'Zephyr office' },
      }),
    )
    assert.equal(await staffTotal('zephyr'), 1)
    assert.equal(await employeeTotal('zephyr'), 1)
    const category = expectOk(
      await theirs.post('/v2/organization/{corporation}/staff/{username}/category', {
        ...it,
        body: { name: 'Housing' },
      }),
    )
    assert.equal(await staffTotal('housing'), 1)
    expectOk(
      await theirs.delete('/v2/organization/{corporation}/staff/{username}/category/{id}', {
        params: { ...it.params, id: category.id },
      }),
    )
    assert.equal(await staffTotal('housing'), 0)
    expectOk(await theirs.put(STAFF, { ...it, body: { lastname: 'Winter', is_private: 1 } }))
    assert.equal(await staffTotal('frost', 'all'), 0)
    assert.equal(await staffTotal('winter'), 0, 'now private: not in the default (public) filter')
    assert.equal(await staffTotal('winter', 'private'), 1)
    expectOk(await theirs.delete(STAFF, it))
    assert.equal(await staffTotal('winter', 'all'), 0)
    assert.equal(await employeeTotal('winter', 'all'), 0)
  })

  test('a bad q is the same 400 as in the expert search: too long, too many words, control characters', async () => {
    const error = async (path: string, q: string) => {
      const response = await client().send('GET', `/v2/organization/${org()}/${path}?q=${q}`)
      assert.equal(response.statusCode, 400, response.body)
      return response.json().error
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
    expectOk(await client().put(STAFF, { ...member(oldName), body: { username: newName } }))
    const redirected = await client().send('GET', `${staffUrl(oldName)}/link?x=1`)
    assert.equal(redirected.statusCode, 308, redirected.body)
    assert.equal(redirected.headers.location, `${staffUrl(newName)}/link?x=1`)
    expectError(await client().send('GET', expertUrl(oldName)), 404, 'not_found')
    assert.equal((await client().get(STAFF, member(newName))).statusCode, 200)
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
    const theirs = api(ctx.app, tenant)
    const publicToken = await scopedToken(ctx.app, website)
    const asPublic = (url: string) => api(ctx.app, publicToken).send('GET', url)
    const flagged = async (create: typeof createStaff, segment: string, lastname: string, flags: object) => {
      const username = await create(ctx, tenant, { firstname: 'Sam', lastname })
      const url = `/v2/organization/${tenant.orgId}/${segment}/${username}`
      expectOk(await theirs.send('PUT', url, flags))
      return url
    }
    const visible = await flagged(createStaff, 'staff', 'Abbott', { is_published: 1 })
    const draft = await flagged(createStaff, 'staff', 'Baker', { is_published: 0 })
    const privateOne = await flagged(createStaff, 'staff', 'Cole', { is_published: 1, is_private: 1 })
    await flagged(createExpert, 'expert', 'Bishop', { is_published: 1 })
    await flagged(createExpert, 'expert', 'Dent', { is_published: 0 })
    const links = new Map<string, number>()
    for (const url of [visible, draft, privateOne]) {
      const link = expectOk(
        await theirs.send<{ id: number }>('POST', `${url}/link`, {
          name: 'Office',
          url: 'https://office.example',
        }),
      )
      links.set(url, link.id)
    }

    const params = { corporation: tenant.orgId }
    const publicApi = api(ctx.app, publicToken)
    const staff = expectOk(await publicApi.get(STAFF_LIST, { params, query: { page_size: 10 } }))
    assert.deepEqual(
      staff.staff.map((e) => e.lastname),
      ['Abbott'],
    )
    assert.equal(staff.total, 1, 'the total counts only what the public sees')
    const employees = expectOk(await publicApi.get(EMPLOYEES, { params, query: { page_size: 10 } }))
    assert.deepEqual(
      employees.employees.map((e) => [e.lastname, e.type]),
      [
        ['Abbott', 'staff'],
        ['Bishop', 'expert'],
      ],
    )
    assert.equal(employees.total, 2)
    assert.deepEqual(
      expectOk(
        await publicApi.get(STAFF_LIST, {
          params,
          query: { status: 'published', access: 'public', page_size: 10 },
        }),
      ),
      staff,
    )
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
        assert.equal((await theirs.send('GET', `${url}${suffix}`)).statusCode, 200)
      }
    }
    const publicRead = await asPublic(visible)
    assert.equal(publicRead.statusCode, 200, publicRead.body)
    assert.deepEqual(publicRead.json(), withoutContactDetails((await theirs.send('GET', visible)).json()))
    const cached = await ctx.inject({
      method: 'GET',
      url: visible,
      headers: { authorization: `Bearer ${publicToken}`, 'if-none-match': String(publicRead.headers.etag) },
    })
    assert.equal(cached.statusCode, 304)
    assert.equal((await asPublic(`${visible}/link/${links.get(visible)}`)).statusCode, 200)

    expectOk(await theirs.send('PUT', visible, { is_private: 1 }))
    expectError(await asPublic(visible), 404, 'not_found')
    assert.equal(
      expectOk(await publicApi.get(STAFF_LIST, { params })).total,
      0,
      'a visibility change reaches the list at once',
    )
  })

  test("another organization's staff members are neither listed nor counted nor found", async () => {
    const mine = await ctx.addTenant('Mine')
    const theirs = await ctx.addTenant('Theirs')
    const asMine = api(ctx.app, mine)
    await createStaff(ctx, mine, { lastname: 'Own' })
    const foreign = await createStaff(ctx, theirs, { lastname: 'Foreign' })
    const params = { corporation: mine.orgId }
    const staff = expectOk(await asMine.get(STAFF_LIST, { params, query: { access: 'all' } }))
    assert.deepEqual(
      staff.staff.map((e) => e.lastname),
      ['Own'],
    )
    assert.equal(staff.total, 1)
    const employees = expectOk(await asMine.get(EMPLOYEES, { params, query: { access: 'all' } }))
    assert.equal(employees.total, 1)
    expectError(await asMine.get(STAFF, member(foreign, mine.orgId)), 404, 'not_found')
    expectError(await asMine.get(STAFF, member(foreign, theirs.orgId)), 403, 'forbidden')
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
