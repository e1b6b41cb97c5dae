import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import type { InjectOptions } from 'fastify'
import { createClient } from '../src/auth/clients.js'
import { formatScopes, grants, SCOPES, type Scope } from '../src/auth/scopes.js'
import { present } from './helpers/checked.js'
import { describeEachDialect, envelope, requestToken, type TestContext } from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'
import { personToken } from './helpers/people.js'
import { PROTECTED_ROUTES } from './helpers/protected-routes.js'
import { withoutContactDetails } from './helpers/public-view.js'

const DAY = 24 * 3600 * 1000

function withToken(request: InjectOptions, token?: string): InjectOptions {
  const authorization = token === undefined ? {} : { authorization: `Bearer ${token}` }
  return { ...request, headers: { ...request.headers, ...authorization } }
}

async function expectStatus(ctx: TestContext, request: InjectOptions, status: number, code: string) {
  const response = await ctx.inject(request)
  assert.equal(response.statusCode, status, `${request.method} ${request.url}: ${response.body}`)
  assert.equal(envelope(response).success, false)
  assert.equal(envelope(response).error?.code, code)
  return response
}

/**
 * Routes outside the bearer check: health, the token endpoints, the OpenAPI document and its UI, stored
 * media, the sign-in routes under /auth (cookie sessions: test/sessions.test.ts), the dashboard's
 * static app under /admin (test/dashboard-serving.test.ts), and the public directory's pages (whatever
 * the method: their 405 pages too) and robots.txt (test/directory.test.ts).
 */
const PUBLIC =
  /^((GET|HEAD|POST|OPTIONS) \/(healthz|readyz|oauth\/|v2\/oauth\/|v2\/openapi\.json|docs|metrics$|\.well-known\/|media\/|auth\/|admin(\/|$)|robots\.txt|\*)|[A-Z-]+ \/directory\/)/

/** Answers 404 to every request (an inquiry kind that does not exist): test/inquiry-kinds.test.ts covers it. */
const ALWAYS_404 = new Set(['POST /v2/organization/:corporation/inquiry/:id'])

/**
 * Protected by the bearer check but not shaped like the API's routes: the MCP server answers JSON-RPC,
 * has no `:corporation` (the organization is the token's), needs a scope per tool rather than per
 * route, and adds `resource_metadata` to its challenges. test/mcp.test.ts covers each case of this
 * suite for it: no token, malformed and unknown tokens, scopes, another organization's records.
 */
const OWN_SUITE = new Set(['POST /mcp'])

/**
 * `request` (built for `built`, a route of the same entry) sent to `route`: each `:param` of the route
 * takes the segment at its place in the built URL, literal segments come from the route. So an entry
 * that covers many routes of one shape (every profile section) is tried on each of them.
 */
function onRoute(route: string, request: InjectOptions): InjectOptions {
  const [path = '', query] = String(request.url).split('?')
  const built = path.split('/')
  const segments = route
    .replace(/^[A-Z]+ /, '')
    .split('/')
    .map((segment, i) => (segment.startsWith(':') ? (built[i] ?? segment) : segment))
  return { ...request, url: segments.join('/') + (query === undefined ? '' : `?${query}`) }
}

describeEachDialect(
  'shared security suite: every protected route',
  (ctx) => {
    /** For each scope, a token holding only it and one holding every other scope. */
    const only: Partial<Record<Scope, string>> = {}
    const allBut: Partial<Record<Scope, string>> = {}
    /** A token of a client revoked after it was issued (one for every route: a token costs an scrypt). */
    let revokedClientToken: string
    /** An owner's dashboard token: what an `ownerOnly` route's control cases use. */
    let ownerToken: string
    /** The token a route's control case succeeds with: the organization's client, or its owner. */
    const controlToken = (route: { ownerOnly?: true }) => (route.ownerOnly ? ownerToken : ctx.tenant.token)
    before(async () => {
      ownerToken = (await personToken(ctx, ctx.tenant.orgId, 'owner')).token
      const { db } = ctx.testDatabase.database
      const everyScope = await createClient(db, ctx.tenant.orgId, 'every scope', ctx.clock.now(), SCOPES)
      const client = await createClient(db, ctx.tenant.orgId, 'to revoke', ctx.clock.now())
      revokedClientToken = await requestToken(ctx.app, client)
      await db
        .updateTable('clients')
        .set({ revoked_at: ctx.clock.now() })
        .where('client_id', '=', client.client_id)
        .execute()
      for (const scope of SCOPES) {
        only[scope] = await scopedToken(ctx.app, everyScope, scope)
        // Every scope that does not grant this one (`read` grants `read:public` as well).
        allBut[scope] = await scopedToken(
          ctx.app,
          everyScope,
          formatScopes(SCOPES.filter((other) => !grants([other], scope))),
        )
      }
    })

    test('a read:public token on every GET route of the route table: the same as read on what the public may see, 404 on the rest, 403 on routes that are not for it', async () => {
      const getRoutes = ctx.routes.filter(
        ({ route, config }) => route.startsWith('GET ') && !config.methodFallback && !PUBLIC.test(route),
      )
      assert.ok(getRoutes.length > 50, 'the harness collected the routes')
      for (const { route, config } of getRoutes) {
        const entry = PROTECTED_ROUTES.find((candidate) => candidate.covers.includes(route))
        assert.ok(entry, `${route} has an entry in test/helpers/protected-routes.ts`)
        const request = onRoute(route, await entry.build(ctx, ctx.tenant.orgId, ctx.tenant))
        const asPublic = await ctx.inject(withToken(request, present(only['read:public'])))
        if (config.scope !== 'read:public') {
          assert.equal(asPublic.statusCode, 403, `${route}: ${asPublic.body}`)
          assert.equal(envelope(asPublic).error?.code, 'insufficient_scope', route)
          continue
        }
        const asReader = await ctx.inject(withToken(request, only.read))
        assert.equal(asPublic.statusCode, asReader.statusCode, `${route}: ${asPublic.body}`)
        if (!entry.record) {
          assert.equal(asPublic.statusCode, 200, `${route}: ${asPublic.body}`)
          continue
        }
        if (asReader.statusCode === 200)
          assert.deepEqual(
            asPublic.json(),
            withoutContactDetails(asReader.json()),
            `${route}: the same document, less the expert's direct contact details`,
          )
        assert.ok(entry.hidden, `${entry.name} addresses a record: give its entry a hidden() builder`)
        for (const hidden of await entry.hidden(ctx, ctx.tenant.orgId, ctx.tenant)) {
          const target = onRoute(route, hidden)
          const hiddenAsPublic = await ctx.inject(withToken(target, present(only['read:public'])))
          assert.equal(hiddenAsPublic.statusCode, 404, `${route} ${target.url}: ${hiddenAsPublic.body}`)
          assert.equal(envelope(hiddenAsPublic).error?.code, 'not_found')
          if (target.url === hidden.url) {
            const control = await ctx.inject(withToken(target, only.read))
            assert.equal(control.statusCode, 200, `${route} ${target.url} with read: ${control.body}`)
          }
        }
      }
    })

    test('every registered protected route has an entry in the suite (test/helpers/protected-routes.ts)', () => {
      const covered = new Set(PROTECTED_ROUTES.flatMap((route) => route.covers))
      const registered = ctx.routes.filter(
        ({ route, config }) =>
          !config.methodFallback &&
          !route.startsWith('HEAD ') &&
          !PUBLIC.test(route) &&
          !ALWAYS_404.has(route) &&
          !OWN_SUITE.has(route),
      )
      assert.ok(registered.length > 50, 'the harness collected the routes')
      const missing = registered.map(({ route }) => route).filter((route) => !covered.has(route))
      assert.deepEqual(missing, [], 'add an entry to PROTECTED_ROUTES for each of these routes')
      const unknown = [...covered].filter((route) => !registered.some((r) => r.route === route))
      assert.deepEqual(unknown, [], 'entries for routes that do not exist')
    })

    for (const route of PROTECTED_ROUTES) {
      test(`${route.name} needs the ${route.scope} scope: a token with only it succeeds`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        const response = await ctx.inject(withToken(request, present(only[route.scope])))
        if (route.ownerOnly) {
          // Single sign-on's writes: the scope lets the request in, only an owner person may make it.
          assert.equal(response.statusCode, 403, response.body)
          assert.equal(envelope(response).error?.code, 'forbidden')
          assert.match(envelope(response).error?.message ?? '', /Only an owner/)
          return
        }
        assert.equal(response.statusCode, route.success ?? 200, response.body)
      })

      test(`${route.name} with a token lacking ${route.scope} is 403 insufficient_scope and does nothing`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        const response = await expectStatus(
          ctx,
          withToken(request, present(allBut[route.scope])),
          403,
          'insufficient_scope',
        )
        assert.equal(
          response.headers['www-authenticate'],
          `Bearer realm="expertdir", error="insufficient_scope", scope="${route.scope}"`,
        )
        assert.match(envelope(response).error?.message ?? '', new RegExp(route.scope))
        const again = await ctx.inject(withToken(request, controlToken(route)))
        assert.equal(
          again.statusCode,
          route.success ?? 200,
          `the refused request changed nothing: ${again.body}`,
        )
      })

      test(`${route.name} succeeds with the organization's own token (control case)`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        const response = await ctx.inject(withToken(request, controlToken(route)))
        assert.equal(response.statusCode, route.success ?? 200, response.body)
        if (route.file) assert.match(String(response.headers['content-type']), new RegExp(`^${route.file}`))
        else assert.equal(envelope(response).success, true)
      })

      test(`${route.name} without a token is 401 unauthorized with WWW-Authenticate`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        const response = await expectStatus(ctx, withToken(request), 401, 'unauthorized')
        assert.equal(response.headers['www-authenticate'], 'Bearer realm="expertdir"')
      })

      test(`${route.name} with an unknown or malformed token is 401 invalid_token`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        for (const token of ['not-a-real-token-at-all', 'bad token with spaces', '']) {
          const response = await expectStatus(ctx, withToken(request, token), 401, 'invalid_token')
          assert.equal(
            response.headers['www-authenticate'],
            'Bearer realm="expertdir", error="invalid_token"',
          )
        }
      })

      test(`${route.name} with an expired token is 401 invalid_token`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        ctx.clock.advance(30 * DAY)
        try {
          await expectStatus(ctx, withToken(request, ctx.tenant.token), 401, 'invalid_token')
        } finally {
          ctx.clock.advance(-30 * DAY)
        }
      })

      test(`${route.name} with a token of a revoked client is 401 invalid_token`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        await expectStatus(ctx, withToken(request, revokedClientToken), 401, 'invalid_token')
      })

      test(`${route.name} on another organization's :corporation is 403 forbidden`, async () => {
        const request = await route.build(ctx, ctx.other.orgId, ctx.other)
        await expectStatus(ctx, withToken(request, ctx.tenant.token), 403, 'forbidden')
      })

      if (route.record) {
        test(`${route.name} of another organization's record is 404, as if it did not exist`, async () => {
          const foreign = await route.build(ctx, ctx.tenant.orgId, ctx.other)
          const response = await expectStatus(ctx, withToken(foreign, ctx.tenant.token), 404, 'not_found')
          const missing = await ctx.inject(
            withToken(
              {
                ...foreign,
                url: foreign.url
                  ?.toString()
                  .replace(/[^/]+$/, (last) =>
                    /^\d+$/.test(last) ? '9007199254740991' : 'no-such-record-404',
                  ),
              },
              ctx.tenant.token,
            ),
          )
          assert.equal(missing.statusCode, 404)
          assert.equal(envelope(missing).error?.code, envelope(response).error?.code)
        })
      }
    }
  },
  // The suite sends far more than a minute's API allowance with one token; the limits have their own tests.
  { config: { rateLimitApi: 0 } },
)
