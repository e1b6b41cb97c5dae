import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { DASHBOARD_DIR } from '../src/dashboard/routes.js'
import { ensureDashboardBuilt } from './helpers/dashboard.js'
import { describeEachDialect } from './helpers/harness.js'

ensureDashboardBuilt()
const script = readdirSync(join(DASHBOARD_DIR, 'assets')).find((name) => name.endsWith('.js'))

/** How /admin/ is served (CONTRACT §15): the app's HTML for its routes, immutable assets, a real 404. */
describeEachDialect(
  'serving the dashboard at /admin/',
  (ctx) => {
    test('its routes get the app’s HTML, never cached, under a CSP without inline scripts', async () => {
      for (const url of ['/admin/', '/admin/experts', '/admin/experts/ada-okafor/anything']) {
        const response = await ctx.inject({ method: 'GET', url })
        assert.equal(response.statusCode, 200, url)
        assert.match(String(response.headers['content-type']), /^text\/html/)
        assert.equal(response.headers['cache-control'], 'no-cache')
        assert.match(response.body, /<div id="root"><\/div>/)
        assert.doesNotMatch(response.body, /<script>|<script type="module">[^<]/, 'no inline script')
        const csp = String(response.headers['content-security-policy'])
        assert.match(csp, /script-src 'self'(;|$)/)
        assert.match(csp, /frame-ancestors 'none'/)
        assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|upgrade-insecure-requests/)
      }
      const bare = await ctx.inject({ method: 'GET', url: '/admin' })
      assert.equal(bare.statusCode, 308)
      assert.equal(bare.headers.location, '/admin/')
    })

    test('hashed assets are immutable; a missing one is a 404 in the envelope, not the HTML', async () => {
      assert.ok(script, 'the build made a script')
      const asset = await ctx.inject({ method: 'GET', url: `/admin/assets/${script}` })
      assert.equal(asset.statusCode, 200)
      assert.match(String(asset.headers['content-type']), /javascript/)
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')

      for (const url of ['/admin/assets/index-missing.js', '/admin/assets/../../package.json']) {
        const missing = await ctx.inject({ method: 'GET', url })
        assert.equal(missing.statusCode, 404, url)
        assert.equal(missing.json().error.code, 'not_found')
      }
    })

    test('the page names the product and has an icon of its own', async () => {
      const html = (await ctx.inject({ method: 'GET', url: '/admin/' })).body
      assert.match(html, /<title>expertdir · dashboard<\/title>/)
      assert.match(html, /<link rel="icon" type="image\/svg\+xml" href="\/admin\/favicon.svg"/)
      const icon = await ctx.inject({ method: 'GET', url: '/admin/favicon.svg' })
      assert.equal(icon.statusCode, 200)
      assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/)
      assert.match(icon.body, /^<svg /)
    })

    test('over HTTPS (a trusted proxy says so) the CSP also upgrades insecure requests', async () => {
      const response = await ctx.inject({
        method: 'GET',
        url: '/admin/',
        headers: { 'x-forwarded-proto': 'https' },
        remoteAddress: '127.0.0.1',
      })
      assert.match(String(response.headers['content-security-policy']), /upgrade-insecure-requests/)
    })

    test('writes are refused with 405 and Allow', async () => {
      const response = await ctx.inject({ method: 'POST', url: '/admin/', payload: {} })
      assert.equal(response.statusCode, 405)
      assert.match(String(response.headers.allow), /GET/)
    })
  },
  { config: { trustProxy: '127.0.0.1' } },
)
