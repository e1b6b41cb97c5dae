import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { before, describe, test } from 'node:test'
import { loadConfig } from '../src/config.js'
import { createExpert, describeEachDialect, envelope } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

const SITE = 'https://www.example.edu'
const OTHER_SITE = 'http://localhost:5173'
const STRANGER = 'https://evil.example'

function preflight(origin: string, method = 'POST') {
  return {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'authorization, content-type, idempotency-key',
  }
}

const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((name) => name.startsWith('access-control-'))

describeEachDialect(
  'CORS for the configured browser origins',
  (ctx) => {
    const expertsUrl = () => `/v2/organization/${ctx.tenant.orgId}/expert`

    test('a preflight from a listed origin is 204 with the allowed methods and headers, no token needed', async () => {
      for (const origin of [SITE, OTHER_SITE]) {
        for (const url of [expertsUrl(), `${expertsUrl()}/someone`, '/v2/oauth/token', '/mcp']) {
          const response = await ctx.inject({ method: 'OPTIONS', url, headers: preflight(origin) })
          assert.equal(response.statusCode, 204, `${url}: ${response.body}`)
          assert.equal(response.body, '')
          assert.equal(response.headers['access-control-allow-origin'], origin)
          assert.equal(
            response.headers['access-control-allow-headers'],
            'Authorization, Content-Type, Idempotency-Key, If-None-Match, Mcp-Protocol-Version',
          )
          assert.equal(
            response.headers['access-control-allow-methods'],
            'GET, HEAD, POST, PUT, PATCH, DELETE',
          )
          assert.equal(response.headers['access-control-allow-credentials'], undefined)
          assert.match(String(response.headers.vary), /Origin/)
          assert.ok(response.headers['x-request-id'])
        }
      }
    })

    test('a preflight from another origin gets no CORS headers: OPTIONS is 405 with Allow, as without CORS', async () => {
      for (const origin of [STRANGER, `${SITE}.evil.example`, 'null']) {
        const response = await ctx.inject({
          method: 'OPTIONS',
          url: expertsUrl(),
          headers: preflight(origin),
        })
        assert.equal(response.statusCode, 405)
        assert.equal(envelope(response).error?.code, 'method_not_allowed')
        assert.equal(response.headers.allow, 'GET, HEAD, POST')
        assert.deepEqual(corsHeaders(response.headers), [], origin)
      }
    })

    test('a plain OPTIONS (not a preflight) from a listed origin is still 405 with Allow', async () => {
      const response = await ctx.inject({ method: 'OPTIONS', url: expertsUrl(), headers: { origin: SITE } })
      assert.equal(response.statusCode, 405)
      assert.equal(response.headers.allow, 'GET, HEAD, POST')
    })

    test('a real response to a listed origin exposes ETag, X-Request-Id, RateLimit-* and Retry-After', async () => {
      const username = await createExpert(ctx, ctx.tenant)
      const response = await ctx.inject({
        method: 'GET',
        url: `${expertsUrl()}/${username}`,
        headers: { ...ctx.tenant.auth, origin: SITE },
      })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['access-control-allow-origin'], SITE)
      const exposed = String(response.headers['access-control-expose-headers'])
        .split(',')
        .map((name) => name.trim().toLowerCase())
      for (const name of [
        'etag',
        'x-request-id',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
      ]) {
        assert.ok(exposed.includes(name), `${name} exposed`)
      }
      for (const name of [
        'etag',
        'x-request-id',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
      ]) {
        assert.ok(response.headers[name] !== undefined, `${name} sent`)
      }
    })

    test('errors to a listed origin carry the CORS headers too, so the page can read them', async () => {
      const response = await ctx.inject({
        method: 'GET',
        url: `${expertsUrl()}/x`,
        headers: { origin: SITE },
      })
      assert.equal(response.statusCode, 401)
      assert.equal(response.headers['access-control-allow-origin'], SITE)
    })

    test('a response to another origin, or to no origin, has no CORS headers', async () => {
      for (const headers of [{ origin: STRANGER }, {}]) {
        const response = await ctx.inject({
          method: 'GET',
          url: `${expertsUrl()}/nobody`,
          headers: { ...ctx.tenant.auth, ...headers },
        })
        assert.equal(response.statusCode, 404)
        assert.deepEqual(corsHeaders(response.headers), [])
      }
    })
  },
  { config: { corsOrigins: [SITE, OTHER_SITE] } },
)

describeEachDialect('CORS off (the default) and unusual methods', (ctx) => {
  let port = 0
  before(async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    port = listeningPort(ctx.app.server)
  })

  /** Over a real socket: `fetch` refuses to send TRACE, and inject does not go through Node's parser. */
  function send(method: string, path: string): Promise<{ status: number; allow?: string; code?: string }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, method, path }, (response) => {
        let body = ''
        response.on('data', (chunk) => {
          body += chunk
        })
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            allow: response.headers.allow,
            code: body ? JSON.parse(body).error?.code : undefined,
          }),
        )
      })
      request.on('error', reject)
      request.end()
    })
  }

  test('no origin is allowed by default: a preflight gets no CORS headers', async () => {
    const response = await ctx.inject({
      method: 'OPTIONS',
      url: `/v2/organization/${ctx.tenant.orgId}/expert`,
      headers: preflight(SITE),
    })
    assert.equal(response.statusCode, 405)
    assert.deepEqual(corsHeaders(response.headers), [])
  })

  test('an unusual method on a known path is 405 with Allow', async () => {
    for (const method of ['QUERY', 'TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'M-SEARCH', 'PATCH']) {
      const sent = await send(method, `/v2/organization/${ctx.tenant.orgId}/expert/someone`)
      assert.deepEqual(
        sent,
        { status: 405, allow: 'DELETE, GET, HEAD, PUT', code: 'method_not_allowed' },
        method,
      )
      const token = await send(method, '/oauth/token')
      assert.equal(token.status, 405, method)
      assert.equal(token.allow, 'POST')
    }
  })

  test('an unusual method on an unknown path is 404, like any other method there', async () => {
    for (const method of ['QUERY', 'TRACE', 'PROPFIND']) {
      assert.deepEqual(await send(method, '/v2/nowhere'), {
        status: 404,
        allow: undefined,
        code: 'not_found',
      })
    }
  })
})

describe('configuration of CORS origins and the public URL', () => {
  test('EXPERTDIR_CORS_ORIGINS is a comma-separated list; a final slash is dropped', () => {
    const config = loadConfig(
      {},
      { EXPERTDIR_CORS_ORIGINS: ` ${SITE}/ ,${OTHER_SITE},`, EXPERTDIR_PUBLIC_URL: 'https://x.example/api/' },
    )
    assert.deepEqual(config.corsOrigins, [SITE, OTHER_SITE])
    assert.equal(config.publicUrl, 'https://x.example/api')
    assert.deepEqual(loadConfig({}, {}).corsOrigins, [])
    assert.equal(loadConfig({}, {}).publicUrl, undefined)
  })

  test('an origin with a path, or a public URL that is not http(s), is refused at start', () => {
    assert.throws(
      () => loadConfig({}, { EXPERTDIR_CORS_ORIGINS: 'https://a.example/page' }),
      /EXPERTDIR_CORS_ORIGINS/,
    )
    assert.throws(() => loadConfig({}, { EXPERTDIR_CORS_ORIGINS: 'a.example' }), /EXPERTDIR_CORS_ORIGINS/)
    assert.throws(() => loadConfig({}, { EXPERTDIR_PUBLIC_URL: 'ftp://x.example' }), /EXPERTDIR_PUBLIC_URL/)
  })
})
