import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { createClient } from '../src/auth/clients.js'
import { openDatabase } from '../src/db/database.js'
import { createPublishingSchedule } from '../src/schedules/loop.js'
import { present, record, records } from './helpers/checked.js'
import { type ServerProcess, startServerProcess } from './helpers/cli.js'
import { eventually } from './helpers/eventually.js'
import {
  createExpert,
  describeEachDialect,
  envelope,
  requestToken,
  type TestContext,
} from './helpers/harness.js'

/**
 * Scheduled publishing and unpublishing (CONTRACT §21) of experts, posts and Q&A items: the times are
 * taken in create and update bodies and shown to readers with `read` (not `read:public`); the schedule
 * carries each out once, through the same write as the API's, with an audit entry naming the schedule and
 * who set it; two loops or two processes on one database carry each time out once; a time that came due
 * while no process ran is carried out when one starts.
 */

type Method = NonNullable<InjectOptions['method']>

function helpers(ctx: TestContext) {
  const seconds = () => Math.floor(ctx.clock.now() / 1000)
  const call = (method: Method, url: string, payload?: object, headers = ctx.tenant.auth) =>
    ctx.inject({ method, url, headers, ...(payload ? { payload } : {}) })
  const expertUrl = (username: string) => `/v2/organization/${ctx.tenant.orgId}/expert/${username}`
  const account = async (username: string, headers = ctx.tenant.auth) => {
    const response = await call('GET', `${expertUrl(username)}/account`, undefined, headers)
    assert.equal(response.statusCode, 200, response.body)
    return record(records(record(envelope(response).data).account)[0])
  }
  const created = (response: LightMyRequestResponse) => {
    assert.equal(response.statusCode, 200, response.body)
    return Number(record(envelope(response).data).id)
  }
  const auditOf = async (kind: string, id: string) => {
    const response = await call('GET', `/v2/organization/${ctx.tenant.orgId}/audit?kind=${kind}&record=${id}`)
    assert.equal(response.statusCode, 200, response.body)
    return records(record(envelope(response).data).entries)
  }
  return { seconds, call, expertUrl, account, created, auditOf }
}

describeEachDialect('scheduled publishing and unpublishing', (ctx) => {
  const { seconds, call, expertUrl, account, created, auditOf } = helpers(ctx)
  let publicHeaders: Record<string, string> = {}
  const schedule = () => createPublishingSchedule({ db: ctx.testDatabase.database.db, now: ctx.clock.now })

  before(async () => {
    const { db } = ctx.testDatabase.database
    const website = await createClient(db, ctx.tenant.orgId, 'website', ctx.clock.now(), ['read:public'])
    publicHeaders = { authorization: `Bearer ${await requestToken(ctx.app, website)}` }
  })

  test('an expert is published once at its time, through the normal write, and the audit names who set it', async () => {
    const username = await createExpert(ctx, ctx.tenant, { lastname: 'Quillfeather' })
    const at = seconds() + 120
    const set = await call('PUT', expertUrl(username), { publish_at: at })
    assert.equal(set.statusCode, 200, set.body)
    assert.equal((await account(username)).publish_at, at)
    assert.equal((await account(username)).unpublish_at, null)
    assert.equal((await account(username)).is_published, 0)

    const loop = schedule()
    assert.equal(await loop.runOnce(), 0, 'not yet due')
    ctx.clock.advance(119_000)
    assert.equal(await loop.runOnce(), 0, 'still not due')
    ctx.clock.advance(1000)
    assert.equal(await loop.runOnce(), 1)
    assert.equal(await loop.runOnce(), 0, 'done once')
    const published = await account(username)
    assert.equal(published.is_published, 1)
    assert.equal(published.publish_at, null)

    // The public sees it now, and without the schedule's fields; the search index followed.
    const asPublic = await account(username, publicHeaders)
    assert.equal('publish_at' in asPublic, false)
    assert.equal('unpublish_at' in asPublic, false)
    const search = await call(
      'GET',
      `/v2/organization/${ctx.tenant.orgId}/expert?q=Quillfeather`,
      undefined,
      publicHeaders,
    )
    assert.equal(search.statusCode, 200, search.body)
    assert.match(search.body, new RegExp(`"${username}"`))

    const entries = (await auditOf('expert', username)).filter((entry) => entry.action === 'schedule publish')
    assert.equal(entries.length, 1)
    const [entry] = entries
    assert.deepEqual(record(entry).actor, {
      kind: 'schedule',
      id: `client:${ctx.tenant.client.client_id}`,
      name: 'test',
    })
    assert.match(String(record(entry).summary), /^Published .+ as scheduled$/)
  })

  test('an expert is unpublished at its time; null cancels a time', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    await call('PUT', expertUrl(username), { is_published: 1 })
    const cancelled = await createExpert(ctx, ctx.tenant)
    await call('PUT', expertUrl(cancelled), { is_published: 1, unpublish_at: seconds() + 60 })
    assert.equal((await account(cancelled)).unpublish_at, seconds() + 60)
    const cancel = await call('PUT', expertUrl(cancelled), { unpublish_at: null })
    assert.equal(cancel.statusCode, 200, cancel.body)
    assert.equal((await account(cancelled)).unpublish_at, null)

    await call('PUT', expertUrl(username), { unpublish_at: seconds() + 60 })
    ctx.clock.advance(60_000)
    assert.equal(await schedule().runOnce(), 1)
    assert.equal((await account(username)).is_published, 0)
    assert.equal((await account(cancelled)).is_published, 1)
    const hidden = await call('GET', `${expertUrl(username)}/account`, undefined, publicHeaders)
    assert.equal(hidden.statusCode, 404, hidden.body)
  })

  test('a time that is not in the future is 400 naming the field, and nothing is written', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    for (const [field, value] of [
      ['publish_at', seconds()],
      ['unpublish_at', seconds() - 3600],
    ] as const) {
      const response = await call('PUT', expertUrl(username), { job_title: 'Changed', [field]: value })
      assert.equal(response.statusCode, 400, response.body)
      assert.deepEqual(
        envelope(response).error?.details?.map((detail) => detail.field),
        [field],
      )
    }
    const post = await call('POST', `/v2/spotlight/${ctx.tenant.orgId}`, {
      title: 'Too late',
      html: '<p>x</p>',
      publish_at: seconds() - 1,
    })
    assert.equal(post.statusCode, 400, post.body)
    assert.notEqual((await account(username)).job_title, 'Changed')
  })

  test('posts and Q&A items are published and unpublished at their times', async () => {
    const post = created(
      await call('POST', `/v2/spotlight/${ctx.tenant.orgId}`, {
        title: 'Embargoed news',
        html: '<p>Soon</p>',
        publish_at: seconds() + 300,
        unpublish_at: seconds() + 900,
      }),
    )
    const question = created(
      await call('POST', `/v2/qanda/${ctx.tenant.orgId}`, { question: 'When?', publish_at: seconds() + 300 }),
    )
    const read = (path: string, headers = ctx.tenant.auth) => call('GET', path, undefined, headers)
    const postUrl = `/v2/spotlight/${ctx.tenant.orgId}/${post}`
    const questionUrl = `/v2/qanda/${ctx.tenant.orgId}/${question}`
    const postItem = async () => record(records(record(envelope(await read(postUrl)).data).spotlight)[0])
    assert.equal((await postItem()).publish_at, seconds() + 300)
    assert.equal((await postItem()).unpublish_at, seconds() + 900)
    assert.equal((await read(postUrl, publicHeaders)).statusCode, 404)
    assert.equal((await read(questionUrl, publicHeaders)).statusCode, 404)

    ctx.clock.advance(300_000)
    const loop = schedule()
    assert.equal(await loop.runOnce(), 2)
    const publicPost = await read(postUrl, publicHeaders)
    assert.equal(publicPost.statusCode, 200, publicPost.body)
    assert.equal('publish_at' in record(records(record(envelope(publicPost).data).spotlight)[0]), false)
    assert.equal((await read(questionUrl, publicHeaders)).statusCode, 200)
    assert.equal((await postItem()).publish_at, null)

    ctx.clock.advance(600_000)
    assert.equal(await loop.runOnce(), 1)
    assert.equal((await read(postUrl, publicHeaders)).statusCode, 404)
    assert.equal((await postItem()).published, 0)
    const actions = (await auditOf('spotlight', String(post))).map((entry) => entry.action)
    assert.deepEqual(
      actions.filter((action) => String(action).startsWith('schedule')),
      ['schedule unpublish', 'schedule publish'],
    )
  })

  // SQLite: node:sqlite waits for a lock synchronously, so two connections in one process wait out the
  // busy timeout for each other; the processes below show the same on SQLite, one connection each.
  const oneProcessPerConnection =
    ctx.dialect === 'sqlite' && 'SQLite: covered by the two real processes below'
  test('two loops on two connections to one database carry out each time once', {
    skip: oneProcessPerConnection,
  }, async () => {
    const usernames = await Promise.all(Array.from({ length: 8 }, () => createExpert(ctx, ctx.tenant)))
    for (const username of usernames) await call('PUT', expertUrl(username), { publish_at: seconds() + 30 })
    ctx.clock.advance(30_000)
    const secondDatabase = openDatabase(ctx.testDatabase.url)
    try {
      const first = schedule()
      const second = createPublishingSchedule({ db: secondDatabase.db, now: ctx.clock.now })
      const [a, b] = await Promise.all([first.runOnce(), second.runOnce()])
      assert.equal(a + b, usernames.length, `carried out ${a} + ${b}`)
    } finally {
      await secondDatabase.close()
    }
    for (const username of usernames) {
      assert.equal((await account(username)).is_published, 1)
      const entries = (await auditOf('expert', username)).filter(
        (entry) => entry.action === 'schedule publish',
      )
      assert.equal(entries.length, 1, username)
    }
  })
})

describeEachDialect('scheduled publishing across real processes', (ctx) => {
  const { call, expertUrl, account, created, auditOf } = helpers(ctx)
  let servers: ServerProcess[] = []
  after(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM')
      await server.exited
    }
  })

  test('what came due while no process ran is carried out at start, once, by two processes started together', async () => {
    // The processes run on the real clock: the times are a few seconds ahead of it, then passed while none runs.
    const at = Math.floor(Date.now() / 1000) + 2
    ctx.clock.current = Date.now()
    const usernames = await Promise.all(Array.from({ length: 5 }, () => createExpert(ctx, ctx.tenant)))
    for (const username of usernames) {
      const set = await call('PUT', expertUrl(username), { publish_at: at })
      assert.equal(set.statusCode, 200, set.body)
    }
    const post = created(
      await call('POST', `/v2/spotlight/${ctx.tenant.orgId}`, {
        title: 'Later',
        html: '<p>x</p>',
        publish_at: at,
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at * 1000 - Date.now()) + 200))

    const env = { EXPERTDIR_SCHEDULE_POLL_SECONDS: '1' }
    servers = await Promise.all([
      startServerProcess(ctx.testDatabase.url, { env }),
      startServerProcess(ctx.testDatabase.url, { env }),
    ])
    const { db } = ctx.testDatabase.database
    await eventually(
      async () => {
        const rows = await db
          .selectFrom('experts')
          .select('is_published')
          .where('username', 'in', usernames)
          .where('org_id', '=', ctx.tenant.orgId)
          .execute()
        const spotlight = await db
          .selectFrom('spotlights')
          .select('published')
          .where('id', '=', post)
          .execute()
        return rows.every((row) => row.is_published === 1) && spotlight[0]?.published === 1
      },
      {
        what: 'the schedule published everything due',
        timeoutMs: 60_000,
        detail: () => servers[0]?.output() ?? '',
      },
    )
    // Each process stops after the pass under way: what the log holds then is everything they did.
    for (const server of servers) server.child.kill('SIGTERM')
    assert.deepEqual(await Promise.all(servers.map((server) => server.exited)), [0, 0])
    for (const username of usernames) {
      const entries = (await auditOf('expert', username)).filter(
        (entry) => entry.action === 'schedule publish',
      )
      assert.equal(entries.length, 1, username)
    }
    const postEntries = (await auditOf('spotlight', String(post))).filter(
      (entry) => entry.action === 'schedule publish',
    )
    assert.equal(postEntries.length, 1)
  })

  test('SIGKILL in the middle of a pass, then a restart: each time carried out once, none left', {
    timeout: 240_000,
  }, async () => {
    const at = Math.floor(Date.now() / 1000) + 2
    ctx.clock.current = Date.now()
    const usernames: string[] = []
    for (let n = 0; n < 30; n++) usernames.push(await createExpert(ctx, ctx.tenant))
    for (const username of usernames) {
      const set = await call('PUT', expertUrl(username), { publish_at: at })
      assert.equal(set.statusCode, 200, set.body)
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at * 1000 - Date.now()) + 200))
    const { db } = ctx.testDatabase.database
    const published = async () =>
      (
        await db
          .selectFrom('experts')
          .select('is_published')
          .where('username', 'in', usernames)
          .where('org_id', '=', ctx.tenant.orgId)
          .execute()
      ).filter((row) => row.is_published === 1).length

    // Process A is killed as soon as its pass has carried out a first time (or all of them, if it is quicker).
    const env = { EXPERTDIR_SCHEDULE_POLL_SECONDS: '1' }
    const first = await startServerProcess(ctx.testDatabase.url, { env })
    servers = [first]
    await eventually(async () => (await published()) > 0, {
      what: 'process A carries out a first time',
      timeoutMs: 60_000,
      intervalMs: 5,
      detail: first.output,
    })
    first.child.kill('SIGKILL')
    await first.exited
    const left = usernames.length - (await published())

    servers.push(await startServerProcess(ctx.testDatabase.url, { env }))
    await eventually(async () => (await published()) === usernames.length, {
      what: 'the restarted process carries out the rest',
      timeoutMs: 60_000,
    })
    const second = present(servers[1])
    second.child.kill('SIGTERM')
    assert.equal(await second.exited, 0)
    for (const username of usernames) {
      const entries = (await auditOf('expert', username)).filter(
        (entry) => entry.action === 'schedule publish',
      )
      assert.equal(entries.length, 1, `${username} published once (${left} were left to the restart)`)
      assert.equal((await account(username)).publish_at, null)
    }
  })
})
