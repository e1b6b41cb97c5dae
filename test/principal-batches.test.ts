import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { createClient, revokeClient } from '../src/auth/clients.js'
import { principalBatches } from '../src/auth/principal-batches.js'
import { hashToken } from '../src/auth/secrets.js'
import { postgresPoolOf } from '../src/db/database.js'
import { createExpert, describeEachDialect, requestToken, type TestContext } from './helpers/harness.js'

/**
 * Token checks of concurrent requests (src/auth/principal-batches.ts: on PostgreSQL they share
 * statements): each request is answered exactly as it is alone, whatever the others in its statement.
 */
describeEachDialect(
  'concurrent token checks',
  (ctx: TestContext) => {
    const org = () => ctx.tenant.orgId
    const tokens: Record<string, string> = {}
    const urls: string[] = []

    before(async () => {
      const { db } = ctx.testDatabase.database
      const now = ctx.clock.now()
      tokens.public = await requestToken(
        ctx.app,
        await createClient(db, org(), 'public', now, ['read:public']),
      )
      const revoked = await createClient(db, org(), 'revoked', now, ['read'])
      tokens.revoked = await requestToken(ctx.app, revoked)
      await revokeClient(db, revoked.client_id, now)
      tokens.read = ctx.tenant.token
      tokens.otherOrganization = ctx.other.token
      tokens.unknown = 'not-a-token'
      const expert = await createExpert(ctx, ctx.tenant, { firstname: 'Ada', lastname: 'Batch' })
      const post = await ctx.inject({
        method: 'POST',
        url: `/v2/spotlight/${org()}`,
        headers: ctx.tenant.auth,
        payload: { title: 'Batched', html: '<p>Together.</p>', published: 1, tagged: [expert] },
      })
      assert.equal(post.statusCode, 200, post.body)
      urls.push(
        `/v2/organization/${org()}/expert/${expert}`,
        `/v2/organization/${org()}/expert/nobody-here`,
        `/v2/spotlight/${org()}/${post.json().data.id}`,
        `/v2/qanda/${org()}/999999`,
        `/v2/organization/${org()}/expert?q=batch`,
        `/v2/organization/${org()}/staff`,
      )
    })

    const read = (url: string, token: string) =>
      ctx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })

    test('concurrent requests get the answers they get one at a time, in fewer statements', async () => {
      const cases = urls.flatMap((url) =>
        Object.entries(tokens).map(([name, token]) => ({ url, name, token })),
      )
      const alone: LightMyRequestResponse[] = []
      for (const { url, token } of cases) alone.push(await read(url, token))
      assert.ok(
        alone.some((response) => response.statusCode === 200) &&
          alone.some((response) => response.statusCode === 401) &&
          alone.some((response) => response.statusCode === 403) &&
          alone.some((response) => response.statusCode === 404),
        'the cases cover answers, unknown tokens, other organizations and missing records',
      )

      const pool = postgresPoolOf(ctx.testDatabase.database.db)
      let statements = 0
      const query = pool?.query
      if (pool && query)
        pool.query = ((...args: Parameters<typeof query>) => {
          if ((args[0] as { name?: string }).name === 'expertdir_principals') statements++
          return Reflect.apply(query, pool, args)
        }) as typeof query
      try {
        const rounds = 4
        const together = await Promise.all(
          Array.from({ length: rounds }, () => cases.map(({ url, token }) => read(url, token))).flat(),
        )
        together.forEach((response, i) => {
          const expected = alone[i % cases.length]
          const { url, name } = cases[i % cases.length] ?? {}
          assert.equal(response.statusCode, expected?.statusCode, `${url} with the ${name} token`)
          assert.equal(response.body, expected?.body, `${url} with the ${name} token`)
        })
        if (pool)
          assert.ok(
            statements > 0 && statements < together.length,
            `${statements} token statements for ${together.length} requests`,
          )
      } finally {
        if (pool && query) pool.query = query
      }
    })

    test('a username the route refuses (a NUL byte) is a 400, and the requests checked with it are answered', async () => {
      const bad = ['%00', 'a%00b', '%C3%A9', 'x'.repeat(65)].map(
        (name) => `/v2/organization/${org()}/expert/${name}`,
      )
      const good = urls[0] ?? ''
      const alone = await read(good, tokens.read ?? '')
      const answers = await Promise.all([
        ...bad.flatMap((url) => [
          read(url, tokens.read ?? ''),
          read(`${url}/biography`, tokens.public ?? ''),
        ]),
        read(good, tokens.read ?? ''),
      ])
      const together = answers.pop()
      for (const response of answers) {
        assert.equal(response.statusCode, 400, response.body)
        assert.equal(response.json().error.code, 'validation_failed')
      }
      assert.equal(together?.statusCode, alone.statusCode, together?.body)
      assert.equal(together?.body, alone.body)
    })

    test('the lookups of one turn of the event loop share one statement, even with slots free', async (t) => {
      const pool = postgresPoolOf(ctx.testDatabase.database.db)
      if (!pool) return t.skip('PostgreSQL only: SQLite checks tokens in the process')
      let statements = 0
      const query = pool.query
      pool.query = ((...args: Parameters<typeof query>) => {
        statements++
        return Reflect.apply(query, pool, args)
      }) as typeof query
      try {
        const lookups = principalBatches(pool, 5)
        const time = ctx.clock.now()
        const hashes = [tokens.read, tokens.unknown, tokens.revoked, tokens.public].map((token = '') =>
          hashToken(token),
        )
        const rows = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            lookups({ tokenHash: hashes[i % 4] ?? '', time, target: undefined }),
          ),
        )
        assert.equal(statements, 1, 'twenty lookups made in one turn: one statement')
        assert.deepEqual(
          rows.slice(0, 4).map((row) => row !== undefined),
          [true, false, false, true],
          'a live token, an unknown one, a revoked client, a live one',
        )
      } finally {
        pool.query = query
      }
    })
  },
  { config: { rateLimitApi: 0 } },
)
