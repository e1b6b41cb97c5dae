import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { createExpert, describeEachDialect, envelope } from './helpers/harness.js'

const TTL = 1000

const firstnameOf = (response: LightMyRequestResponse) =>
  (envelope(response).data?.account as { firstname: string }[] | undefined)?.[0]?.firstname

describeEachDialect(
  'Read cache (EXPERTDIR_READ_CACHE_MS)',
  (ctx) => {
    const profileUrl = (orgId: number, username: string) => `/v2/organization/${orgId}/expert/${username}`
    const read = (username: string) =>
      ctx.inject({ method: 'GET', url: profileUrl(ctx.tenant.orgId, username), headers: ctx.tenant.auth })

    test('a write through the app is seen by the next read at once', async () => {
      const username = await createExpert(ctx, ctx.tenant, { firstname: 'Cached' })
      const first = await read(username)
      assert.equal(first.statusCode, 200)
      assert.equal(firstnameOf(first), 'Cached')
      const update = await ctx.inject({
        method: 'PUT',
        url: profileUrl(ctx.tenant.orgId, username),
        headers: ctx.tenant.auth,
        payload: { firstname: 'Renamed' },
      })
      assert.equal(update.statusCode, 200)
      const second = await read(username)
      assert.equal(second.statusCode, 200)
      assert.equal(firstnameOf(second), 'Renamed')
      assert.notEqual(second.headers.etag, first.headers.etag)
      const stored = await ctx.testDatabase.database.db
        .selectFrom('experts')
        .select('firstname')
        .where('username', '=', username)
        .executeTakeFirstOrThrow()
      assert.equal(stored.firstname, 'Renamed')
    })

    test('a change made outside the process shows once the cache time has passed', async () => {
      const username = await createExpert(ctx, ctx.tenant, { firstname: 'Before' })
      assert.equal((await read(username)).statusCode, 200)
      await ctx.testDatabase.database.db
        .updateTable('experts')
        .set({ firstname: 'After' })
        .where('username', '=', username)
        .execute()
      const cached = await read(username)
      assert.equal(cached.statusCode, 200)
      assert.equal(firstnameOf(cached), 'Before')
      ctx.clock.advance(TTL)
      const fresh = await read(username)
      assert.equal(fresh.statusCode, 200)
      assert.equal(firstnameOf(fresh), 'After')
    })

    test('a cached read keeps its ETag, answers If-None-Match with 304 and still needs a valid token', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const first = await read(username)
      const second = await read(username)
      assert.equal(second.statusCode, 200)
      assert.equal(second.body, first.body)
      assert.equal(second.headers.etag, first.headers.etag)
      assert.equal(second.headers['cache-control'], 'private, no-cache')
      assert.match(String(second.headers['content-type']), /^application\/json/)
      const revalidated = await ctx.inject({
        method: 'GET',
        url: profileUrl(ctx.tenant.orgId, username),
        headers: { ...ctx.tenant.auth, 'if-none-match': String(first.headers.etag) },
      })
      assert.equal(revalidated.statusCode, 304)
      assert.equal(revalidated.body, '')
      const anonymous = await ctx.inject({ method: 'GET', url: profileUrl(ctx.tenant.orgId, username) })
      assert.equal(anonymous.statusCode, 401)
      assert.equal(envelope(anonymous).success, false)
      const otherTenant = await ctx.inject({
        method: 'GET',
        url: profileUrl(ctx.tenant.orgId, username),
        headers: ctx.other.auth,
      })
      assert.equal(otherTenant.statusCode, 403)
      assert.equal(envelope(otherTenant).error?.code, 'forbidden')
    })
  },
  { config: { readCacheMs: TTL } },
)
