import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { idIn } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import {
  createExpert,
  describeEachDialect,
  detailsOf,
  envelope,
  inquiryBody,
  type Tenant,
  type TestContext,
} from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'

/** Usernames are per organization and can be renamed; old names answer 308 (CONTRACT §4, §17). */
describeEachDialect('usernames: per organization, renames and redirects', (ctx: TestContext) => {
  let publicAuth: Record<string, string>
  const base = (tenant: Tenant = ctx.tenant) => `/v2/organization/${tenant.orgId}/expert`
  const rename = (from: string, to: string | number, tenant: Tenant = ctx.tenant) =>
    ctx.inject({
      method: 'PUT',
      url: `${base(tenant)}/${from}`,
      headers: tenant.auth,
      payload: { username: to },
    })
  const get = (url: string, headers: Record<string, string> = ctx.tenant.auth) =>
    ctx.inject({ method: 'GET', url, headers })
  let serial = 0
  /** A published expert with a name of its own; returns its username. */
  const newExpert = async (tenant: Tenant = ctx.tenant) => {
    const username = await createExpert(ctx, tenant, {
      firstname: 'Rena',
      lastname: `Mer ${(++serial).toString(36)}x`,
    })
    const published = await ctx.inject({
      method: 'PUT',
      url: `${base(tenant)}/${username}`,
      headers: tenant.auth,
      payload: { is_published: 1 },
    })
    assert.equal(published.statusCode, 200)
    return username
  }

  before(async () => {
    const { db } = ctx.testDatabase.database
    const website = await createClient(db, ctx.tenant.orgId, 'website', ctx.clock.now(), ['read:public'])
    publicAuth = { authorization: `Bearer ${await scopedToken(ctx.app, website)}` }
  })

  test('the same name in two organizations gives each its own username and its own expert', async () => {
    const elsewhere = await ctx.addTenant('Demo organization')
    const here = await createExpert(ctx, ctx.tenant, {
      firstname: 'Priya',
      lastname: 'Raman',
      job_title: 'Here',
    })
    const there = await createExpert(ctx, elsewhere, {
      firstname: 'Priya',
      lastname: 'Raman',
      job_title: 'There',
    })
    assert.equal(here, 'priya-raman')
    assert.equal(there, 'priya-raman')
    const mine = (await get(`${base()}/priya-raman`)).json().data.account[0]
    const theirs = (await get(`${base(elsewhere)}/priya-raman`, elsewhere.auth)).json().data.account[0]
    assert.deepEqual([mine.job_title, mine.corporation_id], ['Here', ctx.tenant.orgId])
    assert.deepEqual([theirs.job_title, theirs.corporation_id], ['There', elsewhere.orgId])
    assert.equal((await rename('priya-raman', 'priya-raman-lab')).statusCode, 200)
    assert.equal(
      (await get(`${base(elsewhere)}/priya-raman`, elsewhere.auth)).statusCode,
      200,
      'theirs is untouched',
    )
  })

  test('a rename answers the new username; the old one answers 308 on every route, keeping the query string', async () => {
    const old = await newExpert()
    const article = await ctx.inject({
      method: 'POST',
      url: `${base()}/${old}/article`,
      headers: ctx.tenant.auth,
      payload: { title: 'Before the rename' },
    })
    const articleId = idIn(article)
    const response = await rename(old, 'renamed-one')
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(envelope(response), { success: true, data: { username: 'renamed-one', updated: true } })
    assert.equal((await get(`${base()}/renamed-one`)).json().data.account[0].username, 'renamed-one')

    for (const [method, path] of [
      ['GET', ''],
      ['GET', '/article'],
      ['GET', `/article/${articleId}`],
      ['GET', '/videos_all?x=1&y=%C3%A9'],
      ['PUT', ''],
      ['DELETE', `/article/${articleId}`],
    ] as const) {
      const redirected = await ctx.inject({
        method,
        url: `${base()}/${old}${path}`,
        headers: ctx.tenant.auth,
        ...(method === 'PUT' ? { payload: { job_title: 'Moved' } } : {}),
      })
      assert.equal(redirected.statusCode, 308, `${method} ${path}: ${redirected.body}`)
      assert.equal(redirected.headers.location, `${base()}/renamed-one${path}`)
    }
    const stillThere = await get(`${base()}/renamed-one/article/${articleId}`)
    assert.equal(stillThere.statusCode, 200, 'a redirected write did nothing')
    assert.notEqual((await get(`${base()}/renamed-one`)).json().data.account[0].job_title, 'Moved')
  })

  test('renames in a row: every old name leads straight to the current one', async () => {
    const first = await newExpert()
    assert.equal((await rename(first, 'chain-b')).statusCode, 200)
    assert.equal((await rename('chain-b', 'chain-c')).statusCode, 200)
    assert.equal((await rename('chain-c', 'chain-d')).statusCode, 200)
    for (const name of [first, 'chain-b', 'chain-c']) {
      const response = await get(`${base()}/${name}`)
      assert.equal(response.statusCode, 308, name)
      assert.equal(response.headers.location, `${base()}/chain-d`)
    }
    assert.equal((await rename('chain-d', first)).statusCode, 200, 'back to an old name of its own')
    assert.equal((await get(`${base()}/${first}`)).statusCode, 200)
    assert.equal((await get(`${base()}/chain-d`)).headers.location, `${base()}/${first}`)
  })

  test('an old name another expert takes stops redirecting and is that expert’s', async () => {
    const leaver = await newExpert()
    const taker = await newExpert()
    assert.equal((await rename(leaver, 'left-behind')).statusCode, 200)
    assert.equal((await get(`${base()}/${leaver}`)).statusCode, 308)
    assert.equal((await rename(taker, leaver)).statusCode, 200)
    const response = await get(`${base()}/${leaver}`)
    assert.equal(response.statusCode, 200)
    const leaverEmail = (await get(`${base()}/left-behind`)).json().data.account[0].email
    assert.notEqual(response.json().data.account[0].email, leaverEmail, 'the name now reads the taker')
    assert.equal(
      (await get(`${base()}/${taker}`)).headers.location,
      `${base()}/${leaver}`,
      "the taker's own old name",
    )
    const back = await rename('left-behind', leaver)
    assert.equal(back.statusCode, 409, 'now taken')
  })

  test('a name held by another expert of the organization is 409; bad slugs are 400', async () => {
    const one = await newExpert()
    const two = await newExpert()
    const taken = await rename(two, one)
    assert.equal(taken.statusCode, 409)
    assert.equal(envelope(taken).error?.code, 'conflict')
    assert.equal(envelope(taken).error?.details?.[0]?.field, 'username')
    for (const bad of [
      'Upper-Case',
      'ab',
      '-lead',
      'trail-',
      'dou--ble',
      'with space',
      'a'.repeat(65),
      'ünï',
      7,
    ]) {
      const response = await rename(two, bad)
      assert.ok(detailsOf(response).username, `${bad} is refused`)
    }
    assert.equal((await get(`${base()}/${two}`)).statusCode, 200, 'nothing changed')
    const same = await rename(two, two)
    assert.deepEqual(envelope(same).data, { username: two, updated: false })
  })

  test('a new expert is never given an old name; a deleted expert’s old names answer 404', async () => {
    const created = await createExpert(ctx, ctx.tenant, { firstname: 'Olga', lastname: 'Oldname' })
    assert.equal(created, 'olga-oldname')
    assert.equal((await rename(created, 'olga-newname')).statusCode, 200)
    assert.equal(
      await createExpert(ctx, ctx.tenant, { firstname: 'Olga', lastname: 'Oldname' }),
      'olga-oldname-2',
    )
    const deleted = await ctx.inject({
      method: 'DELETE',
      url: `${base()}/olga-newname`,
      headers: ctx.tenant.auth,
    })
    assert.equal(deleted.statusCode, 200)
    assert.equal((await get(`${base()}/olga-oldname`)).statusCode, 404)
  })

  test('stored documents and ETags follow a rename: profile, posts tagging it, Q&A answers, search', async () => {
    const username = await newExpert()
    const result = await importDocument(ctx, ctx.tenant.orgId, {
      spotlights: [
        { key: `tagged-${username}`, title: 'Tagged', html: '<p>x</p>', published: 1, experts: [username] },
      ],
      questions: [
        {
          key: `answered-${username}`,
          question: 'Answered?',
          published: 1,
          answers: [{ expert: username, answer: '<p>Yes.</p>' }],
        },
      ],
    })
    const postUrl = `/v2/spotlight/${ctx.tenant.orgId}/${result.ids.spotlights[0]}`
    const questionUrl = `/v2/qanda/${ctx.tenant.orgId}/${result.ids.questions[0]}`
    const before = {
      profile: await get(`${base()}/${username}`),
      post: await get(postUrl, publicAuth),
      question: await get(questionUrl),
    }
    assert.equal((await rename(username, `${username}-new`)).statusCode, 200)
    const profile = await get(`${base()}/${username}-new`)
    assert.equal(profile.json().data.account[0].username, `${username}-new`)
    assert.notEqual(profile.headers.etag, before.profile.headers.etag)
    const post = await get(postUrl, publicAuth)
    assert.notEqual(post.headers.etag, before.post.headers.etag)
    assert.equal(post.json().data.spotlight[0].tagged_experts[0].username, `${username}-new`)
    const question = await get(questionUrl)
    assert.equal(question.json().data.question[0].answers[0].username, `${username}-new`)
    const search = (await get(`${base()}?q=rena`, publicAuth)).json().data
    const names = search.experts.map((expert: { username: string }) => expert.username)
    assert.ok(names.includes(`${username}-new`) && !names.includes(username))
  })

  test('the public gets no redirect to an expert it may not see', async () => {
    const username = await newExpert()
    assert.equal((await rename(username, `${username}-hidden`)).statusCode, 200)
    assert.equal((await get(`${base()}/${username}`, publicAuth)).statusCode, 308)
    await ctx.inject({
      method: 'PUT',
      url: `${base()}/${username}-hidden`,
      headers: ctx.tenant.auth,
      payload: { is_private: 1 },
    })
    const response = await get(`${base()}/${username}`, publicAuth)
    assert.equal(response.statusCode, 404)
    assert.equal(envelope(response).error?.code, 'not_found')
    assert.equal((await get(`${base()}/${username}`)).statusCode, 308, 'read still gets it')
  })

  test('an inquiry to an old username reaches the expert under its current one', async () => {
    const username = await newExpert()
    assert.equal((await rename(username, `${username}-now`)).statusCode, 200)
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${ctx.tenant.orgId}/inquiry/general`,
      headers: ctx.tenant.auth,
      payload: inquiryBody('general', username),
    })
    assert.equal(response.statusCode, 200, response.body)
    const stored = await ctx.testDatabase.database.db
      .selectFrom('inquiries')
      .select('username')
      .where('id', '=', response.json().data.id)
      .executeTakeFirstOrThrow()
    assert.equal(stored.username, `${username}-now`)
  })
})
