import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, closeSharedBrowsers, sharedBrowser } from './helpers/browser.js'
import { describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { TlsProxy } from './helpers/tls-proxy.js'

const HOST = 'docs.example.test'
const skip = await browserSkip()

/**
 * Opens `/docs` at `origin` and checks that swagger-ui ran: its operations are on the page and every
 * script and style loaded. Returns the page's Content-Security-Policy.
 */
async function assertDocsRender(browser: Browser, origin: string): Promise<string> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true })
  const page: Page = await context.newPage()
  const failed: string[] = []
  page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`))
  try {
    const response = await page.goto(`${origin}/docs`)
    assert.equal(response?.status(), 200)
    // swagger-ui renders the operations in view (a virtual list): the first tags' are enough. The bound
    // only ends a hang: on a machine the suite keeps busy, rendering the whole document takes a while.
    await page
      .getByRole('button', { name: /Create an access token/ })
      .waitFor({ state: 'visible', timeout: 120_000 })
    assert.ok(await page.getByRole('button', { name: /The database answers/ }).isVisible())
    assert.ok(await page.getByRole('heading', { name: /^auth/ }).isVisible())
    assert.ok(await page.getByRole('button', { name: 'Authorize' }).isVisible())
    assert.deepEqual(failed, [], 'every script and style loaded')
    assert.ok(page.url().startsWith(`${origin}/docs`), `the page stayed at ${origin}`)
    return (await response?.headerValue('content-security-policy')) ?? ''
  } finally {
    await context.close()
  }
}

after(closeSharedBrowsers)

/**
 * The trial's blank `/docs`: served over plain HTTP under a real host name (not localhost, which
 * browsers treat as secure), the page must load its scripts and render the operations; behind a TLS
 * proxy it keeps working, and there the browser is asked to upgrade insecure requests.
 */
describeEachDialect(
  'the /docs page in a real browser',
  (ctx) => {
    let browser: Browser | undefined
    let proxy: TlsProxy | undefined
    let port = 0

    before(async () => {
      if (skip) return
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      port = listeningPort(ctx.app.server)
      proxy = await TlsProxy.start(port, HOST)
      browser = await sharedBrowser([HOST])
    })
    after(async () => {
      await proxy?.close()
    })

    test(`renders its operations over plain HTTP on ${HOST}`, { skip }, async () => {
      assert.ok(browser)
      const policy = await assertDocsRender(browser, `http://${HOST}:${port}`)
      assert.ok(!policy.includes('upgrade-insecure-requests'), policy)
    })

    test(`renders behind a TLS proxy (https://${HOST}, X-Forwarded-Proto: https)`, { skip }, async () => {
      assert.ok(browser && proxy)
      const policy = await assertDocsRender(browser, `https://${HOST}:${proxy.port}`)
      assert.ok(policy.includes('upgrade-insecure-requests'), policy)
    })
  },
  { config: { trustProxy: '127.0.0.1' } },
)

/** The reference as the product's: its title and logo, no policy violation, and a link to an operation that opens it. */
describeEachDialect('the /docs page as the product’s reference', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  before(async () => {
    if (skip) return
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await sharedBrowser([])
  })

  test('is titled and branded as the product, and a deep link opens its operation', {
    skip,
  }, async () => {
    assert.ok(browser)
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    try {
      await page.goto(`${origin}/docs`)
      await page.getByRole('button', { name: /Create an access token/ }).waitFor({ timeout: 120_000 })
      assert.equal(await page.title(), 'Expert directory API reference')
      const logo = page.locator('.topbar img')
      await page.waitForFunction(
        `document.querySelector('.topbar img')?.src.startsWith('data:image/svg+xml')`,
      )
      assert.match(
        (await logo.getAttribute('src')) ?? '',
        /^data:image\/svg\+xml;base64,/,
        'the product’s mark',
      )

      // A link to one operation, as someone would paste it: it opens the operation and scrolls to it.
      await page.goto('about:blank')
      await page.goto(`${origin}/docs#/system/getReadiness`)
      await page.locator('#operations-system-getReadiness .opblock-body').waitFor({ timeout: 120_000 })
      await page.waitForFunction(
        `(() => {
          const box = document.querySelector('#operations-system-getReadiness')?.getBoundingClientRect()
          return box !== undefined && box.top >= -1 && box.top < window.innerHeight / 2
        })()`,
        undefined,
        { timeout: 30_000 },
      )
      assert.deepEqual(problems, [])
    } finally {
      await context.close()
    }
  })
})
