import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { ApiError } from '../src/errors.js'
import { toInquiryInput } from '../src/inquiries/schemas.js'
import { createInquiry } from '../src/inquiries/service.js'
import { idIn } from './helpers/checked.js'
import { createExpert, describeEachDialect, envelope, inquiryBody, type Tenant } from './helpers/harness.js'

/**
 * Group commit: concurrent inquiries share one transaction and one commit, each inside its own
 * savepoint. A failing one fails alone; idempotency keys behave as if the batch's requests had been
 * sent one after the other. The kill test (inquiry-durability) covers crashes during batches.
 */
describeEachDialect('inquiry group commit', (ctx) => {
  let tenant: Tenant
  let expert: string

  before(async () => {
    tenant = await ctx.addTenant('Batch University')
    expert = await createExpert(ctx, tenant, { firstname: 'Batch', lastname: 'Expert' })
  })

  const stats = () => ({ ...ctx.testDatabase.database.commits.stats })
  const stored = (marker: string) =>
    ctx.testDatabase.database.db
      .selectFrom('inquiries')
      .select(['id', 'message'])
      .where('org_id', '=', tenant.orgId)
      .where('message', 'like', `${marker}%`)
      .execute()

  /**
   * SQLite runs one batch at a time, so requests sent in one tick share it. PostgreSQL runs several
   * batches at once on their own connections: such requests may spread over them, and a key stored
   * by one batch reaches another through the unique key (the loser replays or gets 409).
   */
  function assertOneBatch(before: { batches: number }) {
    if (ctx.dialect === 'sqlite')
      assert.equal(stats().batches - before.batches, 1, 'one transaction, one commit')
  }

  /** Calls the service for each request in the same tick: they all wait for the same batch. */
  function createTogether(requests: { message: string; username?: string; key?: string }[]) {
    return Promise.allSettled(
      requests.map(({ message, username = expert, key }) =>
        createInquiry(
          ctx.testDatabase.database,
          tenant.orgId,
          toInquiryInput('general', inquiryBody('general', username, { message })),
          key,
          ctx.clock.now(),
        ),
      ),
    )
  }

  const post = (message: string, headers: Record<string, string> = {}, username = expert) =>
    ctx.inject({
      method: 'POST',
      url: `/v2/organization/${tenant.orgId}/inquiry/general`,
      headers: { ...tenant.auth, ...headers },
      payload: inquiryBody('general', username, { message }),
    })

  test('concurrent inquiries over HTTP are all stored with distinct ids, in shared batches', async () => {
    const before = stats()
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => post(`http-burst-${i}`)))
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      responses.map(() => 200),
    )
    const ids = responses.map(idIn)
    assert.equal(new Set(ids).size, 40)
    const rows = await stored('http-burst-')
    assert.deepEqual(rows.map((row) => row.id).sort(), [...ids].sort())
    const after = stats()
    assert.equal(after.units - before.units, 40)
    assert.ok(after.batches - before.batches < 40, 'some inquiries shared a commit')
    assert.ok(after.largestBatch > 1)
  })

  test('inquiries sent together commit as one batch, and one that fails is rolled back alone', async () => {
    const before = stats()
    const results = await createTogether([
      { message: 'batch-a' },
      { message: 'batch-b' },
      { message: 'batch-unknown', username: 'nobody-here' },
      { message: 'batch-c' },
    ])
    assertOneBatch(before)
    assert.equal(stats().units - before.units, 4)
    const [a, b, unknown, c] = results
    assert.equal(unknown?.status, 'rejected')
    assert.ok(unknown.reason instanceof ApiError)
    assert.equal(unknown.reason.code, 'not_found')
    const ids = [a, b, c].map((result) => (result?.status === 'fulfilled' ? result.value.id : undefined))
    assert.ok(ids.every((id) => typeof id === 'number'))
    assert.equal(new Set(ids).size, 3)
    const rows = await stored('batch-')
    assert.deepEqual(rows.map((row) => row.message).sort(), ['batch-a', 'batch-b', 'batch-c'])
    const outbox = await ctx.testDatabase.database.db
      .selectFrom('inquiry_deliveries')
      .select('inquiry_id')
      .where('inquiry_id', 'in', ids)
      .execute()
    assert.equal(outbox.length, 6, 'each stored inquiry has its two outbox rows')
  })

  test('a replay of a key inside the same batch returns the first response and stores nothing', async () => {
    const before = stats()
    const results = await createTogether([
      { message: 'replay-first', key: 'batch-replay' },
      { message: 'replay-other' },
      { message: 'replay-first', key: 'batch-replay' },
    ])
    assertOneBatch(before)
    const [first, other, replay] = results.map((result) => {
      assert.equal(result.status, 'fulfilled')
      return result.value
    })
    // On SQLite the first in the batch stores; across PostgreSQL's parallel batches either may.
    if (ctx.dialect === 'sqlite') assert.equal(first?.replayed, false)
    assert.deepEqual([first?.replayed, replay?.replayed].sort(), [false, true])
    assert.equal(replay?.id, first?.id)
    assert.notEqual(other?.id, first?.id)
    const rows = await stored('replay-first')
    assert.deepEqual(
      rows.map((row) => row.id),
      [first?.id],
    )
  })

  test('a key reused with another body inside the same batch is a conflict for the second only', async () => {
    const before = stats()
    const [first, second] = await createTogether([
      { message: 'conflict-first', key: 'batch-conflict' },
      { message: 'conflict-second', key: 'batch-conflict' },
    ])
    assertOneBatch(before)
    // On SQLite the first in the batch wins; across PostgreSQL's parallel batches either may.
    const results = [first, second]
    const winner = results.findIndex((result) => result?.status === 'fulfilled')
    if (ctx.dialect === 'sqlite') assert.equal(winner, 0)
    const loser = results[1 - winner]
    assert.equal(loser?.status, 'rejected')
    assert.ok(loser.reason instanceof ApiError)
    assert.equal(loser.reason.code, 'conflict')
    assert.deepEqual(
      (await stored('conflict-')).map((row) => row.message),
      [winner === 0 ? 'conflict-first' : 'conflict-second'],
    )
  })

  test('over HTTP, an invalid, a replayed and a conflicting inquiry among concurrent ones each answer as alone', async () => {
    const headers = (key: string) => ({ 'idempotency-key': key })
    const responses: LightMyRequestResponse[] = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => post(`mixed-${i}`)),
      post('mixed-unknown', {}, 'nobody-here'),
      post('', {}),
      post('mixed-keyed', headers('mixed-key')),
      post('mixed-keyed', headers('mixed-key')),
      post('mixed-keyed-other', headers('mixed-key')),
    ])
    const status = responses.map((response) => response.statusCode)
    assert.deepEqual(status.slice(0, 10), Array(10).fill(200))
    assert.equal(status[10], 404)
    assert.equal(status[11], 400)
    // Sequential semantics: whichever keyed request ran first stored it; a same-body one replays it,
    // a different-body one is a conflict, and at most one different-body request could have won.
    const keyed = responses.slice(12)
    const stores = await stored('mixed-keyed')
    assert.equal(stores.length, 1)
    const winner = stores[0]
    for (const [i, response] of keyed.entries()) {
      const body = i < 2 ? 'mixed-keyed' : 'mixed-keyed-other'
      if (body === winner?.message) {
        assert.equal(response.statusCode, 200)
        assert.equal(envelope(response).data?.id, winner.id)
      } else {
        assert.equal(response.statusCode, 409)
        assert.equal(envelope(response).error?.code, 'conflict')
      }
    }
    assert.equal((await stored('mixed-')).length, 11, 'ten plain inquiries and the keyed one')
  })
})
