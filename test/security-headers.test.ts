import assert from 'node:assert/strict'
import { test } from 'node:test'
import { describeEachDialect } from './helpers/harness.js'

const UPGRADE = 'upgrade-insecure-requests'

/** `/docs` and an API response, asked for as `headers` say. */
async function responses(
  inject: (options: { method: 'GET'; url: string; headers: Record<string, string> }) => Promise<{
    statusCode: number
    headers: Record<string, unknown>
  }>,
  headers: Record<string, string> = {},
) {
  const docs = await inject({ method: 'GET', url: '/docs', headers })
  const api = await inject({ method: 'GET', url: '/healthz', headers })
  assert.equal(docs.statusCode, 200)
  assert.equal(api.statusCode, 200)
  return { docs: docs.headers, api: api.headers }
}

const csp = (headers: Record<string, unknown>) => String(headers['content-security-policy'] ?? '')

describeEachDialect('security headers over plain HTTP and HTTPS (no trusted proxy)', (ctx) => {
  test('a plain HTTP request gets no upgrade-insecure-requests and no HSTS, on /docs and the API', async () => {
    const { docs, api } = await responses((options) => ctx.inject(options))
    assert.match(csp(docs), /script-src 'self'/, 'the docs page keeps its own policy')
    assert.ok(!csp(docs).includes(UPGRADE), csp(docs))
    assert.match(csp(api), /default-src 'none'/, 'the API keeps its deny-all policy')
    assert.ok(!csp(api).includes(UPGRADE), csp(api))
    assert.equal(api['strict-transport-security'], undefined)
    assert.equal(api['x-content-type-options'], 'nosniff')
  })

  test('X-Forwarded-Proto from an untrusted address is not believed', async () => {
    const { docs, api } = await responses((options) => ctx.inject(options), {
      'x-forwarded-proto': 'https',
    })
    assert.ok(!csp(docs).includes(UPGRADE))
    assert.ok(!csp(api).includes(UPGRADE))
    assert.equal(api['strict-transport-security'], undefined)
  })
})

describeEachDialect(
  'security headers behind a trusted TLS proxy',
  (ctx) => {
    test('X-Forwarded-Proto: https from the trusted proxy gets upgrade-insecure-requests and HSTS', async () => {
      const { docs, api } = await responses(
        (options) => ctx.inject({ ...options, remoteAddress: '127.0.0.1' }),
        {
          'x-forwarded-proto': 'https',
        },
      )
      assert.match(csp(docs), /script-src 'self'/)
      assert.ok(csp(docs).includes(UPGRADE), csp(docs))
      assert.match(csp(api), /default-src 'none'/)
      assert.ok(csp(api).includes(UPGRADE), csp(api))
      assert.match(String(api['strict-transport-security']), /max-age=\d+/)
    })

    test('plain HTTP through the same proxy gets neither', async () => {
      const { docs, api } = await responses(
        (options) => ctx.inject({ ...options, remoteAddress: '127.0.0.1' }),
        {
          'x-forwarded-proto': 'http',
        },
      )
      assert.ok(!csp(docs).includes(UPGRADE))
      assert.ok(!csp(api).includes(UPGRADE))
      assert.equal(api['strict-transport-security'], undefined)
    })
  },
  { config: { trustProxy: '127.0.0.1' } },
)
