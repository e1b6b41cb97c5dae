import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import type { Browser } from 'playwright-core'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import { describeEachDialect } from './helpers/harness.js'

const HOST = 'docs.example.test'
const skip = await browserSkip()

/**
 * The trial's blank `/docs`: served over plain HTTP under a real host name (not localhost, which
 * browsers treat as secure), the page must load its scripts and render the operations.
 */
describeEachDialect('the /docs page in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''

  before(async () => {
    if (skip) return
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = ctx.app.server.address() as AddressInfo
    origin = `http://${HOST}:${port}`
    browser = await launchBrowser([HOST])
  })
  after(async () => {
    await browser?.close()
  })

  test(`renders its operations over plain HTTP on ${HOST}`, { skip }, async () => {
    assert.ok(browser)
    const page = await browser.newPage()
    const failed: string[] = []
    page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`))
    try {
      const response = await page.goto(`${origin}/docs`)
      assert.equal(response?.status(), 200)
      // swagger-ui renders the operations in view (a virtual list): the first tags' are enough.
      await page
        .getByRole('button', { name: /Create an access token/ })
        .waitFor({ state: 'visible', timeout: 20_000 })
      assert.ok(await page.getByRole('button', { name: /The database answers/ }).isVisible())
      assert.ok(await page.getByRole('heading', { name: /^experts/ }).isVisible())
      assert.ok(await page.getByRole('button', { name: 'Authorize' }).isVisible())
      assert.deepEqual(failed, [], 'every script and style loaded')
      assert.ok(page.url().startsWith(`${origin}/docs`), 'the page stayed on plain HTTP')
    } finally {
      await page.close()
    }
  })
})
