import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import Fastify from 'fastify'
import { databasePrincipals, requireBearer } from '../src/auth/bearer.js'
import { createClient } from '../src/auth/clients.js'
import { grants, type Scope } from '../src/auth/scopes.js'
import { hashToken } from '../src/auth/secrets.js'
import { present } from './helpers/checked.js'
import { describeEachDialect, envelope } from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'
import { PROTECTED_ROUTES } from './helpers/protected-routes.js'

/** Clients limited the way CONTRACT §13 intends, tried on every protected route. */
const LIMITED_CLIENTS: { name: string; scopes: Scope[] }[] = [
  { name: 'a read-only client', scopes: ['read'] },
  { name: 'an inquiries-only client', scopes: ['inquiries:create'] },
  { name: "a website's backend (read inquiries:create)", scopes: ['read', 'inquiries:create'] },
  { name: 'an editor without inquiry access (read write)', scopes: ['read', 'write'] },
  {
    name: "a public website's backend (read:public inquiries:create)",
    scopes: ['read:public', 'inquiries:create'],
  },
]

describeEachDialect('scopes on every route kind', (ctx) => {
  const tokens = new Map<string, string>()
  before(async () => {
    for (const limited of LIMITED_CLIENTS) {
      const { db } = ctx.testDatabase.database
      const client = await createClient(db, ctx.tenant.orgId, limited.name, ctx.clock.now(), limited.scopes)
      tokens.set(limited.name, await scopedToken(ctx.app, client))
    }
  })

  for (const limited of LIMITED_CLIENTS) {
    test(`${limited.name} may use exactly the routes of its scopes; the others are 403 insufficient_scope`, async () => {
      const token = present(tokens.get(limited.name))
      for (const route of PROTECTED_ROUTES) {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        const response = await ctx.inject({
          ...request,
          headers: { ...(request.headers ?? {}), authorization: `Bearer ${token}` },
        })
        if (grants(limited.scopes, route.scope)) {
          assert.equal(response.statusCode, route.success ?? 200, `${route.name}: ${response.body}`)
        } else {
          assert.equal(response.statusCode, 403, `${route.name}: ${response.body}`)
          assert.equal(envelope(response).error?.code, 'insufficient_scope', route.name)
          assert.equal(
            response.headers['www-authenticate'],
            `Bearer realm="expertdir", error="insufficient_scope", scope="${route.scope}"`,
          )
        }
      }
    })
  }

  test('a token’s scope change is honoured by the next check', async () => {
    const token = await scopedToken(ctx.app, ctx.tenant.client, 'read')
    const principals = databasePrincipals({ database: ctx.testDatabase.database, now: ctx.clock.now })
    assert.deepEqual((await principals.resolve(token))?.principal.scopes, ['read'])
    await ctx.testDatabase.database.db
      .updateTable('access_tokens')
      .set({ scope: 'read write' })
      .where('token_hash', '=', hashToken(token))
      .execute()
    assert.deepEqual((await principals.resolve(token))?.principal.scopes, ['read', 'write'])
  })
})

describe('every route behind the bearer check declares its scope', () => {
  const context = {
    principals: { resolve: async () => undefined },
    inquiryRecipient: async () => undefined,
    delegation: async () => false,
  }

  async function start(config: Record<string, unknown>) {
    const app = Fastify()
    await app.register(async (scope) => {
      requireBearer(scope, context)
      scope.get('/v2/example', { config }, async () => ({}))
    })
    try {
      await app.ready()
    } finally {
      await app.close()
    }
  }

  test('a route with no scope stops the app from starting, naming the route', async () => {
    await assert.rejects(start({}), /GET \/v2\/example needs an access token but declares no scope/)
  })

  test('a route with an unknown scope stops the app from starting', async () => {
    await assert.rejects(start({ scope: 'superuser' }), /declares no scope/)
  })

  test('a route with a known scope starts', async () => {
    await start({ scope: 'read' })
  })
})
