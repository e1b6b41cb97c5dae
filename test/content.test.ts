import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { api, expectOk } from './helpers/api.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect, envelope } from './helpers/harness.js'
import { deref } from './helpers/openapi.js'

const expertRecord = (key: string, firstname: string, lastname: string) => ({
  key,
  firstname,
  lastname,
  job_title: 'Researcher',
  email: `${key}@uni.example`,
  company: 'Uni',
})

/** 401 words of text: a reading time of 3 minutes at 200 words a minute. */
const LONG_HTML = `<h1>Title</h1><p>${'word '.repeat(400).trim()}</p><script>ignored script words here</script>`

const document = {
  experts: [expertRecord('e1', 'Rosa', 'Parks'), expertRecord('e2', 'Alan', 'Turing')],
  spotlights: [
    {
      key: 'p1',
      title: 'Full post',
      html: '<p>Body &amp; soul.</p>',
      featured_image: 'https://cdn.example/p1.jpg',
      published: 1,
      published_date: 1700000000,
      experts: ['e2', 'e1'],
      tags: ['Science', 'History'],
      seo: {
        title: 'SEO title',
        description: 'SEO description',
        keywords: 'a, b',
        image: 'https://cdn.example/share.jpg',
        canonical_url: 'https://site.example/posts/full',
      },
    },
    {
      key: 'p2',
      title: 'Bare post',
      html: LONG_HTML,
      featured_image: 'https://cdn.example/p2.jpg',
      tags: ['science'],
    },
  ],
  questions: [
    {
      key: 'q1',
      question: 'Why is the sky blue?',
      details: '<p>Asked by <em>a child</em>.</p>',
      published: 1,
      answers: [
        { expert: 'e2', answer: '<p>Rayleigh scattering.</p>', created: 1700000100 },
        { expert: 'e1', answer: '<p>Ask a physicist.</p>', created: 1700000200 },
      ],
      tags: ['Science'],
      seo: { canonical_url: 'https://site.example/qanda/sky' },
    },
    {
      key: 'q2',
      question: 'No details here?',
      answers: [{ expert: 'e1', answer: '<p>The first answer text.</p>' }],
    },
  ],
}

describeEachDialect('posts and Q&A items', (ctx) => {
  let ids: { spotlights: number[]; questions: number[] }
  const get = (path: string, tenant = ctx.tenant) =>
    ctx.inject({ method: 'GET', url: path, headers: tenant.auth })
  const seconds = () => Math.floor(ctx.clock.now() / 1000)
  const params = (id: number | undefined) => ({ params: { corporation: ctx.tenant.orgId, id: Number(id) } })
  const readPost = async (id: number | undefined) =>
    expectOk(await api(ctx.app, ctx.tenant).get('/v2/spotlight/{corporation}/{id}', params(id)))
  const readQuestion = async (id: number | undefined) =>
    expectOk(await api(ctx.app, ctx.tenant).get('/v2/qanda/{corporation}/{id}', params(id)))

  before(async () => {
    const result = await importDocument(ctx, ctx.tenant.orgId, document)
    ids = result.ids
    assert.equal(ids.spotlights.length, 2)
  })

  test('reads a post with its tagged experts, tags and SEO record', async () => {
    const [id] = ids.spotlights
    const data = await readPost(id)
    const { tags } = data
    assert.deepEqual(data, {
      spotlight: [
        {
          id,
          corporation_id: ctx.tenant.orgId,
          title: 'Full post',
          html: '<p>Body &amp; soul.</p>',
          featured_image: 'https://cdn.example/p1.jpg',
          reading_time: 1,
          published: 1,
          published_date: 1700000000,
          publish_at: null,
          unpublish_at: null,
          created: seconds(),
          modified: seconds(),
          tagged_experts: [
            { username: 'alan-turing', firstname: 'Alan', lastname: 'Turing', job_title: 'Researcher' },
            { username: 'rosa-parks', firstname: 'Rosa', lastname: 'Parks', job_title: 'Researcher' },
          ],
        },
      ],
      tags: [
        { id: tags[0]?.id, content_tag_id: tags[0]?.content_tag_id, tag: 'Science' },
        { id: tags[1]?.id, content_tag_id: tags[1]?.content_tag_id, tag: 'History' },
      ],
      seo: [
        {
          title: 'SEO title',
          description: 'SEO description',
          keywords: 'a, b',
          image: 'https://cdn.example/share.jpg',
          canonical_url: 'https://site.example/posts/full',
        },
      ],
    })
  })

  test('a post without SEO falls back to its title, text, tags and featured image; reading time counts words', async () => {
    const first = await readPost(ids.spotlights[0])
    const data = await readPost(ids.spotlights[1])
    assert.equal(data.spotlight[0]?.reading_time, 3)
    assert.equal(data.spotlight[0]?.published, 0)
    assert.equal(data.spotlight[0]?.published_date, null)
    assert.deepEqual(data.spotlight[0]?.tagged_experts, [])
    // Tags are one per organization, case-insensitively: "science" is the "Science" tag.
    assert.deepEqual(
      data.tags.map((tag) => [tag.content_tag_id, tag.tag]),
      [[first.tags[0]?.content_tag_id, 'Science']],
    )
    const description = String(data.seo[0]?.description)
    assert.ok(description.startsWith('Title word word'), description)
    assert.ok([...description].length <= 160 && description.endsWith('…'), description)
    assert.deepEqual(data.seo[0], {
      title: 'Bare post',
      description,
      keywords: 'Science',
      image: 'https://cdn.example/p2.jpg',
      canonical_url: null,
    })
  })

  test('reads a question with its answers, tags and SEO record', async () => {
    const [id] = ids.questions
    const data = await readQuestion(id)
    const [question] = data.question
    const answers = question?.answers ?? []
    assert.deepEqual(question, {
      id,
      corporation_id: ctx.tenant.orgId,
      question: 'Why is the sky blue?',
      details: '<p>Asked by <em>a child</em>.</p>',
      published: 1,
      published_date: seconds(),
      publish_at: null,
      unpublish_at: null,
      created: seconds(),
      modified: seconds(),
      answers: [
        {
          id: answers[0]?.id,
          username: 'alan-turing',
          firstname: 'Alan',
          lastname: 'Turing',
          answer: '<p>Rayleigh scattering.</p>',
          created: 1700000100,
        },
        {
          id: answers[1]?.id,
          username: 'rosa-parks',
          firstname: 'Rosa',
          lastname: 'Parks',
          answer: '<p>Ask a physicist.</p>',
          created: 1700000200,
        },
      ],
    })
    assert.deepEqual(
      data.tags.map((tag) => tag.tag),
      ['Science'],
    )
    assert.deepEqual(data.seo, [
      {
        title: 'Why is the sky blue?',
        description: 'Asked by a child.',
        keywords: 'Science',
        image: null,
        canonical_url: 'https://site.example/qanda/sky',
      },
    ])
  })

  test('a question without details takes its SEO description from the first answer', async () => {
    const data = await readQuestion(ids.questions[1])
    assert.equal(data.question[0]?.details, null)
    assert.deepEqual(data.tags, [])
    assert.deepEqual(data.seo[0], {
      title: 'No details here?',
      description: 'The first answer text.',
      keywords: '',
      image: null,
      canonical_url: null,
    })
  })

  for (const bad of ['0', '01', '1.5', '1e3', '0x10', '-1', '9007199254740992', 'abc']) {
    test(`an id of ${bad} is a 400 on both read paths`, async () => {
      for (const kind of ['spotlight', 'qanda']) {
        const response = await get(`/v2/${kind}/${ctx.tenant.orgId}/${bad}`)
        assert.equal(response.statusCode, 400, `${kind} ${bad}`)
        const body = envelope(response)
        assert.equal(body.success, false)
        assert.equal(body.error?.code, 'validation_failed')
        assert.equal(body.error?.details?.[0]?.field, 'id')
      }
    })
  }

  test('an unknown id is a 404', async () => {
    for (const kind of ['spotlight', 'qanda']) {
      const response = await get(`/v2/${kind}/${ctx.tenant.orgId}/987654`)
      assert.equal(response.statusCode, 404)
      assert.equal(envelope(response).error?.code, 'not_found')
    }
  })

  test("another organization's post or question is a 404, indistinguishable from a missing one", async () => {
    for (const [kind, id] of [
      ['spotlight', ids.spotlights[0]],
      ['qanda', ids.questions[0]],
    ]) {
      const response = await get(`/v2/${kind}/${ctx.other.orgId}/${id}`, ctx.other)
      assert.equal(response.statusCode, 404)
      assert.equal(envelope(response).error?.code, 'not_found')
    }
  })

  test("a token of another organization than the path's is a 403", async () => {
    const response = await get(`/v2/spotlight/${ctx.tenant.orgId}/${ids.spotlights[0]}`, ctx.other)
    assert.equal(response.statusCode, 403)
    assert.equal(envelope(response).error?.code, 'forbidden')
  })

  test('no token is a 401', async () => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/qanda/${ctx.tenant.orgId}/${ids.questions[0]}`,
    })
    assert.equal(response.statusCode, 401)
    assert.equal(envelope(response).error?.code, 'unauthorized')
  })

  test('PATCH on a post or Q&A item is a 405 naming the methods there', async () => {
    for (const kind of ['spotlight', 'qanda']) {
      const response = await ctx.inject({
        method: 'PATCH',
        url: `/v2/${kind}/${ctx.tenant.orgId}/${ids.spotlights[0]}`,
        headers: ctx.tenant.auth,
        payload: {},
      })
      assert.equal(response.statusCode, 405)
      assert.equal(envelope(response).error?.code, 'method_not_allowed')
      assert.equal(response.headers.allow, 'DELETE, GET, HEAD, PUT')
    }
  })

  test('the OpenAPI document describes the read paths and every profile section', async () => {
    const response = await ctx.inject({ method: 'GET', url: '/v2/openapi.json' })
    assert.equal(response.statusCode, 200)
    const doc = response.json()
    assert.ok(doc.paths['/v2/spotlight/{corporation}/{id}']?.get)
    assert.ok(doc.paths['/v2/qanda/{corporation}/{id}']?.get)
    const data =
      doc.paths['/v2/organization/{corporation}/expert/{username}'].get.responses['200'].content[
        'application/json'
      ].schema.properties.data
    const profile = deref(doc, data).properties
    const fee = deref(doc, profile.fee.items)
    assert.deepEqual(Object.keys(fee.properties), ['id', 'fee_min', 'fee_max', 'currency'])
  })
})
