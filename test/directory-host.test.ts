import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { describeEachDialect, type TestContext } from './helpers/harness.js'

/** The names a response's `Vary` header lists, lower-cased. */
const varied = (header: unknown) =>
  String(header ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')

function enableDirectory(ctx: TestContext) {
  before(async () => {
    const enable = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}`,
      headers: ctx.tenant.auth,
      payload: { public_directory: 1 },
    })
    assert.equal(enable.statusCode, 200, enable.body)
  })
}

const pages = (orgId: number) => [`/directory/${orgId}/`, `/directory/${orgId}/sitemap.xml`, '/robots.txt']

describeEachDialect('public directory without a public URL: URLs from Host, and Vary: Host', (ctx) => {
  enableDirectory(ctx)

  test('pages, the sitemap and robots.txt name the request’s host and say Vary: Host', async () => {
    for (const url of pages(ctx.tenant.orgId)) {
      const bodies = []
      for (const host of ['one.example', 'two.example']) {
        const response = await ctx.inject({ method: 'GET', url, headers: { host } })
        assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`)
        assert.ok(varied(response.headers.vary).includes('host'), `${url} varies on Host`)
        assert.ok(response.body.includes(`http://${host}/`), `${url} names ${host}`)
        bodies.push(response.body)
      }
      assert.notEqual(bodies[0], bodies[1])
    }
  })

  test('a page not found says Vary: Host too', async () => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/directory/${ctx.tenant.orgId}/nobody-at-all`,
      headers: { host: 'one.example' },
    })
    assert.equal(response.statusCode, 404)
    assert.ok(varied(response.headers.vary).includes('host'))
  })
})

describeEachDialect(
  'public directory with a public URL: one set of URLs, no Vary: Host',
  (ctx) => {
    enableDirectory(ctx)

    test('pages, the sitemap and robots.txt name the public URL whatever the Host', async () => {
      for (const url of pages(ctx.tenant.orgId)) {
        const response = await ctx.inject({ method: 'GET', url, headers: { host: 'one.example' } })
        assert.equal(response.statusCode, 200, url)
        assert.ok(!varied(response.headers.vary).includes('host'), `${url} does not vary on Host`)
        assert.ok(response.body.includes('https://experts.example.edu/'), url)
        assert.ok(!response.body.includes('one.example'), url)
      }
    })
  },
  { config: { publicUrl: 'https://experts.example.edu' } },
)
