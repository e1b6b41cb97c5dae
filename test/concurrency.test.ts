import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Type } from 'typebox'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import { createCommitQueue } from '../src/db/commit-queue.js'
import { type DialectName, openDatabase } from '../src/db/database.js'
import { WRITE_ATTEMPTS, writeTransaction } from '../src/db/transactions.js'
import { ApiError } from '../src/errors.js'
import { toApiError } from '../src/http/error-handler.js'
import { createOrganization } from '../src/organizations/repository.js'
import { isRecord, parsed, present, records } from './helpers/checked.js'
import { type ServerProcess, startServerProcess } from './helpers/cli.js'
import { createTestDatabase, type TestDatabase, testDialects } from './helpers/databases.js'
import { expertBody, inquiryBody } from './helpers/harness.js'

/**
 * Writes that race, over real HTTP against real `expertdir serve` processes: SQLite (one process, so
 * one writer), PostgreSQL (writers side by side on the pool's connections) and SQLite served by two
 * processes on one file (writers in two processes). What must hold: no answer >= 500, no duplicate in
 * a name set, no single-element section with two elements, no list above 500, and every acknowledged
 * write visible afterwards. Bounded by request counts, not by time; 127.0.0.1 only.
 */

const DIALECTS = await testDialects()
const skipOf = (dialect: DialectName) => DIALECTS.find((d) => d.dialect === dialect)?.skip ?? 'not tested'

const SETUPS = [
  { name: 'SQLite, one process', dialect: 'sqlite', processes: 1 },
  { name: 'PostgreSQL, one process', dialect: 'postgres', processes: 1 },
  { name: 'SQLite, two processes on one file', dialect: 'sqlite', processes: 2 },
] as const

/** Long waits, so that a loaded machine makes the suite slow rather than flaky: writers must wait, not fail. */
const SERVER_ENV = { EXPERTDIR_SQLITE_BUSY_TIMEOUT_MS: '30000', EXPERTDIR_PG_CONNECT_TIMEOUT_MS: '30000' }

type Element = Record<string, unknown>
interface Answer {
  status: number
  body: string
  data: Element
}

/** The `id` of a created record's answer. */
const idOf = (answer: Answer) => parsed(Type.Integer(), answer.data.id, `the id in ${answer.body}`)

/** The first write of each single-element section, the i-th of a burst: each burst differs in `field`. */
const SINGLE_BODIES: Record<string, { field: string; body: (i: number) => Element }> = {
  biography: { field: 'biography', body: (i) => ({ biography: `<p>Biography ${i}</p>` }) },
  tagline: { field: 'tagline', body: (i) => ({ tagline: `Tagline ${i}` }) },
  availability: {
    field: 'availability_open',
    body: (i) => ({
      availability_keynote: 1,
      availability_moderator: 0,
      availability_panelist: 1,
      availability_workshop: 0,
      availability_host_mc: 0,
      availability_appearance: 1,
      availability_corptraining: 0,
      availability_open: i % 2,
    }),
  },
  fee: { field: 'fee_min', body: (i) => ({ fee_min: 1000 + i, currency: 'EUR' }) },
  social: { field: 'website', body: (i) => ({ website: `https://site-${i}.example` }) },
  seo: { field: 'title', body: (i) => ({ title: `Page title ${i}` }) },
  cv: { field: 'url', body: (i) => ({ url: `https://cv.example/${i}` }) },
}
const NAME_SETS = ['topic', 'industry', 'category', 'profiletype', 'tag'] as const
const CAP = 500
const SEEDED = 490

for (const setup of SETUPS) {
  describe(`writes that race (${setup.name})`, { skip: skipOf(setup.dialect), timeout: 600_000 }, () => {
    let testDatabase: TestDatabase
    let servers: ServerProcess[] = []
    let orgId: number
    let client: IssuedClient
    let token = ''
    let turn = 0
    /** Every answer of the run, so that the last test can say none was a 5xx. */
    const answers: { request: string; status: number; body: string }[] = []
    const db = () => testDatabase.database.db

    /** One request, to the processes in turn: with two, consecutive requests reach different ones. */
    async function call(method: string, path: string, body?: unknown): Promise<Answer> {
      const server = present(servers[turn++ % servers.length], 'a server')
      const response = await fetch(`${server.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      answers.push({ request: `${method} ${path}`, status: response.status, body: text })
      let data: Element = {}
      try {
        const parsed: unknown = JSON.parse(text)
        if (isRecord(parsed) && isRecord(parsed.data)) data = parsed.data
      } catch {}
      return { status: response.status, body: text, data }
    }
    const together = <T>(n: number, request: (i: number) => Promise<T>) =>
      Promise.all(Array.from({ length: n }, (_, i) => request(i)))
    const expertPath = (username: string) => `/v2/organization/${orgId}/expert/${username}`
    async function newExpert(): Promise<string> {
      const created = await call('POST', `/v2/organization/${orgId}/expert`, expertBody())
      assert.equal(created.status, 200, created.body)
      return parsed(Type.String(), created.data.username, `the username in ${created.body}`)
    }
    async function elements(username: string, section: string): Promise<Element[]> {
      const listed = await call('GET', `${expertPath(username)}/${section}`)
      assert.equal(listed.status, 200, listed.body)
      return records(listed.data[section], section)
    }
    const statuses = (list: Answer[]) => list.map((answer) => answer.status)
    function allOk(list: Answer[], what: string) {
      for (const answer of list) assert.equal(answer.status, 200, `${what}: ${answer.body}`)
    }

    before(async () => {
      testDatabase = await createTestDatabase(setup.dialect)
      const now = Date.now()
      orgId = (await createOrganization(db(), { name: 'Race University' }, now)).id
      client = await createClient(db(), orgId, 'races', now)
      servers = await Promise.all(
        Array.from({ length: setup.processes }, () =>
          startServerProcess(testDatabase.url, { env: SERVER_ENV }),
        ),
      )
      const issued = await fetch(`${servers[0]?.base}/v2/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
        }).toString(),
      })
      assert.equal(issued.status, 200, await issued.clone().text())
      token = parsed(
        Type.Object({ access_token: Type.String() }),
        await issued.json(),
        'the token',
      ).access_token
    })

    after(async () => {
      for (const server of servers) {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM')
        await server.exited
      }
      await testDatabase?.drop()
    })

    test('20 concurrent first writes to each single-element section leave one element, the one every answer names', async () => {
      for (const [section, { field, body }] of Object.entries(SINGLE_BODIES)) {
        const username = await newExpert()
        const burst = await together(20, (i) => call('POST', `${expertPath(username)}/${section}`, body(i)))
        allOk(burst, section)
        const ids = new Set(burst.map((answer) => answer.data.id))
        assert.equal(ids.size, 1, `${section}: one element, every answer its id (got ${[...ids]})`)
        const stored = await elements(username, section)
        assert.equal(stored.length, 1, `${section}: one element`)
        assert.equal(stored[0]?.id, [...ids][0])
        const sent = Array.from({ length: 20 }, (_, i) => body(i)[field])
        assert.ok(sent.includes(stored[0]?.[field]), `${section}: the stored ${field} is one that was sent`)
        assert.ok(
          burst.some((answer) => answer.data.updated === true),
          `${section}: one of the writes created it`,
        )
      }
    })

    test('20 concurrent POSTs of one name in two spellings store it once, in every name set', async () => {
      for (const section of NAME_SETS) {
        const username = await newExpert()
        const name = `Quantum ${section} ${setup.processes}`
        const spelling = (i: number) => (i % 2 === 0 ? name : name.toUpperCase())
        const burst = await together(20, (i) =>
          call(
            'POST',
            `${expertPath(username)}/${section}`,
            section === 'tag' ? { tag: spelling(i) } : { name: spelling(i) },
          ),
        )
        allOk(burst, section)
        const ids = new Set(burst.map((answer) => answer.data.id))
        assert.equal(ids.size, 1, `${section}: every answer names the one element (got ${[...ids]})`)
        const stored = await elements(username, section)
        assert.equal(stored.length, 1, `${section}: ${JSON.stringify(stored)}`)
        assert.equal(stored[0]?.id, [...ids][0])
      }
      const tags = await db()
        .selectFrom('content_tags')
        .select('id')
        .where('org_id', '=', orgId)
        .where('name_key', '=', `quantum tag ${setup.processes}`)
        .execute()
      assert.equal(tags.length, 1, 'the organization tag was created once')
    })

    test(`40 concurrent POSTs to a list of ${SEEDED}: 10 are stored, 30 refused with 409, the list ends at ${CAP}`, async () => {
      const username = await newExpert()
      const expert = await db()
        .selectFrom('experts')
        .select('id')
        .where('org_id', '=', orgId)
        .where('username', '=', username)
        .executeTakeFirstOrThrow()
      await db()
        .insertInto('profile_items')
        .values(
          Array.from({ length: SEEDED }, (_, i) => ({
            org_id: orgId,
            expert_id: expert.id,
            section: 'link',
            position: i,
            external_key: `seed:${i}`,
            data: JSON.stringify({ name: `Seeded ${i}`, url: `https://seeded.example/${i}` }),
          })),
        )
        .execute()
      const burst = await together(40, (i) =>
        call('POST', `${expertPath(username)}/link`, {
          name: `Raced ${i}`,
          url: `https://raced.example/${i}`,
        }),
      )
      const counts = new Map<number, number>()
      for (const status of statuses(burst)) counts.set(status, (counts.get(status) ?? 0) + 1)
      assert.deepEqual(Object.fromEntries(counts), { 200: CAP - SEEDED, 409: 40 - (CAP - SEEDED) })
      for (const answer of burst.filter((a) => a.status === 409))
        assert.equal(JSON.parse(answer.body).error.code, 'conflict')
      const stored = await elements(username, 'link')
      assert.equal(stored.length, CAP)
      const storedIds = new Set(stored.map((element) => element.id))
      for (const answer of burst.filter((a) => a.status === 200))
        assert.ok(storedIds.has(answer.data.id), `acknowledged element ${answer.data.id} is stored`)
    })

    test('10 concurrent posts introducing one new tag create it once, and every post carries it', async () => {
      const name = `Fresh Tag ${setup.processes}`
      const burst = await together(10, (i) =>
        call('POST', `/v2/spotlight/${orgId}`, {
          title: `Post ${i}`,
          html: `<p>Post ${i}</p>`,
          tags: [i % 2 === 0 ? name : name.toLowerCase(), `Other ${i}`],
        }),
      )
      allOk(burst, 'post')
      const tags = await db()
        .selectFrom('content_tags')
        .select('id')
        .where('org_id', '=', orgId)
        .where('name_key', '=', name.toLowerCase())
        .execute()
      assert.equal(tags.length, 1, 'one tag')
      const carriers = await db()
        .selectFrom('spotlight_tags')
        .select('owner_id')
        .where('content_tag_id', '=', present(tags[0], 'the tag').id)
        .execute()
      assert.deepEqual(
        carriers.map((row) => row.owner_id).sort((a, b) => a - b),
        burst.map(idOf).sort((a, b) => a - b),
      )
    })

    test('a bounded mixed load of 50 writers and readers: every write acknowledged, every acknowledged write visible', async () => {
      const WORKERS = 50
      const ROUNDS = 8
      const experts = [await newExpert(), await newExpert(), await newExpert()]
      const TOPICS = ['Climate', 'Energy', 'Oceans', 'Soil']
      const POST_TAGS = ['Mixed One', 'Mixed Two', 'Mixed Three']
      const links = experts.map(() => new Set<number>())
      const topics = experts.map(() => new Set<string>())
      const biographies = experts.map(() => new Set<string>())
      const posts: number[] = []
      const inquiries: { id: number; message: string }[] = []
      /** Each writer's own link and the last name it acknowledged for it. */
      const mine = new Map<number, { expert: number; id: number; name: string }>()
      const failures: string[] = []
      const expectOk = (answer: Answer, what: string) => {
        if (answer.status !== 200) failures.push(`${what}: ${answer.status} ${answer.body}`)
        return answer.status === 200
      }

      async function writer(w: number) {
        for (let round = 0; round < ROUNDS; round++) {
          const e = (w + round) % experts.length
          const base = expertPath(present(experts[e], 'an expert'))
          const label = `w${w}r${round}`
          switch ((w + round) % 8) {
            case 0: {
              const answer = await call('POST', `${base}/link`, {
                name: label,
                url: `https://l.example/${label}`,
              })
              if (expectOk(answer, 'link')) {
                const id = idOf(answer)
                links[e]?.add(id)
                if (!mine.has(w)) mine.set(w, { expert: e, id, name: label })
              }
              break
            }
            case 1: {
              const topic = present(TOPICS[(w * 7 + round) % TOPICS.length], 'a topic')
              const name = round % 2 ? topic.toLowerCase() : topic
              if (expectOk(await call('POST', `${base}/topic`, { name }), 'topic'))
                topics[e]?.add(topic.toLowerCase())
              break
            }
            case 2: {
              const text = `<p>${label}</p>`
              if (expectOk(await call('POST', `${base}/biography`, { biography: text }), 'biography'))
                biographies[e]?.add(text)
              break
            }
            case 3: {
              const own = mine.get(w)
              if (!own) {
                expectOk(await call('GET', `${base}/link`), 'list links')
                break
              }
              const path = `${expertPath(present(experts[own.expert], 'its expert'))}/link/${own.id}`
              if (expectOk(await call('PUT', path, { name: `${label} renamed` }), 'rename link'))
                own.name = `${label} renamed`
              break
            }
            case 4:
              expectOk(await call('GET', base), 'profile')
              break
            case 5:
              expectOk(await call('GET', `${base}/topic`), 'topics')
              break
            case 6: {
              const answer = await call('POST', `/v2/spotlight/${orgId}`, {
                title: label,
                html: `<p>${label}</p>`,
                tags: [POST_TAGS[w % POST_TAGS.length], POST_TAGS[round % POST_TAGS.length]],
                tagged: [experts[e]],
              })
              if (expectOk(answer, 'post')) posts.push(idOf(answer))
              break
            }
            default: {
              const message = `inquiry ${label}`
              const answer = await call(
                'POST',
                `/v2/organization/${orgId}/inquiry/event`,
                inquiryBody('event', present(experts[e], 'an expert'), { message }),
              )
              if (expectOk(answer, 'inquiry')) inquiries.push({ id: idOf(answer), message })
            }
          }
        }
      }
      await together(WORKERS, writer)
      assert.deepEqual(failures, [])

      for (const [e, username] of experts.entries()) {
        const stored = await elements(username, 'link')
        assert.ok(stored.length <= CAP)
        const byId = new Map(stored.map((element) => [element.id, element]))
        for (const id of links[e] ?? []) assert.ok(byId.has(id), `link ${id} of ${username} is stored`)
        for (const own of mine.values())
          if (own.expert === e) assert.equal(byId.get(own.id)?.name, own.name, 'the last rename stands')
        const names = (await elements(username, 'topic')).map((element) => String(element.name).toLowerCase())
        assert.equal(new Set(names).size, names.length, `no duplicate topic: ${names}`)
        assert.deepEqual([...names].sort(), [...(topics[e] ?? [])].sort())
        const [biography] = await elements(username, 'biography')
        if ((biographies[e]?.size ?? 0) > 0)
          assert.ok(
            biographies[e]?.has(parsed(Type.String(), biography?.biography, 'the biography')),
            'the biography is one that was sent',
          )
      }
      for (const id of posts) assert.equal((await call('GET', `/v2/spotlight/${orgId}/${id}`)).status, 200)
      const tagKeys = await db()
        .selectFrom('content_tags')
        .select('name_key')
        .where('org_id', '=', orgId)
        .where('name_key', 'like', 'mixed %')
        .execute()
      assert.deepEqual(tagKeys.map((row) => row.name_key).sort(), ['mixed one', 'mixed three', 'mixed two'])
      const stored = await db()
        .selectFrom('inquiries')
        .select(['id', 'message'])
        .where('org_id', '=', orgId)
        .where('message', 'like', 'inquiry w%')
        .execute()
      assert.deepEqual(
        stored.map((row) => `${row.id} ${row.message}`).sort(),
        inquiries.map((row) => `${row.id} ${row.message}`).sort(),
      )
    })

    test('no answer of the run was a 5xx', () => {
      const errors = answers.filter((answer) => answer.status >= 500)
      assert.deepEqual(
        errors.map((answer) => `${answer.request}: ${answer.status} ${answer.body}`),
        [],
      )
    })
  })
}

describe('write transactions', () => {
  const sqliteSkip = skipOf('sqlite')

  test('on SQLite a write transaction holds the write lock from its first statement, a read', {
    skip: sqliteSkip,
  }, async () => {
    const testDatabase = await createTestDatabase('sqlite')
    // A second connection to the file, as another process has: it must not slip a write in between.
    const other = openDatabase(testDatabase.url, { busyTimeoutMs: 0 })
    try {
      const now = Date.now()
      await writeTransaction(testDatabase.database.db, async (trx) => {
        await trx.selectFrom('organizations').select('id').execute()
        await assert.rejects(createOrganization(other.db, { name: 'In between' }, now), {
          code: 'SQLITE_BUSY',
        })
        await createOrganization(trx, { name: 'After the read' }, now)
      })
      const names = (await other.db.selectFrom('organizations').select('name').execute()).map(
        (row) => row.name,
      )
      assert.deepEqual(names, ['After the read'])
    } finally {
      await other.close()
      await testDatabase.drop()
    }
  })

  test('a transaction the database rolls back for a concurrent one runs again; other errors do not', {
    skip: sqliteSkip,
  }, async () => {
    const testDatabase = await createTestDatabase('sqlite')
    const { database } = testDatabase
    try {
      let runs = 0
      const value = await writeTransaction(database.db, async () => {
        runs++
        if (runs < 3) throw Object.assign(new Error('deadlock detected'), { code: '40P01' })
        return 'done'
      })
      assert.deepEqual({ value, runs }, { value: 'done', runs: 3 })

      runs = 0
      await assert.rejects(
        writeTransaction(database.db, async () => {
          runs++
          throw new ApiError('conflict', 'no')
        }),
        ApiError,
      )
      assert.equal(runs, 1, 'a request error is not retried')

      runs = 0
      const serialization = Object.assign(new Error('could not serialize access'), { code: '40001' })
      await assert.rejects(
        writeTransaction(database.db, async () => {
          runs++
          throw serialization
        }),
        serialization,
      )
      assert.equal(runs, WRITE_ATTEMPTS)
      const answer = toApiError(serialization)
      assert.equal(answer.statusCode, 503)
      assert.equal(answer.headers?.['retry-after'], '5')
    } finally {
      await testDatabase.drop()
    }
  })

  test('every conflict the database may still report under concurrency is a 503 with Retry-After', () => {
    for (const code of ['40001', '40P01', '55P03', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']) {
      const answer = toApiError(Object.assign(new Error(code), { code }))
      assert.equal(answer.statusCode, 503, code)
      assert.equal(answer.code, 'unavailable', code)
      assert.ok(answer.headers?.['retry-after'], code)
    }
  })

  test('a group-commit unit rolled back for a concurrent writer runs once more in its batch, without the others running twice', {
    skip: sqliteSkip,
  }, async () => {
    const testDatabase = await createTestDatabase('sqlite')
    const { database } = testDatabase
    const queue = createCommitQueue(database.db, { maxBatch: 8 })
    try {
      const runs = { flaky: 0, steady: 0, stubborn: 0 }
      const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' })
      const [flaky, steady, stubborn] = await Promise.allSettled([
        queue.run(async (trx) => {
          runs.flaky++
          await createOrganization(trx, { name: `Flaky ${runs.flaky}` }, 1)
          if (runs.flaky === 1) throw deadlock()
          return 'flaky'
        }),
        queue.run(async (trx) => {
          runs.steady++
          await createOrganization(trx, { name: 'Steady' }, 1)
          return 'steady'
        }),
        queue.run(async () => {
          runs.stubborn++
          throw deadlock()
        }),
      ])
      assert.deepEqual(runs, { flaky: 2, steady: 1, stubborn: 2 })
      assert.deepEqual([flaky.status, steady.status, stubborn.status], ['fulfilled', 'fulfilled', 'rejected'])
      assert.equal(queue.stats.batches, 1)
      const names = (
        await database.db.selectFrom('organizations').select('name').orderBy('name').execute()
      ).map((row) => row.name)
      assert.deepEqual(names, ['Flaky 2', 'Steady'], 'the first run of the flaky unit left nothing behind')
    } finally {
      await testDatabase.drop()
    }
  })

  test('an optimistic batch with a failing unit is rolled back whole and runs again, each unit in its savepoint', {
    skip: sqliteSkip,
  }, async () => {
    const testDatabase = await createTestDatabase('sqlite')
    const { database } = testDatabase
    const queue = createCommitQueue(database.db, { maxBatch: 8, optimistic: true })
    try {
      const runs = { first: 0, failing: 0, last: 0 }
      const [first, failing, last] = await Promise.allSettled([
        queue.run(async (trx) => {
          runs.first++
          await createOrganization(trx, { name: `First ${runs.first}` }, 1)
          return 'first'
        }),
        queue.run(async (trx) => {
          runs.failing++
          await createOrganization(trx, { name: `Failing ${runs.failing}` }, 1)
          throw new Error('refused')
        }),
        queue.run(async (trx) => {
          runs.last++
          await createOrganization(trx, { name: `Last ${runs.last}` }, 1)
          return 'last'
        }),
      ])
      // The first pass stops at the failing unit; the second runs all three.
      assert.deepEqual(runs, { first: 2, failing: 2, last: 1 })
      assert.deepEqual([first.status, failing.status, last.status], ['fulfilled', 'rejected', 'fulfilled'])
      assert.equal(
        failing.status === 'rejected' && failing.reason instanceof Error && failing.reason.message,
        'refused',
      )
      assert.equal(queue.stats.batches, 1)
      const names = (
        await database.db.selectFrom('organizations').select('name').orderBy('name').execute()
      ).map((row) => row.name)
      assert.deepEqual(
        names,
        ['First 2', 'Last 1'],
        'nothing of the first pass nor of the failing unit is kept',
      )
    } finally {
      await testDatabase.drop()
    }
  })

  test('no write path opens a transaction but through writeTransaction (or the group commit)', () => {
    const root = fileURLToPath(new URL('../src', import.meta.url))
    const offenders: string[] = []
    const visit = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name)
        if (entry.isDirectory()) visit(path)
        else if (entry.name.endsWith('.ts') && !path.includes(`${join('src', 'db')}`)) {
          if (/\.(transaction|startTransaction)\(\)/.test(readFileSync(path, 'utf8'))) offenders.push(path)
        }
      }
    }
    visit(root)
    assert.deepEqual(offenders, [])
  })
})
