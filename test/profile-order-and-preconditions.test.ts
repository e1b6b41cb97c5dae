import assert from 'node:assert/strict'
import { after, before, beforeEach, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { createClient } from '../src/auth/clients.js'
import { type Database, openDatabase } from '../src/db/database.js'
import { discardingStream, record, records } from './helpers/checked.js'
import { createExpert, describeEachDialect, envelope, requestToken, type Tenant } from './helpers/harness.js'
import { testImage } from './helpers/images.js'
import { listeningPort } from './helpers/net.js'
import { personToken } from './helpers/people.js'

type Response = Awaited<ReturnType<FastifyInstance['inject']>>

/**
 * Reordering a list section (`PUT .../:section/order`) and `If-Match` on every profile write: the
 * order is stored and read back by another app instance, and a write based on a stale read is
 * refused with 412 without writing anything, also when two writers race with the same ETag.
 */
describeEachDialect('reordering profile sections and If-Match on profile writes', (ctx) => {
  let secondDatabase: Database
  let second: FastifyInstance
  let username: string

  before(async () => {
    secondDatabase = openDatabase(ctx.testDatabase.url)
    second = await buildApp({
      config: ctx.config,
      database: secondDatabase,
      now: ctx.clock.now,
      logStream: discardingStream(),
    })
    await second.listen({ host: '127.0.0.1', port: 0 })
  })
  after(async () => {
    await second?.close()
    await secondDatabase?.close()
  })
  beforeEach(async () => {
    username = await createExpert(ctx, ctx.tenant)
  })

  const base = (name = username, tenant: Tenant = ctx.tenant) =>
    `/v2/organization/${tenant.orgId}/expert/${name}`
  const call = (
    method: InjectOptions['method'],
    url: string,
    payload?: InjectOptions['payload'],
    headers: Record<string, string> = {},
    auth: Record<string, string> = ctx.tenant.auth,
  ) =>
    ctx.inject({
      method,
      url,
      headers: { ...auth, ...headers },
      ...(payload === undefined ? {} : { payload }),
    })
  const data = (response: Response) => {
    assert.equal(response.statusCode, 200, response.body)
    return record(envelope(response).data, 'data')
  }
  const expectError = (response: Response, status: number, code: string) => {
    assert.equal(response.statusCode, status, response.body)
    assert.equal(envelope(response).error?.code, code)
  }
  const addArticles = async (...titles: string[]) => {
    const ids: number[] = []
    for (const title of titles) ids.push(Number(data(await call('POST', `${base()}/article`, { title })).id))
    return ids
  }
  const titles = async (app: FastifyInstance = ctx.app) => {
    const response = await app.inject({ method: 'GET', url: base(), headers: ctx.tenant.auth })
    return records(data(response).article, 'article').map((element) => element.title)
  }
  const etag = async () => {
    const response = await call('GET', base())
    assert.equal(response.statusCode, 200)
    return String(response.headers.etag)
  }
  const auditEntries = async (recordId: string) =>
    (
      await ctx.testDatabase.database.db
        .selectFrom('audit_log')
        .select(['action', 'record_kind'])
        .where('org_id', '=', ctx.tenant.orgId)
        .where('record_id', '=', recordId)
        .execute()
    ).map((row) => ({ ...row }))

  test('a new order is stored, read back by another app instance, audited, and a repeat changes nothing', async () => {
    const [rain, heat, wind] = await addArticles('Rain', 'Heat', 'Wind')
    assert.deepEqual(await titles(second), ['Rain', 'Heat', 'Wind'])
    const before = await etag()
    ctx.clock.advance(60_000)
    const ordered = data(await call('PUT', `${base()}/article/order`, { ids: [wind, rain, heat] }))
    assert.deepEqual(ordered, { section: 'article', ids: [wind, rain, heat], updated: true })
    assert.deepEqual(await titles(), ['Wind', 'Rain', 'Heat'])
    assert.deepEqual(await titles(second), ['Wind', 'Rain', 'Heat'])
    assert.notEqual(await etag(), before)
    const list = records(data(await call('GET', `${base()}/article`)).article, 'article')
    assert.deepEqual(
      list.map((element) => element.id),
      [wind, rain, heat],
    )
    assert.deepEqual(await auditEntries(`${username}/article`), [
      { action: 'PUT /v2/organization/:corporation/expert/:username/article/order', record_kind: 'section' },
    ])

    const unchanged = await etag()
    const again = data(await call('PUT', `${base()}/article/order`, { ids: [wind, rain, heat] }))
    assert.equal(again.updated, false)
    assert.equal(await etag(), unchanged)
    assert.equal((await auditEntries(`${username}/article`)).length, 1)
  })

  test('an order that is not exactly the section’s ids is 409 naming them, a malformed one 400; nothing moves', async () => {
    const [rain, heat, wind] = await addArticles('Rain', 'Heat', 'Wind')
    const url = `${base()}/article/order`
    const lacking = await call('PUT', url, { ids: [wind, rain] })
    expectError(lacking, 409, 'conflict')
    assert.deepEqual(envelope(lacking).error?.details, [
      { field: 'ids', message: `lacks ${heat} of the section` },
    ])
    const foreign = await call('PUT', url, { ids: [wind, rain, heat, 999999] })
    expectError(foreign, 409, 'conflict')
    assert.match(envelope(foreign).error?.message ?? '', /999999/)
    const [other] = await (async () => {
      const otherExpert = await createExpert(ctx, ctx.tenant)
      return [Number(data(await call('POST', `${base(otherExpert)}/article`, { title: 'Elsewhere' })).id)]
    })()
    const swapped = await call('PUT', url, { ids: [wind, rain, other] })
    expectError(swapped, 409, 'conflict')
    assert.equal(envelope(swapped).error?.details?.length, 2)

    expectError(await call('PUT', url, { ids: [wind, wind, rain, heat] }), 400, 'validation_failed')
    expectError(await call('PUT', url, { ids: 'wind' }), 400, 'validation_failed')
    expectError(await call('PUT', url, { ids: [wind, rain, heat], extra: 1 }), 400, 'validation_failed')
    expectError(await call('PUT', url, {}), 400, 'validation_failed')
    expectError(await call('PUT', url, { ids: [0] }), 400, 'validation_failed')
    assert.deepEqual(await titles(), ['Rain', 'Heat', 'Wind'])
  })

  test('an empty section takes the empty order; name sets and single-element sections have none', async () => {
    assert.deepEqual(data(await call('PUT', `${base()}/article/order`, { ids: [] })), {
      section: 'article',
      ids: [],
      updated: false,
    })
    const names = await call('PUT', `${base()}/topic/order`, { ids: [] })
    expectError(names, 405, 'method_not_allowed')
    assert.match(String(names.headers.allow), /DELETE/)
    expectError(await call('PUT', `${base()}/biography/order`, { ids: [] }), 404, 'not_found')
  })

  test('another organization’s expert is not found; an expert person reorders its own expert only', async () => {
    const theirs = await createExpert(ctx, ctx.other, { firstname: 'Only', lastname: 'Elsewhere' })
    expectError(await call('PUT', `${base(theirs)}/article/order`, { ids: [] }), 404, 'not_found')
    expectError(await call('PUT', `${base(theirs, ctx.other)}/article/order`, { ids: [] }), 403, 'forbidden')

    const [rain, heat] = await addArticles('Rain', 'Heat')
    const person = await personToken(ctx, ctx.tenant.orgId, 'expert', { expert: username })
    const own = { authorization: `Bearer ${person.token}` }
    const ordered = await call('PUT', `${base()}/article/order`, { ids: [heat, rain] }, {}, own)
    assert.equal(data(ordered).updated, true)
    const someoneElse = await createExpert(ctx, ctx.tenant)
    expectError(
      await call('PUT', `${base(someoneElse)}/article/order`, { ids: [] }, {}, own),
      403,
      'forbidden',
    )
  })

  test('If-Match with the current ETag writes; a stale one is 412 and writes nothing; * writes', async () => {
    const [rain, heat] = await addArticles('Rain', 'Heat')
    const read = await etag()
    const changed = await call('PUT', `${base()}/article/${rain}`, { title: 'Drizzle' }, { 'if-match': read })
    assert.equal(data(changed).updated, true)

    for (const [method, url, payload] of [
      ['PUT', `${base()}/article/${rain}`, { title: 'Storm' }],
      ['POST', `${base()}/article`, { title: 'Fog' }],
      ['DELETE', `${base()}/article/${heat}`, undefined],
      ['PUT', `${base()}/article/order`, { ids: [heat, rain] }],
      ['POST', `${base()}/tagline`, { tagline: 'Explains rain' }],
      ['POST', `${base()}/topic`, { name: 'Rain' }],
      ['PUT', base(), { job_title: 'Professor' }],
    ] as const) {
      const refused = await call(method, url, payload, { 'if-match': read })
      expectError(refused, 412, 'precondition_failed')
      assert.match(envelope(refused).error?.message ?? '', /changed by someone else/)
    }
    const profile = data(await call('GET', base()))
    assert.deepEqual(
      records(profile.article, 'article').map((element) => element.title),
      ['Drizzle', 'Heat'],
    )
    assert.deepEqual(profile.tagline, [])
    assert.deepEqual(profile.topic, [])
    assert.notEqual(records(profile.account, 'account')[0]?.job_title, 'Professor')

    const any = await call('PUT', `${base()}/article/order`, { ids: [heat, rain] }, { 'if-match': '*' })
    assert.equal(data(any).updated, true)
    const weak = await call('PUT', base(), { job_title: 'Professor' }, { 'if-match': `W/${await etag()}` })
    assert.equal(data(weak).updated, true)
    const among = await call(
      'POST',
      `${base()}/topic`,
      { name: 'Rain' },
      { 'if-match': `"x", ${await etag()}` },
    )
    assert.equal(typeof data(among).id, 'number')
    expectError(await call('PUT', base(), { job_title: 'A' }, { 'if-match': 'abc' }), 400, 'invalid_request')
  })

  test('If-Match is compared with the read as this token gets it, also when no document is stored', async () => {
    const read = await etag()
    await ctx.testDatabase.database.db.deleteFrom('read_documents').execute()
    const written = await call('POST', `${base()}/tagline`, { tagline: 'Rebuilt' }, { 'if-match': read })
    assert.equal(data(written).updated, true)

    // A token without `read` (a site's) reads the public document: an unpublished profile has none.
    const { db } = ctx.testDatabase.database
    const site = await createClient(db, ctx.tenant.orgId, 'site', ctx.clock.now(), ['read:public', 'write'])
    const siteAuth = { authorization: `Bearer ${await requestToken(ctx.app, site)}` }
    const edit = (auth: Record<string, string>) =>
      call('PUT', base(), { job_title: 'Lecturer' }, { 'if-match': current }, auth)
    let current = await etag()
    expectError(await edit(siteAuth), 412, 'precondition_failed')
    assert.equal(data(await edit(ctx.tenant.auth)).updated, true)
    data(await call('PUT', base(), { is_published: 1 }))
    current = String((await call('GET', base(), undefined, {}, siteAuth)).headers.etag)
    assert.notEqual(
      current,
      await etag(),
      "the public document leaves out the expert's direct contact details",
    )
    assert.equal(
      data(await call('PUT', base(), { job_title: 'Reader' }, { 'if-match': current }, siteAuth)).updated,
      true,
    )
  })

  test('the photo’s upload and delete take If-Match too', async () => {
    const read = await etag()
    data(await call('POST', `${base()}/tagline`, { tagline: 'Moved on' }))
    const upload = await call('PUT', `${base()}/avatar`, await testImage('png'), {
      'content-type': 'image/png',
      'if-match': read,
    })
    expectError(upload, 412, 'precondition_failed')
    expectError(
      await call('DELETE', `${base()}/avatar`, undefined, { 'if-match': read }),
      412,
      'precondition_failed',
    )
    const current = await etag()
    const stored = await call('PUT', `${base()}/avatar`, await testImage('png'), {
      'content-type': 'image/png',
      'if-match': current,
    })
    assert.equal(stored.statusCode, 200, stored.body)
    expectError(
      await call('DELETE', `${base()}/avatar`, undefined, { 'if-match': current }),
      412,
      'precondition_failed',
    )
    data(await call('DELETE', `${base()}/avatar`, undefined, { 'if-match': await etag() }))
  })

  test('two writers with the same ETag over HTTP: exactly one wins', async () => {
    const [rain] = await addArticles('Rain')
    const read = await etag()
    const port = listeningPort(second.server)
    const write = (title: string) =>
      fetch(`http://127.0.0.1:${port}${base()}/article/${rain}`, {
        method: 'PUT',
        headers: { ...ctx.tenant.auth, 'content-type': 'application/json', 'if-match': read },
        body: JSON.stringify({ title }),
      })
    const answers = await Promise.all([write('Storm'), write('Sleet'), write('Hail')])
    const statuses = answers.map((answer) => answer.status).sort()
    assert.deepEqual(statuses, [200, 412, 412])
    const winner = answers.findIndex((answer) => answer.status === 200)
    assert.deepEqual(await titles(), [['Storm', 'Sleet', 'Hail'][winner]])
  })
})
