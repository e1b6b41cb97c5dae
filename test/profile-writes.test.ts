import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import type { InjectOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { openDatabase } from '../src/db/database.js'
import { up as sanitizeStoredHtml } from '../src/db/migrations/0005_sanitize_html.js'
import { NAME_SECTIONS, STORED_SECTIONS } from '../src/profiles/section-fields.js'
import { api, expectError, expectOk } from './helpers/api.js'
import { exampleFile, importDocument } from './helpers/content.js'
import { createExpert, describeEachDialect, detailsOf, expertBody } from './helpers/harness.js'

const EXPERT = '/v2/organization/{corporation}/expert/{username}'
const ARTICLES = '/v2/organization/{corporation}/expert/{username}/article'
const ARTICLE = '/v2/organization/{corporation}/expert/{username}/article/{id}'
const POSTS = '/v2/spotlight/{corporation}'
const POST = '/v2/spotlight/{corporation}/{id}'
const QUESTIONS = '/v2/qanda/{corporation}'
const QUESTION = '/v2/qanda/{corporation}/{id}'
const ANSWERS = '/v2/qanda/{corporation}/{id}/answer'
const ANSWER = '/v2/qanda/{corporation}/{id}/answer/{answer_id}'
const ORGANIZATION = '/v2/organization/{corporation}'

describeEachDialect('writing profile sections, posts and Q&A through the API', (ctx) => {
  /** A new expert for every test, so that no test sees what another one wrote. */
  let username: string
  beforeEach(async () => {
    username = await createExpert(ctx, ctx.tenant)
  })
  const client = () => api(ctx.app, ctx.tenant)
  const org = () => ({ corporation: ctx.tenant.orgId })
  const expert = () => ({ corporation: ctx.tenant.orgId, username })
  const base = () => `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
  const profile = async () => expectOk(await client().get(EXPERT, { params: expert() }))
  const readPost = async (id: number) => expectOk(await client().get(POST, { params: { ...org(), id } }))
  const readQuestion = async (id: number) =>
    expectOk(await client().get(QUESTION, { params: { ...org(), id } }))

  test('a list section: append, read all and one, partial update, delete', async () => {
    const first = expectOk(
      await client().post(ARTICLES, {
        params: expert(),
        body: { title: 'Rain', url: 'https://a.example/1' },
      }),
    )
    const second = expectOk(
      await client().post(ARTICLES, { params: expert(), body: { title: 'Heat', date: 1700000000 } }),
    )
    assert.equal(typeof first.id, 'number')
    const list = expectOk(await client().get(ARTICLES, { params: expert() })).article
    assert.deepEqual(
      list.map((element) => element.title),
      ['Rain', 'Heat'],
    )
    assert.deepEqual(list[0], {
      id: first.id,
      title: 'Rain',
      publisher: null,
      authors: null,
      details: null,
      date: null,
      url: 'https://a.example/1',
    })
    const one = expectOk(await client().get(ARTICLE, { params: { ...expert(), id: second.id } }))
    assert.deepEqual(one, { article: [list[1]] })
    const update = () =>
      client().put(ARTICLE, { params: { ...expert(), id: first.id }, body: { publisher: 'Nature' } })
    assert.deepEqual(expectOk(await update()), { id: first.id, updated: true })
    assert.deepEqual(expectOk(await update()), { id: first.id, updated: false })
    assert.equal((await profile()).article[0]?.publisher, 'Nature')
    assert.deepEqual(expectOk(await client().delete(ARTICLE, { params: { ...expert(), id: second.id } })), {
      id: second.id,
      deleted: true,
    })
    expectError(await client().get(ARTICLE, { params: { ...expert(), id: second.id } }), 404, 'not_found')
    assert.equal((await profile()).article.length, 1)
  })

  test('400 names every offending field; an empty update is refused', async () => {
    const details = detailsOf(
      await client().send('POST', `${base()}/article`, { url: 'ftp://x', date: 1.5, extra: 1 }),
    )
    assert.deepEqual(Object.keys(details).sort(), ['date', 'extra', 'title', 'url'])
    const element = expectOk(await client().post(ARTICLES, { params: expert(), body: { title: 'Rain' } }))
    assert.ok(detailsOf(await client().send('PUT', `${base()}/article/${element.id}`, {})).body)
    assert.match(
      detailsOf(await client().send('PUT', `${base()}/article/${element.id}`, { title: null })).title ?? '',
      /must/,
    )
  })

  test('a named choice takes its values only, and a refused one is named with the values allowed', async () => {
    const refused = { title: 'Prize', type: 72 }
    assert.deepEqual(detailsOf(await client().send('POST', `${base()}/accomplishment`, refused)), {
      type: 'must be one of: 71, 73',
    })
    const medium = { title: 'Radio talk', type: 'podcast' }
    assert.deepEqual(detailsOf(await client().send('POST', `${base()}/mediaappearance`, medium)), {
      type: 'must be one of: print, online, tv, radio',
    })
    const made = expectOk(
      await client().post('/v2/organization/{corporation}/expert/{username}/accomplishment', {
        params: expert(),
        body: { title: 'Prize', type: 73 },
      }),
    )
    const stored = expectOk(
      await client().get('/v2/organization/{corporation}/expert/{username}/accomplishment/{id}', {
        params: { ...expert(), id: made.id },
      }),
    )
    assert.deepEqual(stored, {
      accomplishment: [{ id: made.id, title: 'Prize', description: null, type: 73, start: null, end: null }],
    })
  })

  test('an id of another section, another expert or another organization is a 404', async () => {
    const other = await createExpert(ctx, ctx.tenant)
    const otherExpert = { ...org(), username: other }
    const theirs = expectOk(await client().post(ARTICLES, { params: otherExpert, body: { title: 'Theirs' } }))
    const link = expectOk(
      await client().post('/v2/organization/{corporation}/expert/{username}/link', {
        params: expert(),
        body: { name: 'Lab', url: 'https://lab.example' },
      }),
    )
    const mine = (id: number) => ({ params: { ...expert(), id } })
    expectError(await client().get(ARTICLE, mine(theirs.id)), 404, 'not_found')
    expectError(
      await client().put(ARTICLE, { ...mine(theirs.id), body: { title: 'Mine' } }),
      404,
      'not_found',
    )
    expectError(await client().delete(ARTICLE, mine(link.id)), 404, 'not_found')
    const foreignUser = await createExpert(ctx, ctx.other, { lastname: 'Only Elsewhere' })
    const foreign = expectOk(
      await api(ctx.app, ctx.other).post(ARTICLES, {
        params: { corporation: ctx.other.orgId, username: foreignUser },
        body: { title: 'X' },
      }),
    )
    expectError(await client().delete(ARTICLE, mine(foreign.id)), 404, 'not_found')
    expectError(
      await client().get(ARTICLES, { params: { ...org(), username: foreignUser } }),
      404,
      'not_found',
    )
    expectError(
      await client().get(ARTICLES, { params: { corporation: ctx.other.orgId, username: foreignUser } }),
      403,
      'forbidden',
    )
    assert.equal(expectOk(await client().get(ARTICLES, { params: otherExpert })).article.length, 1)
  })

  test('an unknown section is a 404; read-only sections answer GET and 405 with Allow otherwise', async () => {
    expectError(await client().send('GET', `${base()}/nonsense`), 404, 'not_found')
    expectError(await client().send('POST', `${base()}/nonsense`, { name: 'x' }), 404, 'not_found')
    for (const section of [
      'account',
      'corporationprofile',
      'corporationsocial',
      'spotlight',
      'qanda',
      'videos_all',
    ]) {
      const read = expectOk(await client().send('GET', `${base()}/${section}`))
      assert.ok(Object.hasOwn(read, section), section)
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const response = await client().send(method, `${base()}/${section}`, {})
        expectError(response, 405, 'method_not_allowed')
        assert.equal(response.headers.allow, 'GET, HEAD', section)
      }
    }
    assert.equal(
      expectOk(
        await client().get('/v2/organization/{corporation}/expert/{username}/account', { params: expert() }),
      ).account[0]?.username,
      username,
    )
    // The avatar is read here and written by its own upload routes (PUT and DELETE, test/media.test.ts).
    assert.ok(
      Object.hasOwn(
        expectOk(
          await client().get('/v2/organization/{corporation}/expert/{username}/avatar', { params: expert() }),
        ),
        'avatar',
      ),
    )
    const post = await client().send('POST', `${base()}/avatar`, {})
    expectError(post, 405, 'method_not_allowed')
    assert.deepEqual(String(post.headers.allow).split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PUT'])
  })

  test('a name set: unique case-insensitively, no PUT, tags are the organization tags', async () => {
    const TOPICS = '/v2/organization/{corporation}/expert/{username}/topic'
    const TAGS = '/v2/organization/{corporation}/expert/{username}/tag'
    const topic = expectOk(await client().post(TOPICS, { params: expert(), body: { name: 'Climate' } }))
    assert.deepEqual(expectOk(await client().post(TOPICS, { params: expert(), body: { name: 'climate' } })), {
      id: topic.id,
    })
    const put = await client().send('PUT', `${base()}/topic/${topic.id}`, { name: 'Weather' })
    expectError(put, 405, 'method_not_allowed')
    assert.equal(put.headers.allow, 'DELETE, GET, HEAD')
    const tag = expectOk(await client().post(TAGS, { params: expert(), body: { name: 'Oceans' } }))
    const aliased = expectOk(await client().send<{ id: number }>('POST', `${base()}/tag`, { tag: 'OCEANS' }))
    assert.equal(aliased.id, tag.id)
    const [element] = expectOk(await client().get(TAGS, { params: expert() })).tag
    const { db } = ctx.testDatabase.database
    const stored = await db
      .selectFrom('content_tags')
      .select(['id', 'name'])
      .where('org_id', '=', ctx.tenant.orgId)
      .where('name_key', '=', 'oceans')
      .executeTakeFirstOrThrow()
    assert.deepEqual(element, { id: tag.id, content_tag_id: stored.id, tag: 'Oceans' })
    expectOk(
      await client().delete('/v2/organization/{corporation}/expert/{username}/topic/{id}', {
        params: { ...expert(), id: topic.id },
      }),
    )
    assert.deepEqual((await profile()).topic, [])
  })

  test('a single-element section: set, replace given fields, clear, 404 when already empty', async () => {
    const FEE = '/v2/organization/{corporation}/expert/{username}/fee'
    assert.deepEqual(expectOk(await client().get(FEE, { params: expert() })), { fee: [] })
    assert.ok(detailsOf(await client().send('POST', `${base()}/fee`, { fee_min: 100 })).currency)
    const set = expectOk(
      await client().post(FEE, { params: expert(), body: { fee_min: 100, currency: 'cad' } }),
    )
    assert.equal(set.updated, true)
    const again = expectOk(await client().post(FEE, { params: expert(), body: { fee_max: 900 } }))
    assert.deepEqual(again, { id: set.id, updated: true })
    assert.deepEqual(expectOk(await client().post(FEE, { params: expert(), body: { fee_max: 900 } })), {
      id: set.id,
      updated: false,
    })
    assert.deepEqual((await profile()).fee, [{ id: set.id, fee_min: 100, fee_max: 900, currency: 'CAD' }])
    assert.deepEqual(expectOk(await client().delete(FEE, { params: expert() })), {
      id: set.id,
      deleted: true,
    })
    expectError(await client().delete(FEE, { params: expert() }), 404, 'not_found')
    const put = await client().send('PUT', `${base()}/fee`, { fee_min: 1 })
    expectError(put, 405, 'method_not_allowed')
    assert.equal(put.headers.allow, 'DELETE, GET, HEAD, POST')
  })

  test('vendor aliases: researchgrant detail, biography description, tag tag', async () => {
    const grant = expectOk(
      await client().send<{ id: number }>('POST', `${base()}/researchgrant`, {
        title: 'Grant',
        detail: 'Five years',
      }),
    )
    const grantOf = { params: { ...expert(), id: grant.id } }
    const GRANT = '/v2/organization/{corporation}/expert/{username}/researchgrant/{id}'
    const [element] = expectOk(await client().get(GRANT, grantOf)).researchgrant
    assert.equal(element?.details, 'Five years')
    expectOk(await client().send('PUT', `${base()}/researchgrant/${grant.id}`, { detail: 'Six years' }))
    assert.equal((await profile()).researchgrant[0]?.details, 'Six years')
    expectOk(await client().send('POST', `${base()}/biography`, { description: 'Studies rain.' }))
    assert.equal((await profile()).biography[0]?.biography, 'Studies rain.')
  })

  test('form bodies: values coerced from strings, repeated keys only for array fields', async () => {
    const form = new URLSearchParams({ title: 'Ocean talk', start: '1600000000', type: '71' }).toString()
    const created = expectOk(await client().send<{ id: number }>('POST', `${base()}/accomplishment`, form))
    const [element] = expectOk(
      await client().get('/v2/organization/{corporation}/expert/{username}/accomplishment/{id}', {
        params: { ...expert(), id: created.id },
      }),
    ).accomplishment
    assert.equal(element?.start, 1600000000)
    assert.equal(element?.type, 71)
    const repeated = detailsOf(await client().send('POST', `${base()}/accomplishment`, 'title=a&title=b'))
    assert.match(repeated.title ?? '', /repeated/)
    const post = expectOk(
      await client().send<{ id: number }>(
        'POST',
        `/v2/spotlight/${ctx.tenant.orgId}`,
        `title=Form+post&html=%3Cp%3EHi%3C%2Fp%3E&tags=A&tags=B&tagged=${username}&published=1`,
      ),
    )
    const read = await readPost(post.id)
    assert.deepEqual(
      read.tags.map((tag) => tag.tag),
      ['A', 'B'],
    )
    assert.equal(read.spotlight[0]?.published, 1)
  })

  test('a list holds at most 500 elements: the 501st is a 409', async () => {
    const key = 'many'
    const links = Array.from({ length: 500 }, (_, i) => ({
      name: `Link ${i}`,
      url: `https://l.example/${i}`,
    }))
    const imported = await importDocument(ctx, ctx.tenant.orgId, {
      experts: [{ key, ...expertBody(), sections: { link: links } }],
    })
    const LINKS = '/v2/organization/{corporation}/expert/{username}/link'
    const full = { params: { ...org(), username: String(imported.ids.experts[0]) } }
    const response = await client().post(LINKS, {
      ...full,
      body: { name: 'One more', url: 'https://l.example/x' },
    })
    expectError(response, 409, 'conflict')
    assert.equal(expectOk(await client().get(LINKS, full)).link.length, 500)
  })

  test('HTML fields are sanitized on write; allowed markup stays, plain-text fields stay as sent', async () => {
    const dirty =
      '<p onclick="steal()">Hi <b>there</b> <a href="javascript:alert(1)">x</a> <a href="https://ok.example">ok</a>' +
      '<img src="data:image/png;base64,AAAA" onerror="x()"><script>alert(1)</script><style>p{}</style></p>'
    const clean = '<p>Hi <b>there</b> <a>x</a> <a href="https://ok.example">ok</a><img /></p>'
    expectOk(
      await client().post('/v2/organization/{corporation}/expert/{username}/biography', {
        params: expert(),
        body: { biography: dirty },
      }),
    )
    assert.equal((await profile()).biography[0]?.biography, clean)
    expectOk(
      await client().post('/v2/organization/{corporation}/expert/{username}/sampletalk', {
        params: expert(),
        body: { title: 'Talk <b>', description: '<i>as sent</i>' },
      }),
    )
    assert.deepEqual(
      (await profile()).sampletalk.map(({ title, description }) => ({ title, description })),
      [{ title: 'Talk <b>', description: '<i>as sent</i>' }],
    )
    const post = expectOk(await client().post(POSTS, { params: org(), body: { title: 'P', html: dirty } }))
    assert.equal((await readPost(post.id)).spotlight[0]?.html, clean)
    const question = expectOk(
      await client().post(QUESTIONS, { params: org(), body: { question: 'Q?', details: dirty } }),
    )
    expectOk(
      await client().post(ANSWERS, {
        params: { ...org(), id: question.id },
        body: { username, answer: dirty },
      }),
    )
    const [read] = (await readQuestion(question.id)).question
    assert.equal(read?.details, clean)
    assert.equal(read?.answers[0]?.answer, clean)
    const imported = await importDocument(ctx, ctx.tenant.orgId, {
      spotlights: [{ key: 'dirty', title: 'Imported', html: dirty }],
    })
    assert.equal((await readPost(Number(imported.ids.spotlights[0]))).spotlight[0]?.html, clean)
  })

  test('posts round trip: tags, tagged experts, seo; PUT replaces the lists; DELETE removes it from profiles', async () => {
    const unknown = detailsOf(
      await client().post(POSTS, {
        params: org(),
        body: { title: 'T', html: '<p>x</p>', tagged: [username, 'nobody-here'] },
      }),
    )
    assert.match(unknown['tagged[1]'] ?? '', /nobody-here/)
    const created = expectOk(
      await client().post(POSTS, {
        params: org(),
        body: {
          title: 'Heat waves',
          html: '<p>Longer and hotter.</p>',
          featured_image: 'https://img.example/heat.jpg',
          published: 1,
          published_date: 1700000000,
          tags: ['Climate', 'Heat'],
          tagged: [username],
          seo: { title: 'Heat waves explained' },
        },
      }),
    )
    const it = { params: { ...org(), id: created.id } }
    let read = await readPost(created.id)
    const [post] = read.spotlight
    assert.equal(post?.title, 'Heat waves')
    assert.equal(post?.published_date, 1700000000)
    assert.deepEqual(
      (post?.tagged_experts ?? []).map((tagged) => tagged.username),
      [username],
    )
    assert.equal(read.seo[0]?.title, 'Heat waves explained')
    assert.ok((await profile()).spotlight.some((element) => element.id === created.id))
    assert.deepEqual(expectOk(await client().put(POST, { ...it, body: { tags: ['Heat'], tagged: [] } })), {
      id: created.id,
      updated: true,
    })
    read = await readPost(created.id)
    assert.deepEqual(
      read.tags.map((tag) => tag.tag),
      ['Heat'],
    )
    assert.deepEqual(read.spotlight[0]?.tagged_experts, [])
    assert.ok(!(await profile()).spotlight.some((element) => element.id === created.id))
    assert.deepEqual(expectOk(await client().put(POST, { ...it, body: { title: 'Heat waves' } })), {
      id: created.id,
      updated: false,
    })
    assert.deepEqual(expectOk(await client().delete(POST, it)), { id: created.id, deleted: true })
    expectError(await client().get(POST, it), 404, 'not_found')
    expectError(await client().delete(POST, it), 404, 'not_found')
  })

  test('Q&A round trip: question, answers by experts, the qanda section of the answering expert', async () => {
    const question = expectOk(
      await client().post(QUESTIONS, {
        params: org(),
        body: { question: 'Why is it raining more?', published: 1, tags: ['Rain'] },
      }),
    )
    const it = { params: { ...org(), id: question.id } }
    const answer = expectOk(
      await client().post(ANSWERS, { ...it, body: { username, answer: '<p>Warmer air.</p>' } }),
    )
    assert.ok(
      detailsOf(await client().post(ANSWERS, { ...it, body: { username: 'nobody-here', answer: 'x' } }))
        .username,
    )
    let [read] = (await readQuestion(question.id)).question
    assert.deepEqual(
      (read?.answers ?? []).map((a) => [a.id, a.username, a.answer]),
      [[answer.id, username, '<p>Warmer air.</p>']],
    )
    assert.ok((await profile()).qanda.some((element) => element.id === question.id))
    const theAnswer = (answerId: number) => ({ params: { ...org(), id: question.id, answer_id: answerId } })
    assert.deepEqual(
      expectOk(
        await client().put(ANSWER, {
          ...theAnswer(answer.id),
          body: { answer: '<p>Warmer air holds more water.</p>' },
        }),
      ),
      { id: answer.id, updated: true },
    )
    expectOk(await client().put(QUESTION, { ...it, body: { details: 'Asked by a reader.' } }))
    ;[read] = (await readQuestion(question.id)).question
    assert.equal(read?.details, 'Asked by a reader.')
    assert.equal((read?.answers ?? [])[0]?.answer, '<p>Warmer air holds more water.</p>')
    expectError(await client().delete(ANSWER, theAnswer(999999)), 404, 'not_found')
    expectOk(await client().delete(ANSWER, theAnswer(answer.id)))
    assert.ok(!(await profile()).qanda.some((element) => element.id === question.id))
    expectOk(await client().delete(QUESTION, it))
    expectError(await client().get(QUESTION, it), 404, 'not_found')
  })

  test('the organization profile: GET, partial PUT, shown in every expert profile', async () => {
    const before = expectOk(await client().get(ORGANIZATION, { params: org() }))
    assert.equal(before.name, 'Main University')
    assert.deepEqual(
      expectOk(
        await client().put(ORGANIZATION, {
          params: org(),
          body: {
            description: 'A university.',
            website: 'https://uni.example',
            location_country: 'ca',
            location_state: 'CA-ON',
            twitter: 'https://twitter.com/uni',
          },
        }),
      ),
      { id: ctx.tenant.orgId, updated: true },
    )
    const after = expectOk(await client().get(ORGANIZATION, { params: org() }))
    assert.equal(after.location_country, 'CA')
    assert.equal(after.location_state, 'ON')
    const shown = await profile()
    assert.equal(shown.corporationprofile[0]?.description, 'A university.')
    assert.equal(shown.corporationsocial[0]?.twitter, 'https://twitter.com/uni')
    assert.deepEqual(
      expectOk(await client().put(ORGANIZATION, { params: org(), body: { website: 'https://uni.example' } })),
      { id: ctx.tenant.orgId, updated: false },
    )
    expectOk(await client().send('PUT', `/v2/organization/${ctx.tenant.orgId}`, 'twitter='))
    assert.deepEqual((await profile()).corporationsocial, [])
    assert.ok(
      detailsOf(await client().put(ORGANIZATION, { params: org(), body: { location_state: 'XX' } }))
        .location_state,
    )
    expectError(
      await client().put(ORGANIZATION, {
        params: { corporation: ctx.other.orgId },
        body: { description: 'x' },
      }),
      403,
      'forbidden',
    )
  })

  test('every write changes the next ETag and the expert updated_at', async () => {
    const { db } = ctx.testDatabase.database
    const updatedAt = async () =>
      (
        await db
          .selectFrom('experts')
          .select('updated_at')
          .where('org_id', '=', ctx.tenant.orgId)
          .where('username', '=', username)
          .executeTakeFirstOrThrow()
      ).updated_at
    const etag = async () => (await client().get(EXPERT, { params: expert() })).headers.etag
    const writes: [InjectOptions['method'], string, object][] = [
      ['POST', `${base()}/tagline`, { tagline: 'Rain expert' }],
      ['POST', `${base()}/topic`, { name: 'Hydrology' }],
      ['PUT', base(), { job_title: 'Professor' }],
      ['PUT', `/v2/organization/${ctx.tenant.orgId}`, { description: 'Changed again.' }],
      [
        'POST',
        `/v2/spotlight/${ctx.tenant.orgId}`,
        { title: 'Tagging', html: 'x', tagged: [username], published: 1 },
      ],
    ]
    for (const [method, url, payload] of writes) {
      const before = await etag()
      const beforeTime = Number(await updatedAt())
      ctx.clock.advance(1000)
      expectOk(await client().send(method, url, payload))
      assert.notEqual(await etag(), before, `${method} ${url}`)
      assert.ok(Number(await updatedAt()) > beforeTime, `${method} ${url} bumps updated_at`)
    }
  })

  test('deleting an expert changes the posts that tagged it and the questions it answered', async () => {
    const gone = await createExpert(ctx, ctx.tenant)
    const post = expectOk(
      await client().post(POSTS, { params: org(), body: { title: 'T', html: 'x', tagged: [gone] } }),
    )
    const question = expectOk(await client().post(QUESTIONS, { params: org(), body: { question: 'Q?' } }))
    expectOk(
      await client().post(ANSWERS, {
        params: { ...org(), id: question.id },
        body: { username: gone, answer: 'A' },
      }),
    )
    const read = async () => ({
      post: (await readPost(post.id)).spotlight[0],
      question: (await readQuestion(question.id)).question[0],
    })
    const before = await read()
    ctx.clock.advance(5000)
    expectOk(await client().delete(EXPERT, { params: { ...org(), username: gone } }))
    const after = await read()
    assert.deepEqual(after.post?.tagged_experts, [])
    assert.deepEqual(after.question?.answers, [])
    assert.ok(Number(after.post?.modified) > Number(before.post?.modified))
    assert.ok(Number(after.question?.modified) > Number(before.question?.modified))
  })

  test('a write through one app instance is seen at once by another on the same database', async () => {
    const database = openDatabase(ctx.testDatabase.url)
    const second = await buildApp({
      config: { ...ctx.config, logLevel: 'silent' },
      database,
      now: ctx.clock.now,
    })
    try {
      const TAGLINE = '/v2/organization/{corporation}/expert/{username}/tagline'
      const read = async (app: typeof second) =>
        expectOk(await api(app, ctx.tenant).get(TAGLINE, { params: expert() }))
      assert.deepEqual(await read(second), await read(ctx.app))
      for (const tagline of ['First', 'Second']) {
        expectOk(await api(second, ctx.tenant).post(TAGLINE, { params: expert(), body: { tagline } }))
        assert.equal((await read(ctx.app)).tagline[0]?.tagline, tagline)
      }
    } finally {
      await second.close()
      await database.close()
    }
  })

  test('import and the API give byte-identical profile reads for the same content', async () => {
    const tenant = await ctx.addTenant('Identical')
    const [source] = exampleFile().experts
    assert.ok(source)
    const { sections, key: _key, is_published, is_private, ...account } = source
    const { avatar: _avatar, ...writable } = sections
    await importDocument(ctx, tenant.orgId, { experts: [{ ...source, key: 'imported', sections: writable }] })
    const viaApi = await createExpert(ctx, tenant, { ...account, email: 'api.copy@northlake.example' })
    const theirs = api(ctx.app, tenant)
    const expertUrl = `/v2/organization/${tenant.orgId}/expert/${viaApi}`
    expectOk(await theirs.send('PUT', expertUrl, { is_published, is_private }))
    for (const section of STORED_SECTIONS) {
      const value = writable[section]
      if (value === undefined) continue
      for (const element of [value].flat()) {
        if (!isRecord(element)) throw new Error(`an element of ${section} is not an object`)
        const { key: _elementKey, ...body } = element
        const payload = NAME_SECTIONS.has(section) ? { name: body.name ?? body.tag } : body
        expectOk(await theirs.send('POST', `${expertUrl}/${section}`, payload))
      }
    }
    const { db } = ctx.testDatabase.database
    const importedName = (
      await db
        .selectFrom('experts')
        .select('username')
        .where('org_id', '=', tenant.orgId)
        .where('email_key', '=', String(account.email).toLowerCase())
        .executeTakeFirstOrThrow()
    ).username
    const normalized = async (name: string) => {
      const read = expectOk(
        await theirs.get(EXPERT, { params: { corporation: tenant.orgId, username: name } }),
      )
      const [shown] = read.account
      assert.ok(shown)
      shown.username = 'someone'
      shown.email = 'someone@example.org'
      return JSON.stringify(read, (field, value) => (field === 'id' ? 0 : value))
    }
    assert.equal(await normalized(viaApi), await normalized(importedName))
  })

  test('migration 0005 sanitizes HTML stored before sanitizing existed', async () => {
    const { db } = ctx.testDatabase.database
    const dirty = '<p onmouseover="x()">Kept <em>markup</em><script>alert(1)</script></p>'
    const clean = '<p>Kept <em>markup</em></p>'
    const post = expectOk(await client().post(POSTS, { params: org(), body: { title: 'Old', html: 'x' } }))
    const bio = expectOk(
      await client().post('/v2/organization/{corporation}/expert/{username}/biography', {
        params: expert(),
        body: { biography: 'x' },
      }),
    )
    await db.updateTable('spotlights').set({ html: dirty }).where('id', '=', post.id).execute()
    await db
      .updateTable('profile_items')
      .set({ data: JSON.stringify({ biography: dirty }) })
      .where('id', '=', bio.id)
      .execute()
    await sanitizeStoredHtml(db as never)
    assert.equal((await readPost(post.id)).spotlight[0]?.html, clean)
    assert.equal((await profile()).biography[0]?.biography, clean)
  })
})

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
