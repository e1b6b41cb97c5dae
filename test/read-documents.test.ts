import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, beforeEach, test } from 'node:test'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import { readQuestion, readSpotlight } from '../src/content/read.js'
import { QuestionRead, SpotlightRead } from '../src/content/schemas.js'
import type { Database } from '../src/db/database.js'
import { currentDocument } from '../src/derived/current-document.js'
import { findExpertDocument } from '../src/derived/read-documents.js'
import { ok, Success } from '../src/http/envelope.js'
import { Profile, readProfile } from '../src/profiles/read.js'
import { NAME_SECTIONS, SINGLE_SECTIONS, STORED_SECTIONS } from '../src/profiles/section-fields.js'
import { api, expectOk } from './helpers/api.js'
import { present } from './helpers/checked.js'
import { createRainContent, exampleFile, importDocument } from './helpers/content.js'
import {
  describeEachDialect,
  expertBody,
  openSecondApp,
  type SecondApp,
  type TestContext,
} from './helpers/harness.js'

type Element = Record<string, unknown>

/**
 * The reads as they were before stored documents: the builders run on the database, serialized by
 * Fastify's serializer for the same response schemas. Every read must equal this, byte for byte.
 */
function referenceServer(database: Database): FastifyInstance {
  const { db } = database
  const app = Fastify()
  type Params = { corporation: number; username: string; id: number }
  app.get<{ Params: Params }>(
    '/v2/organization/:corporation/expert/:username',
    { schema: { response: { 200: Success(Profile) } } },
    async (request) =>
      ok(await readProfile(db, Number(request.params.corporation), request.params.username, 'expert', 'all')),
  )
  app.get<{ Params: Params }>(
    '/v2/spotlight/:corporation/:id',
    { schema: { response: { 200: Success(SpotlightRead) } } },
    async (request) =>
      ok(await readSpotlight(db, Number(request.params.corporation), Number(request.params.id), 'all')),
  )
  app.get<{ Params: Params }>(
    '/v2/qanda/:corporation/:id',
    { schema: { response: { 200: Success(QuestionRead) } } },
    async (request) =>
      ok(await readQuestion(db, Number(request.params.corporation), Number(request.params.id), 'all')),
  )
  return app
}

const sha1 = (body: string) => `"${createHash('sha1').update(body).digest('base64url')}"`

describeEachDialect('stored read documents', (ctx: TestContext) => {
  let secondApp: SecondApp
  let second: FastifyInstance
  let reference: FastifyInstance
  /** The reads every write is checked against: profiles, posts and questions in play. */
  const watched = new Set<string>()
  let writes = 0
  let expertX: string
  let expertY: string
  let postId: number
  let questionId: number
  const org = () => ctx.tenant.orgId
  const profileUrl = (username: string) => `/v2/organization/${org()}/expert/${username}`
  const postUrl = (id: number) => `/v2/spotlight/${org()}/${id}`
  const questionUrl = (id: number) => `/v2/qanda/${org()}/${id}`

  before(async () => {
    secondApp = await openSecondApp(ctx)
    second = secondApp.app
    reference = referenceServer(ctx.testDatabase.database)
  })
  after(async () => {
    await secondApp?.close()
    await reference?.close()
  })

  /** Writes alternate between the two app instances. */
  async function write(method: InjectOptions['method'], url: string, payload?: object) {
    const app = writes++ % 2 === 0 ? ctx.app : second
    ctx.clock.advance(1000)
    return expectOk(await api(app, ctx.tenant).send<{ id?: number }>(method, url, payload))
  }

  /** Every watched read, through both instances, equals the read built from scratch. */
  async function assertFresh(label: string) {
    for (const url of watched) {
      const expected = await reference.inject({ method: 'GET', url })
      for (const [name, app] of [
        ['first', ctx.app],
        ['second', second],
      ] as const) {
        const response = await app.inject({ method: 'GET', url, headers: ctx.tenant.auth })
        const where = `${url} through the ${name} instance after ${label}`
        if (expected.statusCode !== 200) {
          assert.equal(response.statusCode, 404, where)
          continue
        }
        assert.equal(response.statusCode, 200, where)
        assert.equal(response.body, expected.body, where)
        assert.equal(response.headers.etag, sha1(expected.body), where)
        assert.equal(response.headers['content-type'], 'application/json; charset=utf-8', where)
        assert.equal(response.headers['cache-control'], 'private, no-cache', where)
      }
    }
  }

  /** Every test starts from its own two experts, a post tagging both and a question one of them answered. */
  beforeEach(async () => {
    watched.clear()
    ;({ expertX, expertY, postId, questionId } = await createRainContent(ctx, write, {
      lastname: 'Doc',
      answeredBy: 'x',
    }))
    for (const url of [profileUrl(expertX), profileUrl(expertY), postUrl(postId), questionUrl(questionId)])
      watched.add(url)
  })

  test('the documents of a fresh setup equal the reads built from scratch', async () => {
    await assertFresh('setup')
  })

  test('the first read stores the document; the next is served from it with the same bytes and ETag', async () => {
    const { db } = ctx.testDatabase.database
    const first = await ctx.inject({ method: 'GET', url: profileUrl(expertX), headers: ctx.tenant.auth })
    const stored = await db
      .selectFrom('read_documents')
      .innerJoin('experts', 'experts.id', 'read_documents.record_id')
      .select([
        'read_documents.etag',
        'read_documents.body',
        'read_documents.record_version',
        'experts.doc_version',
      ])
      .where('read_documents.kind', '=', 'expert')
      .where('experts.username', '=', expertX)
      .executeTakeFirstOrThrow()
    assert.equal(Buffer.from(stored.body).toString('utf8'), first.body)
    assert.equal(stored.etag, first.headers.etag)
    assert.equal(Number(stored.record_version), Number(stored.doc_version))
    const again = await second.inject({ method: 'GET', url: profileUrl(expertX), headers: ctx.tenant.auth })
    assert.equal(again.body, first.body)
    assert.equal(again.headers.etag, first.headers.etag)
  })

  test('ETag, 304 and HEAD behave as before on stored documents', async () => {
    for (const url of watched) {
      const fresh = await ctx.inject({ method: 'GET', url, headers: ctx.tenant.auth })
      const etag = String(fresh.headers.etag)
      for (const app of [ctx.app, second]) {
        const notModified = await app.inject({
          method: 'GET',
          url,
          headers: { ...ctx.tenant.auth, 'if-none-match': `W/${etag}` },
        })
        assert.equal(notModified.statusCode, 304, url)
        assert.equal(notModified.body, '')
        assert.equal(notModified.headers.etag, etag)
        const head = await app.inject({ method: 'HEAD', url, headers: ctx.tenant.auth })
        assert.equal(head.statusCode, 200)
        assert.equal(head.body, '')
        assert.equal(head.headers.etag, etag)
        assert.equal(Number(head.headers['content-length']), Buffer.byteLength(fresh.body))
        const other = await app.inject({
          method: 'GET',
          url,
          headers: { ...ctx.tenant.auth, 'if-none-match': '"something-else"' },
        })
        assert.equal(other.statusCode, 200)
        assert.equal(other.body, fresh.body)
      }
    }
  })

  test('every section write, of every kind, is in the next read through either instance', async () => {
    const [full] = exampleFile().experts
    assert.ok(full)
    const elementOf = (value: unknown): Element => {
      const element = Array.isArray(value) ? value[0] : value
      if (!isRecord(element)) throw new Error('a section element is not an object')
      return element
    }
    const base = profileUrl(expertX)
    for (const section of STORED_SECTIONS) {
      const value = full.sections[section]
      if (value === undefined) continue
      const ids: number[] = []
      for (const element of [value].flat()) {
        const { key: _key, ...body } = elementOf(element)
        const payload = NAME_SECTIONS.has(section) ? { name: body.name ?? body.tag } : body
        ids.push(Number((await write('POST', `${base}/${section}`, payload)).id))
        await assertFresh(`POST ${section}`)
      }
      if (SINGLE_SECTIONS.has(section)) {
        await write('DELETE', `${base}/${section}`)
        await assertFresh(`DELETE ${section}`)
        const { key: _key, ...body } = elementOf(value)
        await write('POST', `${base}/${section}`, body)
      } else {
        const [first] = ids
        if (!NAME_SECTIONS.has(section)) {
          const { key: _key, ...body } = elementOf(value)
          await write('PUT', `${base}/${section}/${first}`, body)
          await assertFresh(`PUT ${section}`)
        }
        await write('DELETE', `${base}/${section}/${first}`)
      }
      await assertFresh(`DELETE ${section} element`)
    }
  })

  test('an expert update shows in its profile, the post tagging it and the question it answered', async () => {
    await write('PUT', profileUrl(expertX), { firstname: 'Xenia', job_title: 'Rainmaker' })
    await assertFresh('expert update')
    await write('PUT', profileUrl(expertY), { is_published: 1 })
    await assertFresh('expert flags update')
  })

  test('post and question writes that tag or answer show in every read they touch', async () => {
    await write('PUT', postUrl(postId), { title: 'More rain', tagged: [expertY] })
    await assertFresh('post retagged')
    await write('PUT', postUrl(postId), { tagged: [expertX, expertY], tags: ['Weather', 'Water'] })
    await assertFresh('post tags')
    await write('PUT', postUrl(postId), { published: 0 })
    await assertFresh('post unpublished')
    await write('PUT', postUrl(postId), { published: 1, published_date: 1700000000 })
    await assertFresh('post republished')
    await write('PUT', questionUrl(questionId), { question: 'Why so much rain?', details: '<p>Asked.</p>' })
    await assertFresh('question update')
    const answer = Number(
      (await write('POST', `${questionUrl(questionId)}/answer`, { username: expertY, answer: 'Wind.' })).id,
    )
    await assertFresh('answer added')
    await write('PUT', `${questionUrl(questionId)}/answer/${answer}`, { username: expertX })
    await assertFresh('answer moved to another expert')
    await write('PUT', `${questionUrl(questionId)}/answer/${answer}`, { answer: 'Warm wind.' })
    await assertFresh('answer changed')
    await write('DELETE', `${questionUrl(questionId)}/answer/${answer}`)
    await assertFresh('answer removed')
  })

  test('an organization profile change shows in every profile while no expert row is rewritten for it', async () => {
    const { db } = ctx.testDatabase.database
    const versions = async () =>
      (
        await db
          .selectFrom('experts')
          .select('doc_version')
          .where('org_id', '=', org())
          .orderBy('id')
          .execute()
      ).map((row) => Number(row.doc_version))
    const before = await versions()
    await write('PUT', `/v2/organization/${org()}`, {
      description: 'Rain research',
      twitter: 'https://x.example/r',
    })
    await assertFresh('organization profile')
    await write('PUT', `/v2/organization/${org()}`, { name: 'Rain University', twitter: null })
    await assertFresh('organization rename')
    assert.deepEqual(await versions(), before)
  })

  test('an import changing an expert, a post and a question is in the next reads', async () => {
    const { db } = ctx.testDatabase.database
    const x = await db
      .selectFrom('experts')
      .select(['email'])
      .where('username', '=', expertX)
      .executeTakeFirstOrThrow()
    ctx.clock.advance(1000)
    const result = await importDocument(ctx, org(), {
      organization: { description: 'Imported description' },
      experts: [
        {
          key: 'x',
          ...expertBody({ firstname: 'Xavia', lastname: 'Doc', email: x.email }),
          sections: { tagline: { tagline: 'Imported tagline' } },
        },
      ],
      spotlights: [
        { key: 'imported-post', title: 'Imported', html: '<p>i</p>', published: 1, experts: ['x', expertY] },
      ],
      questions: [
        {
          key: 'imported-question',
          question: 'Imported?',
          published: 1,
          answers: [{ key: 'a', expert: expertY, answer: 'Yes.' }],
        },
      ],
    })
    watched.add(postUrl(present(result.ids.spotlights[0])))
    watched.add(questionUrl(present(result.ids.questions[0])))
    await assertFresh('import')
    ctx.clock.advance(1000)
    await importDocument(ctx, org(), {
      experts: [{ key: 'x', ...expertBody({ firstname: 'Xaviera', lastname: 'Doc', email: x.email }) }],
    })
    await assertFresh('re-import renaming an expert')
  })

  test('deleting an expert, a post and a question: 404 for them, the reads showing them change', async () => {
    await write('DELETE', profileUrl(expertY))
    await assertFresh('expert delete')
    await write('DELETE', postUrl(postId))
    await assertFresh('post delete')
    await write('DELETE', questionUrl(questionId))
    await assertFresh('question delete')
    const { db } = ctx.testDatabase.database
    const left = await db
      .selectFrom('read_documents')
      .select('kind')
      .where((eb) =>
        eb.or([
          eb.and([eb('kind', '=', 'spotlight'), eb('record_id', '=', postId)]),
          eb.and([eb('kind', '=', 'question'), eb('record_id', '=', questionId)]),
        ]),
      )
      .execute()
    assert.deepEqual(left, [])
  })

  test('a reader rebuilding while a writer writes never leaves an old document to be served', async () => {
    const { db } = ctx.testDatabase.database
    const url = profileUrl(expertX)
    const body = (data: unknown) => JSON.stringify(ok(data))
    /** The lookup a read starts with, as if no document were stored (the reader rebuilds). */
    const lookup = async () => {
      const [row] = await findExpertDocument(db, org(), expertX, 'expert', 'all')
      assert.ok(row)
      return { ...row, body: null, etag: null }
    }
    // The writer commits after the reader read the versions, before it reads the data.
    let found = await lookup()
    await write('PUT', url, { job_title: 'Between lookup and build' })
    await currentDocument(db, 'expert', org(), 'all', found, async () =>
      body(await readProfile(db, org(), expertX, 'expert', 'all')),
    )
    await assertFresh('a write between lookup and build')
    // The writer commits after the reader built from old data, before it stores.
    found = await lookup()
    await currentDocument(db, 'expert', org(), 'all', found, async () => {
      const old = body(await readProfile(db, org(), expertX, 'expert', 'all'))
      await write('PUT', url, { job_title: 'Between build and store' })
      return old
    })
    await assertFresh('a write between build and store')
    // A slow reader of an older version stores after a newer document was stored: it is kept.
    found = await lookup()
    const slow = body(await readProfile(db, org(), expertX, 'expert', 'all'))
    await write('PUT', url, { job_title: 'Newest' })
    const newest = await second.inject({ method: 'GET', url, headers: ctx.tenant.auth })
    await currentDocument(db, 'expert', org(), 'all', found, async () => slow)
    const stored = await db
      .selectFrom('read_documents')
      .select('etag')
      .where('kind', '=', 'expert')
      .where('record_id', '=', found.id)
      .executeTakeFirstOrThrow()
    assert.equal(stored.etag, newest.headers.etag)
    await assertFresh('a slow reader storing an older document')
  })

  test('concurrent reads and writes through two instances end with the newest document', async () => {
    const reads = [profileUrl(expertX), ...[...watched].filter((url) => !url.includes('/expert/'))]
    for (let round = 0; round < 15; round++) {
      const writer = round % 2 === 0 ? second : ctx.app
      const reader = round % 2 === 0 ? ctx.app : second
      ctx.clock.advance(1000)
      const readsDone = Promise.all(
        [...reads, ...reads].map((url) => reader.inject({ method: 'GET', url, headers: ctx.tenant.auth })),
      )
      const written = writer.inject({
        method: 'PUT',
        url: profileUrl(expertX),
        headers: ctx.tenant.auth,
        payload: { lastname: `Doc${round}` },
      })
      const [responses, response] = await Promise.all([readsDone, written])
      assert.equal(response.statusCode, 200, response.body)
      for (const read of responses) assert.ok([200, 404].includes(read.statusCode))
      await assertFresh(`concurrent round ${round}`)
    }
  })
})

const isRecord = (value: unknown): value is Element =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
