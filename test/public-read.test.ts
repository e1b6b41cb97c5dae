import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { present } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect, envelope, type TestContext } from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'

/**
 * `read:public` (CONTRACT §17): a public website's token sees published, non-private experts and
 * published posts and Q&A items; every list, count and stored document is narrowed to them.
 */
describeEachDialect('read:public: what the public may see', (ctx: TestContext) => {
  let publicAuth: Record<string, string>
  let post: number
  let draftPost: number
  let question: number
  const org = () => ctx.tenant.orgId
  const get = (url: string, headers: Record<string, string>) => ctx.inject({ method: 'GET', url, headers })
  const expert = (key: string, firstname: string, flags: { is_published: number; is_private: number }) => ({
    key,
    firstname,
    lastname: 'Visibility',
    job_title: 'Researcher',
    email: `${key}@uni.example`,
    company: 'Uni',
    location_country: 'CA',
    ...flags,
    sections: { topic: [{ name: `Topic of ${firstname}` }, { name: 'Shared topic' }] },
  })

  before(async () => {
    const { db } = ctx.testDatabase.database
    const website = await createClient(db, org(), 'website', ctx.clock.now(), [
      'read:public',
      'inquiries:create',
    ])
    publicAuth = { authorization: `Bearer ${await scopedToken(ctx.app, website)}` }
    const result = await importDocument(ctx, org(), {
      experts: [
        expert('pub', 'Paula', { is_published: 1, is_private: 0 }),
        expert('draft', 'Dora', { is_published: 0, is_private: 0 }),
        expert('private', 'Priv', { is_published: 1, is_private: 1 }),
      ],
      spotlights: [
        {
          key: 'post',
          title: 'Visible post',
          html: '<p>Shown</p>',
          published: 1,
          experts: ['pub', 'draft', 'private'],
        },
        { key: 'draft-post', title: 'Draft post', html: '<p>Hidden</p>', published: 0, experts: ['pub'] },
      ],
      questions: [
        {
          key: 'question',
          question: 'Visible question?',
          published: 1,
          answers: [
            { key: 'a1', expert: 'pub', answer: '<p>Public answer.</p>' },
            { key: 'a2', expert: 'draft', answer: '<p>Draft answer.</p>' },
          ],
        },
      ],
    })
    ;[post, draftPost] = [present(result.ids.spotlights[0]), present(result.ids.spotlights[1])]
    question = present(result.ids.questions[0])
  })

  const usernames = (list: { username: string }[]) => list.map((item) => item.username).sort()

  test('a default client does not hold read:public; its scopes stay the four of §13', async () => {
    const client = await createClient(
      ctx.testDatabase.database.db,
      ctx.tenant.orgId,
      'default',
      ctx.clock.now(),
    )
    assert.equal(client.scope, 'read write inquiries:create inquiries:read')
    const response = await ctx.inject({
      method: 'POST',
      url: '/v2/oauth/token',
      payload: {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        scope: 'read:public',
      },
    })
    assert.equal(response.statusCode, 400)
    assert.equal(response.json().error, 'invalid_scope')
  })

  test('expert search: only published public experts, and counts and facets over them alone', async () => {
    const response = await get(`/v2/organization/${org()}/expert?q=visibility`, publicAuth)
    assert.equal(response.statusCode, 200, response.body)
    const data = response.json().data
    assert.deepEqual(usernames(data.experts), ['paula-visibility'])
    assert.equal(data.total, 1)
    assert.deepEqual(data.aggregations.countries, [{ key: 'CA', count: 1 }])
    assert.deepEqual(data.aggregations.topics.map((bucket: { key: string }) => bucket.key).sort(), [
      'Shared topic',
      'Topic of Paula',
    ])
    const unfiltered = (await get(`/v2/organization/${org()}/expert`, publicAuth)).json().data
    assert.equal(unfiltered.total, 1)
    assert.deepEqual(
      unfiltered.aggregations.topics.find((bucket: { key: string }) => bucket.key === 'Shared topic'),
      { key: 'Shared topic', count: 1 },
      'the counter table is narrowed too',
    )
    const asReader = (
      await get(`/v2/organization/${org()}/expert?q=visibility&status=all&access=all`, ctx.tenant.auth)
    ).json().data
    assert.equal(asReader.total, 3, 'read sees every expert')
    const explicit = await get(
      `/v2/organization/${org()}/expert?q=visibility&status=published&access=public`,
      publicAuth,
    )
    assert.equal(explicit.statusCode, 200)
    assert.equal(explicit.body, response.body, 'asking for what it sees anyway is the same answer')
  })

  test('asking for unpublished or private experts, or for all, is 403 insufficient_scope naming read', async () => {
    for (const query of ['status=unpublished', 'status=all', 'access=private', 'access=all']) {
      const response = await get(`/v2/organization/${org()}/expert?${query}`, publicAuth)
      assert.equal(response.statusCode, 403, query)
      assert.equal(envelope(response).error?.code, 'insufficient_scope')
      assert.equal(
        response.headers['www-authenticate'],
        'Bearer realm="expertdir", error="insufficient_scope", scope="read"',
      )
    }
    for (const path of ['spotlight', 'qanda']) {
      for (const status of ['unpublished', 'all']) {
        const response = await get(`/v2/${path}/${org()}/search?status=${status}`, publicAuth)
        assert.equal(response.statusCode, 403, `${path} ${status}`)
        assert.equal(envelope(response).error?.code, 'insufficient_scope')
      }
    }
  })

  test('profiles and sections of hidden experts are 404; a visible one reads as with read', async () => {
    for (const username of ['dora-visibility', 'priv-visibility']) {
      for (const suffix of ['', '/topic', '/videos_all', '/account']) {
        const response = await get(`/v2/organization/${org()}/expert/${username}${suffix}`, publicAuth)
        assert.equal(response.statusCode, 404, `${username}${suffix}`)
        assert.equal(envelope(response).error?.code, 'not_found')
        const control = await get(`/v2/organization/${org()}/expert/${username}${suffix}`, ctx.tenant.auth)
        assert.equal(control.statusCode, 200)
      }
    }
    const url = `/v2/organization/${org()}/expert/paula-visibility`
    const asPublic = await get(url, publicAuth)
    const asReader = await get(url, ctx.tenant.auth)
    assert.equal(asPublic.statusCode, 200)
    const { account: publicAccount, ...publicRest } = asPublic.json().data
    const { account: readerAccount, ...readerRest } = asReader.json().data
    assert.deepEqual(publicRest, readerRest, 'every section but the contact details reads as with read')
    assert.equal(publicAccount[0].job_title, readerAccount[0].job_title)
    assert.deepEqual(
      asPublic.json().data.spotlight.map((item: { id: number }) => item.id),
      [post],
      'only published posts',
    )
  })

  test("the public never reads an expert's email, assistant's email or direct phone; read does", async () => {
    const url = `/v2/organization/${org()}/expert/paula-visibility`
    const update = await ctx.inject({
      method: 'PUT',
      url,
      headers: ctx.tenant.auth,
      payload: {
        phone_number: '+1 613 555 0101',
        phone_number_extension: '42',
        assistant_email: 'aide@uni.example',
      },
    })
    assert.equal(update.statusCode, 200, update.body)
    for (const suffix of ['', '/account']) {
      const asPublic = await get(`${url}${suffix}`, publicAuth)
      assert.equal(asPublic.statusCode, 200)
      const [account] = asPublic.json().data.account
      assert.equal(account.email, '')
      assert.equal(account.assistant_email, null)
      assert.equal(account.phone_number, null)
      assert.equal(account.phone_number_extension, null)
      assert.equal(account.firstname, 'Paula')
      for (const secret of ['pub@uni.example', 'aide@uni.example', '555 0101'])
        assert.ok(!asPublic.body.includes(secret), `${suffix}: ${secret} is not in the public read`)
      const [readerAccount] = (await get(`${url}${suffix}`, ctx.tenant.auth)).json().data.account
      assert.equal(readerAccount.email, 'pub@uni.example')
      assert.equal(readerAccount.assistant_email, 'aide@uni.example')
      assert.equal(readerAccount.phone_number, '+1 613 555 0101')
      assert.equal(readerAccount.phone_number_extension, '42')
    }
    const again = await get(url, publicAuth)
    assert.ok(!again.body.includes('pub@uni.example'), 'nor in the stored public document')
    const stored = await ctx.testDatabase.database.db
      .selectFrom('read_documents')
      .innerJoin('experts', 'experts.id', 'read_documents.record_id')
      .select('read_documents.body')
      .where('read_documents.kind', '=', 'expert')
      .where('read_documents.audience', '=', 'public')
      .where('experts.username', '=', 'paula-visibility')
      .execute()
    assert.ok(stored.length > 0)
    for (const row of stored) assert.ok(!Buffer.from(row.body).toString('utf8').includes('pub@uni.example'))
  })

  test('posts: an unpublished one is 404; a published one lists only the experts the public may see', async () => {
    assert.equal((await get(`/v2/spotlight/${org()}/${draftPost}`, publicAuth)).statusCode, 404)
    assert.equal((await get(`/v2/spotlight/${org()}/${draftPost}`, ctx.tenant.auth)).statusCode, 200)
    const asPublic = await get(`/v2/spotlight/${org()}/${post}`, publicAuth)
    const asReader = await get(`/v2/spotlight/${org()}/${post}`, ctx.tenant.auth)
    assert.deepEqual(usernames(asPublic.json().data.spotlight[0].tagged_experts), ['paula-visibility'])
    assert.deepEqual(usernames(asReader.json().data.spotlight[0].tagged_experts), [
      'dora-visibility',
      'paula-visibility',
      'priv-visibility',
    ])
    assert.notEqual(asPublic.headers.etag, asReader.headers.etag)
    const again = await get(`/v2/spotlight/${org()}/${post}`, publicAuth)
    assert.equal(again.body, asPublic.body, 'the stored public document, not the one made for read')
    const stored = await ctx.testDatabase.database.db
      .selectFrom('read_documents')
      .select(['audience', 'etag'])
      .where('kind', '=', 'spotlight')
      .where('record_id', '=', post)
      .orderBy('audience')
      .execute()
    assert.deepEqual(
      stored.map((row) => ({ ...row })),
      [
        { audience: 'all', etag: asReader.headers.etag },
        { audience: 'public', etag: asPublic.headers.etag },
      ],
    )
    const notModified = await ctx.inject({
      method: 'GET',
      url: `/v2/spotlight/${org()}/${post}`,
      headers: { ...publicAuth, 'if-none-match': String(asReader.headers.etag) },
    })
    assert.equal(notModified.statusCode, 200, "read's ETag is not the public document's")
  })

  test('Q&A: answers of hidden experts are left out for the public', async () => {
    const asPublic = (await get(`/v2/qanda/${org()}/${question}`, publicAuth)).json().data.question[0]
    const asReader = (await get(`/v2/qanda/${org()}/${question}`, ctx.tenant.auth)).json().data.question[0]
    assert.deepEqual(usernames(asPublic.answers), ['paula-visibility'])
    assert.deepEqual(usernames(asReader.answers), ['dora-visibility', 'paula-visibility'])
  })

  test('post and Q&A search: published items, visible experts only in lists, filters and counts', async () => {
    const posts = (await get(`/v2/spotlight/${org()}/search?q=post`, publicAuth)).json().data
    assert.deepEqual(
      posts.spotlights.map((item: { id: number }) => item.id),
      [post],
    )
    assert.equal(posts.total, 1)
    assert.deepEqual(usernames(posts.spotlights[0].tagged_experts), ['paula-visibility'])
    assert.deepEqual(posts.aggregations.tagged_experts, [{ key: 'paula-visibility', count: 1 }])
    const byHidden = (await get(`/v2/spotlight/${org()}/search?tagged=dora-visibility`, publicAuth)).json()
      .data
    assert.equal(byHidden.total, 0, 'a hidden expert filters nothing in')
    const readerPosts = (await get(`/v2/spotlight/${org()}/search?q=post`, ctx.tenant.auth)).json().data
    assert.equal(readerPosts.total, 2)
    const questions = (await get(`/v2/qanda/${org()}/search`, publicAuth)).json().data
    assert.equal(questions.total, 1)
    assert.deepEqual(usernames(questions.questions[0].answered_by), ['paula-visibility'])
    assert.deepEqual(questions.aggregations.answered_by, [{ key: 'paula-visibility', count: 1 }])
  })

  test("Q&A search: words only in hidden experts' answers neither match nor count for the public", async () => {
    const search = async (query: string, headers: Record<string, string>) => {
      const response = await get(`/v2/qanda/${org()}/search?${query}`, headers)
      assert.equal(response.statusCode, 200, response.body)
      return response.json().data
    }
    const hidden = await search('q=draft', publicAuth)
    assert.equal(hidden.total, 0, "a hidden expert's answer does not match")
    assert.deepEqual(hidden.questions, [])
    assert.deepEqual(hidden.aggregations.tags, [])
    assert.equal((await search('q=draft', ctx.tenant.auth)).total, 1, 'read searches every answer')
    const visible = await search('q=public%20answer', publicAuth)
    assert.deepEqual(
      visible.questions.map((item: { id: number }) => item.id),
      [question],
    )
    assert.equal((await search('q=visible%20question', publicAuth)).total, 1)

    const url = `/v2/organization/${org()}/expert/dora-visibility`
    const publish = (is_published: number) =>
      ctx.inject({ method: 'PUT', url, headers: ctx.tenant.auth, payload: { is_published } })
    assert.equal((await publish(1)).statusCode, 200)
    try {
      assert.equal((await search('q=draft', publicAuth)).total, 1, 'published, its answers are searched')
    } finally {
      await publish(0)
    }
    assert.equal((await search('q=draft', publicAuth)).total, 0, 'hidden again')
  })

  test('a visibility change reaches the public at once: profile, stored post document, search', async () => {
    const url = `/v2/organization/${org()}/expert/dora-visibility`
    const before = await get(`/v2/spotlight/${org()}/${post}`, publicAuth)
    const published = await ctx.inject({
      method: 'PUT',
      url,
      headers: ctx.tenant.auth,
      payload: { is_published: 1 },
    })
    assert.equal(published.statusCode, 200)
    try {
      assert.equal((await get(url, publicAuth)).statusCode, 200)
      const after = await get(`/v2/spotlight/${org()}/${post}`, publicAuth)
      assert.notEqual(after.headers.etag, before.headers.etag)
      assert.deepEqual(usernames(after.json().data.spotlight[0].tagged_experts), [
        'dora-visibility',
        'paula-visibility',
      ])
      const search = (await get(`/v2/organization/${org()}/expert?q=visibility`, publicAuth)).json().data
      assert.equal(search.total, 2)
    } finally {
      await ctx.inject({ method: 'PUT', url, headers: ctx.tenant.auth, payload: { is_published: 0 } })
    }
    assert.equal((await get(url, publicAuth)).statusCode, 404)
    const hiddenAgain = await get(`/v2/spotlight/${org()}/${post}`, publicAuth)
    assert.equal(hiddenAgain.body, before.body)
  })
})
