import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import type { InjectOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { openDatabase } from '../src/db/database.js'
import { up as sanitizeStoredHtml } from '../src/db/migrations/0005_sanitize_html.js'
import { NAME_SECTIONS, STORED_SECTIONS } from '../src/profiles/section-fields.js'
import { exampleFile, importDocument } from './helpers/content.js'
import {
  createExpert,
  describeEachDialect,
  detailsOf,
  envelope,
  expertBody,
  FORM,
  type Tenant,
  type TestContext,
} from './helpers/harness.js'

type Element = Record<string, unknown>

function call(
  ctx: TestContext,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
  tenant?: Tenant,
) {
  const headers = (tenant ?? ctx.tenant).auth
  return ctx.inject({
    method,
    url,
    headers: typeof payload === 'string' ? { ...headers, ...FORM } : headers,
    ...(payload !== undefined ? { payload: payload as InjectOptions['payload'] } : {}),
  })
}

async function data(response: Awaited<ReturnType<typeof call>>) {
  assert.equal(response.statusCode, 200, response.body)
  return envelope(response).data as Element
}

function expectError(response: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(envelope(response).error?.code, code)
}

describeEachDialect('writing profile sections, posts and Q&A through the API', (ctx) => {
  /** A new expert for every test, so that no test sees what another one wrote. */
  let username: string
  beforeEach(async () => {
    username = await createExpert(ctx, ctx.tenant)
  })
  const base = () => `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
  const profile = async () => data(await call(ctx, 'GET', base()))

  test('a list section: append, read all and one, partial update, delete', async () => {
    const first = await data(
      await call(ctx, 'POST', `${base()}/article`, { title: 'Rain', url: 'https://a.example/1' }),
    )
    const second = await data(
      await call(ctx, 'POST', `${base()}/article`, { title: 'Heat', date: 1700000000 }),
    )
    assert.equal(typeof first.id, 'number')
    const list = (await data(await call(ctx, 'GET', `${base()}/article`))).article as Element[]
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
    const one = await data(await call(ctx, 'GET', `${base()}/article/${second.id}`))
    assert.deepEqual(one, { article: [list[1]] })
    assert.deepEqual(
      await data(await call(ctx, 'PUT', `${base()}/article/${first.id}`, { publisher: 'Nature' })),
      {
        id: first.id,
        updated: true,
      },
    )
    assert.deepEqual(
      await data(await call(ctx, 'PUT', `${base()}/article/${first.id}`, { publisher: 'Nature' })),
      {
        id: first.id,
        updated: false,
      },
    )
    assert.equal(((await profile()).article as Element[])[0]?.publisher, 'Nature')
    assert.deepEqual(await data(await call(ctx, 'DELETE', `${base()}/article/${second.id}`)), {
      id: second.id,
      deleted: true,
    })
    expectError(await call(ctx, 'GET', `${base()}/article/${second.id}`), 404, 'not_found')
    assert.equal(((await profile()).article as Element[]).length, 1)
  })

  test('400 names every offending field; an empty update is refused', async () => {
    const details = detailsOf(
      await call(ctx, 'POST', `${base()}/article`, { url: 'ftp://x', date: 1.5, extra: 1 }),
    )
    assert.deepEqual(Object.keys(details).sort(), ['date', 'extra', 'title', 'url'])
    const element = await data(await call(ctx, 'POST', `${base()}/article`, { title: 'Rain' }))
    assert.ok(detailsOf(await call(ctx, 'PUT', `${base()}/article/${element.id}`, {})).body)
    assert.match(
      detailsOf(await call(ctx, 'PUT', `${base()}/article/${element.id}`, { title: null })).title ?? '',
      /must/,
    )
  })

  test('a named choice takes its values only, and a refused one is named with the values allowed', async () => {
    const refused = { title: 'Prize', type: 72 }
    assert.deepEqual(detailsOf(await call(ctx, 'POST', `${base()}/accomplishment`, refused)), {
      type: 'must be one of: 71, 73',
    })
    const medium = { title: 'Radio talk', type: 'podcast' }
    assert.deepEqual(detailsOf(await call(ctx, 'POST', `${base()}/mediaappearance`, medium)), {
      type: 'must be one of: print, online, tv, radio',
    })
    const made = await data(await call(ctx, 'POST', `${base()}/accomplishment`, { title: 'Prize', type: 73 }))
    const stored = await data(await call(ctx, 'GET', `${base()}/accomplishment/${made.id}`))
    assert.deepEqual(stored, {
      accomplishment: [{ id: made.id, title: 'Prize', description: null, type: 73, start: null, end: null }],
    })
  })

  test('an id of another section, another expert or another organization is a 404', async () => {
    const other = await createExpert(ctx, ctx.tenant)
    const otherBase = `/v2/organization/${ctx.tenant.orgId}/expert/${other}`
    const theirs = await data(await call(ctx, 'POST', `${otherBase}/article`, { title: 'Theirs' }))
    const link = await data(
      await call(ctx, 'POST', `${base()}/link`, { name: 'Lab', url: 'https://lab.example' }),
    )
    expectError(await call(ctx, 'GET', `${base()}/article/${theirs.id}`), 404, 'not_found')
    expectError(await call(ctx, 'PUT', `${base()}/article/${theirs.id}`, { title: 'Mine' }), 404, 'not_found')
    expectError(await call(ctx, 'DELETE', `${base()}/article/${link.id}`), 404, 'not_found')
    const foreignUser = await createExpert(ctx, ctx.other, { lastname: 'Only Elsewhere' })
    const foreign = await data(
      await call(
        ctx,
        'POST',
        `/v2/organization/${ctx.other.orgId}/expert/${foreignUser}/article`,
        { title: 'X' },
        ctx.other,
      ),
    )
    expectError(await call(ctx, 'DELETE', `${base()}/article/${foreign.id}`), 404, 'not_found')
    expectError(
      await call(ctx, 'GET', `/v2/organization/${ctx.tenant.orgId}/expert/${foreignUser}/article`),
      404,
      'not_found',
    )
    expectError(
      await call(ctx, 'GET', `/v2/organization/${ctx.other.orgId}/expert/${foreignUser}/article`),
      403,
      'forbidden',
    )
    assert.equal(
      ((await data(await call(ctx, 'GET', `${otherBase}/article`))).article as Element[]).length,
      1,
    )
  })

  test('an unknown section is a 404; read-only sections answer GET and 405 with Allow otherwise', async () => {
    expectError(await call(ctx, 'GET', `${base()}/nonsense`), 404, 'not_found')
    expectError(await call(ctx, 'POST', `${base()}/nonsense`, { name: 'x' }), 404, 'not_found')
    for (const section of [
      'account',
      'corporationprofile',
      'corporationsocial',
      'spotlight',
      'qanda',
      'videos_all',
    ]) {
      const read = await data(await call(ctx, 'GET', `${base()}/${section}`))
      assert.ok(Object.hasOwn(read, section), section)
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const response = await call(ctx, method, `${base()}/${section}`, {})
        expectError(response, 405, 'method_not_allowed')
        assert.equal(response.headers.allow, 'GET, HEAD', section)
      }
    }
    assert.equal(
      ((await data(await call(ctx, 'GET', `${base()}/account`))).account as Element[])[0]?.username,
      username,
    )
    // The avatar is read here and written by its own upload routes (PUT and DELETE, test/media.test.ts).
    assert.ok(Object.hasOwn(await data(await call(ctx, 'GET', `${base()}/avatar`)), 'avatar'))
    const post = await call(ctx, 'POST', `${base()}/avatar`, {})
    expectError(post, 405, 'method_not_allowed')
    assert.deepEqual(String(post.headers.allow).split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PUT'])
  })

  test('a name set: unique case-insensitively, no PUT, tags are the organization tags', async () => {
    const topic = await data(await call(ctx, 'POST', `${base()}/topic`, { name: 'Climate' }))
    assert.deepEqual(await data(await call(ctx, 'POST', `${base()}/topic`, { name: 'climate' })), {
      id: topic.id,
    })
    const put = await call(ctx, 'PUT', `${base()}/topic/${topic.id}`, { name: 'Weather' })
    expectError(put, 405, 'method_not_allowed')
    assert.equal(put.headers.allow, 'DELETE, GET, HEAD')
    const tag = await data(await call(ctx, 'POST', `${base()}/tag`, { name: 'Oceans' }))
    const aliased = await data(await call(ctx, 'POST', `${base()}/tag`, { tag: 'OCEANS' }))
    assert.equal(aliased.id, tag.id)
    const [element] = (await data(await call(ctx, 'GET', `${base()}/tag`))).tag as Element[]
    const { db } = ctx.testDatabase.database
    const stored = await db
      .selectFrom('content_tags')
      .select(['id', 'name'])
      .where('org_id', '=', ctx.tenant.orgId)
      .where('name_key', '=', 'oceans')
      .executeTakeFirstOrThrow()
    assert.deepEqual(element, { id: tag.id, content_tag_id: stored.id, tag: 'Oceans' })
    await data(await call(ctx, 'DELETE', `${base()}/topic/${topic.id}`))
    assert.deepEqual((await profile()).topic, [])
  })

  test('a single-element section: set, replace given fields, clear, 404 when already empty', async () => {
    assert.deepEqual(await data(await call(ctx, 'GET', `${base()}/fee`)), { fee: [] })
    assert.ok(detailsOf(await call(ctx, 'POST', `${base()}/fee`, { fee_min: 100 })).currency)
    const set = await data(await call(ctx, 'POST', `${base()}/fee`, { fee_min: 100, currency: 'cad' }))
    assert.equal(set.updated, true)
    const again = await data(await call(ctx, 'POST', `${base()}/fee`, { fee_max: 900 }))
    assert.deepEqual(again, { id: set.id, updated: true })
    assert.deepEqual(await data(await call(ctx, 'POST', `${base()}/fee`, { fee_max: 900 })), {
      id: set.id,
      updated: false,
    })
    assert.deepEqual((await profile()).fee, [{ id: set.id, fee_min: 100, fee_max: 900, currency: 'CAD' }])
    assert.deepEqual(await data(await call(ctx, 'DELETE', `${base()}/fee`)), { id: set.id, deleted: true })
    expectError(await call(ctx, 'DELETE', `${base()}/fee`), 404, 'not_found')
    const put = await call(ctx, 'PUT', `${base()}/fee`, { fee_min: 1 })
    expectError(put, 405, 'method_not_allowed')
    assert.equal(put.headers.allow, 'DELETE, GET, HEAD, POST')
  })

  test('vendor aliases: researchgrant detail, biography description, tag tag', async () => {
    const grant = await data(
      await call(ctx, 'POST', `${base()}/researchgrant`, { title: 'Grant', detail: 'Five years' }),
    )
    const [element] = (await data(await call(ctx, 'GET', `${base()}/researchgrant/${grant.id}`)))
      .researchgrant as Element[]
    assert.equal(element?.details, 'Five years')
    await data(await call(ctx, 'PUT', `${base()}/researchgrant/${grant.id}`, { detail: 'Six years' }))
    assert.equal(((await profile()).researchgrant as Element[])[0]?.details, 'Six years')
    await data(await call(ctx, 'POST', `${base()}/biography`, { description: 'Studies rain.' }))
    assert.equal(((await profile()).biography as Element[])[0]?.biography, 'Studies rain.')
  })

  test('form bodies: values coerced from strings, repeated keys only for array fields', async () => {
    const form = new URLSearchParams({ title: 'Ocean talk', start: '1600000000', type: '71' }).toString()
    const created = await data(await call(ctx, 'POST', `${base()}/accomplishment`, form))
    const [element] = (await data(await call(ctx, 'GET', `${base()}/accomplishment/${created.id}`)))
      .accomplishment as Element[]
    assert.equal(element?.start, 1600000000)
    assert.equal(element?.type, 71)
    const repeated = detailsOf(await call(ctx, 'POST', `${base()}/accomplishment`, 'title=a&title=b'))
    assert.match(repeated.title ?? '', /repeated/)
    const post = await data(
      await call(
        ctx,
        'POST',
        `/v2/spotlight/${ctx.tenant.orgId}`,
        `title=Form+post&html=%3Cp%3EHi%3C%2Fp%3E&tags=A&tags=B&tagged=${username}&published=1`,
      ),
    )
    const read = await data(await call(ctx, 'GET', `/v2/spotlight/${ctx.tenant.orgId}/${post.id}`))
    assert.deepEqual(
      (read.tags as Element[]).map((tag) => tag.tag),
      ['A', 'B'],
    )
    assert.equal((read.spotlight as Element[])[0]?.published, 1)
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
    const full = `/v2/organization/${ctx.tenant.orgId}/expert/${imported.ids.experts[0]}/link`
    const response = await call(ctx, 'POST', full, { name: 'One more', url: 'https://l.example/x' })
    expectError(response, 409, 'conflict')
    assert.equal(((await data(await call(ctx, 'GET', full))).link as Element[]).length, 500)
  })

  test('HTML fields are sanitized on write; allowed markup stays, plain-text fields stay as sent', async () => {
    const dirty =
      '<p onclick="steal()">Hi <b>there</b> <a href="javascript:alert(1)">x</a> <a href="https://ok.example">ok</a>' +
      '<img src="data:image/png;base64,AAAA" onerror="x()"><script>alert(1)</script><style>p{}</style></p>'
    const clean = '<p>Hi <b>there</b> <a>x</a> <a href="https://ok.example">ok</a><img /></p>'
    await data(await call(ctx, 'POST', `${base()}/biography`, { biography: dirty }))
    assert.equal(((await profile()).biography as Element[])[0]?.biography, clean)
    await data(
      await call(ctx, 'POST', `${base()}/sampletalk`, { title: 'Talk <b>', description: '<i>as sent</i>' }),
    )
    assert.deepEqual(
      ((await profile()).sampletalk as Element[]).map(({ title, description }) => ({ title, description })),
      [{ title: 'Talk <b>', description: '<i>as sent</i>' }],
    )
    const post = await data(
      await call(ctx, 'POST', `/v2/spotlight/${ctx.tenant.orgId}`, { title: 'P', html: dirty }),
    )
    const read = await data(await call(ctx, 'GET', `/v2/spotlight/${ctx.tenant.orgId}/${post.id}`))
    assert.equal((read.spotlight as Element[])[0]?.html, clean)
    const question = await data(
      await call(ctx, 'POST', `/v2/qanda/${ctx.tenant.orgId}`, { question: 'Q?', details: dirty }),
    )
    await data(
      await call(ctx, 'POST', `/v2/qanda/${ctx.tenant.orgId}/${question.id}/answer`, {
        username,
        answer: dirty,
      }),
    )
    const q = (await data(await call(ctx, 'GET', `/v2/qanda/${ctx.tenant.orgId}/${question.id}`)))
      .question as Element[]
    assert.equal(q[0]?.details, clean)
    assert.equal((q[0]?.answers as Element[] | undefined)?.[0]?.answer, clean)
    const imported = await importDocument(ctx, ctx.tenant.orgId, {
      spotlights: [{ key: 'dirty', title: 'Imported', html: dirty }],
    })
    const importedRead = await data(
      await call(ctx, 'GET', `/v2/spotlight/${ctx.tenant.orgId}/${imported.ids.spotlights[0]}`),
    )
    assert.equal((importedRead.spotlight as Element[])[0]?.html, clean)
  })

  test('posts round trip: tags, tagged experts, seo; PUT replaces the lists; DELETE removes it from profiles', async () => {
    const url = `/v2/spotlight/${ctx.tenant.orgId}`
    const unknown = detailsOf(
      await call(ctx, 'POST', url, { title: 'T', html: '<p>x</p>', tagged: [username, 'nobody-here'] }),
    )
    assert.match(unknown['tagged[1]'] ?? '', /nobody-here/)
    const created = await data(
      await call(ctx, 'POST', url, {
        title: 'Heat waves',
        html: '<p>Longer and hotter.</p>',
        featured_image: 'https://img.example/heat.jpg',
        published: 1,
        published_date: 1700000000,
        tags: ['Climate', 'Heat'],
        tagged: [username],
        seo: { title: 'Heat waves explained' },
      }),
    )
    let read = await data(await call(ctx, 'GET', `${url}/${created.id}`))
    const [post] = read.spotlight as Element[]
    assert.equal(post?.title, 'Heat waves')
    assert.equal(post?.published_date, 1700000000)
    assert.deepEqual(
      ((post?.tagged_experts ?? []) as Element[]).map((expert) => expert.username),
      [username],
    )
    assert.equal((read.seo as Element[])[0]?.title, 'Heat waves explained')
    assert.ok(((await profile()).spotlight as Element[]).some((element) => element.id === created.id))
    assert.deepEqual(
      await data(await call(ctx, 'PUT', `${url}/${created.id}`, { tags: ['Heat'], tagged: [] })),
      {
        id: created.id,
        updated: true,
      },
    )
    read = await data(await call(ctx, 'GET', `${url}/${created.id}`))
    assert.deepEqual(
      (read.tags as Element[]).map((tag) => tag.tag),
      ['Heat'],
    )
    assert.deepEqual((read.spotlight as Element[])[0]?.tagged_experts, [])
    assert.ok(!((await profile()).spotlight as Element[]).some((element) => element.id === created.id))
    assert.deepEqual(await data(await call(ctx, 'PUT', `${url}/${created.id}`, { title: 'Heat waves' })), {
      id: created.id,
      updated: false,
    })
    assert.deepEqual(await data(await call(ctx, 'DELETE', `${url}/${created.id}`)), {
      id: created.id,
      deleted: true,
    })
    expectError(await call(ctx, 'GET', `${url}/${created.id}`), 404, 'not_found')
    expectError(await call(ctx, 'DELETE', `${url}/${created.id}`), 404, 'not_found')
  })

  test('Q&A round trip: question, answers by experts, the qanda section of the answering expert', async () => {
    const url = `/v2/qanda/${ctx.tenant.orgId}`
    const question = await data(
      await call(ctx, 'POST', url, { question: 'Why is it raining more?', published: 1, tags: ['Rain'] }),
    )
    const answer = await data(
      await call(ctx, 'POST', `${url}/${question.id}/answer`, { username, answer: '<p>Warmer air.</p>' }),
    )
    assert.ok(
      detailsOf(
        await call(ctx, 'POST', `${url}/${question.id}/answer`, { username: 'nobody-here', answer: 'x' }),
      ).username,
    )
    let read = (await data(await call(ctx, 'GET', `${url}/${question.id}`))).question as Element[]
    assert.deepEqual(
      ((read[0]?.answers as Element[] | undefined) ?? []).map((a) => [a.id, a.username, a.answer]),
      [[answer.id, username, '<p>Warmer air.</p>']],
    )
    assert.ok(((await profile()).qanda as Element[]).some((element) => element.id === question.id))
    assert.deepEqual(
      await data(
        await call(ctx, 'PUT', `${url}/${question.id}/answer/${answer.id}`, {
          answer: '<p>Warmer air holds more water.</p>',
        }),
      ),
      { id: answer.id, updated: true },
    )
    await data(await call(ctx, 'PUT', `${url}/${question.id}`, { details: 'Asked by a reader.' }))
    read = (await data(await call(ctx, 'GET', `${url}/${question.id}`))).question as Element[]
    assert.equal(read[0]?.details, 'Asked by a reader.')
    assert.equal(
      ((read[0]?.answers as Element[] | undefined) ?? [])[0]?.answer,
      '<p>Warmer air holds more water.</p>',
    )
    expectError(await call(ctx, 'DELETE', `${url}/${question.id}/answer/999999`), 404, 'not_found')
    await data(await call(ctx, 'DELETE', `${url}/${question.id}/answer/${answer.id}`))
    assert.ok(!((await profile()).qanda as Element[]).some((element) => element.id === question.id))
    await data(await call(ctx, 'DELETE', `${url}/${question.id}`))
    expectError(await call(ctx, 'GET', `${url}/${question.id}`), 404, 'not_found')
  })

  test('the organization profile: GET, partial PUT, shown in every expert profile', async () => {
    const url = `/v2/organization/${ctx.tenant.orgId}`
    const before = await data(await call(ctx, 'GET', url))
    assert.equal(before.name, 'Main University')
    assert.deepEqual(
      await data(
        await call(ctx, 'PUT', url, {
          description: 'A university.',
          website: 'https://uni.example',
          location_country: 'ca',
          location_state: 'CA-ON',
          twitter: 'https://twitter.com/uni',
        }),
      ),
      { id: ctx.tenant.orgId, updated: true },
    )
    const after = await data(await call(ctx, 'GET', url))
    assert.equal(after.location_country, 'CA')
    assert.equal(after.location_state, 'ON')
    const shown = await profile()
    assert.equal((shown.corporationprofile as Element[])[0]?.description, 'A university.')
    assert.equal((shown.corporationsocial as Element[])[0]?.twitter, 'https://twitter.com/uni')
    assert.deepEqual(await data(await call(ctx, 'PUT', url, { website: 'https://uni.example' })), {
      id: ctx.tenant.orgId,
      updated: false,
    })
    await data(await call(ctx, 'PUT', url, 'twitter='))
    assert.deepEqual((await profile()).corporationsocial, [])
    assert.ok(detailsOf(await call(ctx, 'PUT', url, { location_state: 'XX' })).location_state)
    expectError(
      await call(ctx, 'PUT', `/v2/organization/${ctx.other.orgId}`, { description: 'x' }),
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
    const etag = async () => (await call(ctx, 'GET', base())).headers.etag
    const writes: [InjectOptions['method'], string, unknown][] = [
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
      await data(await call(ctx, method, url, payload))
      assert.notEqual(await etag(), before, `${method} ${url}`)
      assert.ok(Number(await updatedAt()) > beforeTime, `${method} ${url} bumps updated_at`)
    }
  })

  test('deleting an expert changes the posts that tagged it and the questions it answered', async () => {
    const gone = await createExpert(ctx, ctx.tenant)
    const post = await data(
      await call(ctx, 'POST', `/v2/spotlight/${ctx.tenant.orgId}`, { title: 'T', html: 'x', tagged: [gone] }),
    )
    const question = await data(await call(ctx, 'POST', `/v2/qanda/${ctx.tenant.orgId}`, { question: 'Q?' }))
    await data(
      await call(ctx, 'POST', `/v2/qanda/${ctx.tenant.orgId}/${question.id}/answer`, {
        username: gone,
        answer: 'A',
      }),
    )
    const modified = async (kind: string, id: unknown) =>
      (
        (await data(await call(ctx, 'GET', `/v2/${kind}/${ctx.tenant.orgId}/${id}`)))[
          kind === 'spotlight' ? 'spotlight' : 'question'
        ] as Element[]
      )[0]
    const before = [await modified('spotlight', post.id), await modified('qanda', question.id)]
    ctx.clock.advance(5000)
    await data(await call(ctx, 'DELETE', `/v2/organization/${ctx.tenant.orgId}/expert/${gone}`))
    const after = [await modified('spotlight', post.id), await modified('qanda', question.id)]
    assert.deepEqual(after[0]?.tagged_experts, [])
    assert.deepEqual(after[1]?.answers, [])
    assert.ok(Number(after[0]?.modified) > Number(before[0]?.modified))
    assert.ok(Number(after[1]?.modified) > Number(before[1]?.modified))
  })

  test('a write through one app instance is seen at once by another on the same database', async () => {
    const database = openDatabase(ctx.testDatabase.url)
    const second = await buildApp({
      config: { ...ctx.config, logLevel: 'silent' },
      database,
      now: ctx.clock.now,
    })
    try {
      const read = async (app: typeof second) =>
        (await app.inject({ method: 'GET', url: `${base()}/tagline`, headers: ctx.tenant.auth })).json().data
      assert.deepEqual(await read(second), await read(ctx.app))
      for (const tagline of ['First', 'Second']) {
        const response = await second.inject({
          method: 'POST',
          url: `${base()}/tagline`,
          headers: ctx.tenant.auth,
          payload: { tagline },
        })
        assert.equal(response.statusCode, 200, response.body)
        assert.equal((await read(ctx.app)).tagline[0].tagline, tagline)
      }
    } finally {
      await second.close()
      await database.close()
    }
  })

  test('import and the API give byte-identical profile reads for the same content', async () => {
    const tenant = await ctx.addTenant('Identical')
    const [source] = exampleFile().experts
    const {
      sections,
      key: _key,
      is_published,
      is_private,
      ...account
    } = source as unknown as Element & {
      sections: Record<string, Element | Element[]>
    }
    const { avatar: _avatar, ...writable } = sections
    await importDocument(ctx, tenant.orgId, { experts: [{ ...source, key: 'imported', sections: writable }] })
    const viaApi = await createExpert(ctx, tenant, { ...account, email: 'api.copy@northlake.example' })
    const expertUrl = `/v2/organization/${tenant.orgId}/expert/${viaApi}`
    await data(await call(ctx, 'PUT', expertUrl, { is_published, is_private }, tenant))
    for (const section of STORED_SECTIONS) {
      const value = writable[section]
      if (value === undefined) continue
      for (const element of Array.isArray(value) ? value : [value]) {
        const { key: _elementKey, ...body } = element as Element
        const payload = NAME_SECTIONS.has(section) ? { name: body.name ?? body.tag } : body
        await data(await call(ctx, 'POST', `${expertUrl}/${section}`, payload, tenant))
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
      const read = await data(
        await call(ctx, 'GET', `/v2/organization/${tenant.orgId}/expert/${name}`, undefined, tenant),
      )
      const account = (read.account as Element[])[0] as Element
      account.username = 'someone'
      account.email = 'someone@example.org'
      return JSON.stringify(read, (field, value) => (field === 'id' ? 0 : value))
    }
    assert.equal(await normalized(viaApi), await normalized(importedName))
  })

  test('migration 0005 sanitizes HTML stored before sanitizing existed', async () => {
    const { db } = ctx.testDatabase.database
    const dirty = '<p onmouseover="x()">Kept <em>markup</em><script>alert(1)</script></p>'
    const clean = '<p>Kept <em>markup</em></p>'
    const post = await data(
      await call(ctx, 'POST', `/v2/spotlight/${ctx.tenant.orgId}`, { title: 'Old', html: 'x' }),
    )
    const bio = await data(await call(ctx, 'POST', `${base()}/biography`, { biography: 'x' }))
    await db.updateTable('spotlights').set({ html: dirty }).where('id', '=', Number(post.id)).execute()
    await db
      .updateTable('profile_items')
      .set({ data: JSON.stringify({ biography: dirty }) })
      .where('id', '=', Number(bio.id))
      .execute()
    await sanitizeStoredHtml(db as never)
    const read = await data(await call(ctx, 'GET', `/v2/spotlight/${ctx.tenant.orgId}/${post.id}`))
    assert.equal((read.spotlight as Element[])[0]?.html, clean)
    assert.equal(((await profile()).biography as Element[])[0]?.biography, clean)
  })
})
