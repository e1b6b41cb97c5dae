import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import { present } from './helpers/checked.js'
import { assertAccessible, ensureDashboardBuilt, openPage, screenshot } from './helpers/dashboard.js'
import { createExpert, describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

/**
 * The profile editor's order and conflict handling in a real headless Chromium: elements moved with
 * the keyboard keep their new order after a reload, and a write based on a profile someone else
 * changed meanwhile is refused by the server (`If-Match`) and shown as a conflict.
 */
describeEachDialect('the profile editor in a real browser: order and conflicts', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let owner = { email: '', password: '' }

  const apiData = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) => {
    const response = await ctx.inject({
      method,
      url: `/v2/organization/${ctx.tenant.orgId}${path}`,
      headers: ctx.tenant.auth,
      ...(payload ? { payload } : {}),
    })
    assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`)
    return response.json().data
  }
  /** An expert with three articles, Rain, Heat and Wind; returns its username and their ids. */
  const expertWithArticles = async (firstname: string, lastname: string) => {
    const username = await createExpert(ctx, ctx.tenant, { firstname, lastname })
    const ids: number[] = []
    for (const title of ['Rain', 'Heat', 'Wind'])
      ids.push((await apiData('POST', `/expert/${username}/article`, { title })).id)
    return { username, ids }
  }
  const storedTitles = async (username: string) =>
    ((await apiData('GET', `/expert/${username}`)).article as { title: string }[]).map((a) => a.title)

  before(async () => {
    if (skip) return
    owner = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
  })

  async function withPage(run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) {
    assert.ok(browser)
    const opened = await openPage(browser, viewport)
    try {
      await run(opened.page)
      assert.deepEqual(opened.problems, [], 'no CSP violation or uncaught error')
    } finally {
      await opened.close()
    }
  }

  /** Signs in on the profile's page and opens its Article section. */
  async function openArticles(page: Page, username: string) {
    await page.goto(`${origin}/admin/experts/${username}`)
    await page.getByLabel('Email').fill(owner.email)
    await page.getByLabel('Password').fill(owner.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Article', exact: true }).click()
    await page.getByRole('button', { name: 'Move down: Rain' }).waitFor()
  }

  /** The articles as the page lists them, by their Move up buttons' names. */
  const shownTitles = async (page: Page) =>
    (
      await page
        .getByRole('button', { name: /^Move up: / })
        .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-label')))
    ).map((label) => String(label).replace(/^Move up: /, ''))

  const focusedLabel = (page: Page) => page.evaluate('document.activeElement?.getAttribute("aria-label")')

  test('moves an element with the keyboard, announced, focus kept, and the order holds after a reload', {
    skip,
  }, async () => {
    const { username } = await expertWithArticles('Ada', 'Order')
    await withPage(
      async (page) => {
        await openArticles(page, username)
        await page.getByRole('button', { name: 'Move up: Wind' }).focus()
        await page.keyboard.press('Enter')
        await page.getByRole('status').getByText('Wind moved to position 2 of 3.').waitFor()
        assert.equal(await focusedLabel(page), 'Move up: Wind')
        await page.keyboard.press('Space')
        await page.getByRole('status').getByText('Wind moved to position 1 of 3.').waitFor()
        // At the top, Move up does nothing; focus went to its twin, which still moves.
        assert.equal(await focusedLabel(page), 'Move down: Wind')
        assert.deepEqual(await shownTitles(page), ['Wind', 'Rain', 'Heat'])
        assert.deepEqual(await storedTitles(username), ['Wind', 'Rain', 'Heat'])
        const wide = await page.evaluate('document.documentElement.scrollWidth')
        assert.ok(Number(wide) <= 360, `no sideways scrolling at 360 px (${wide})`)
        await assertAccessible(page, 'section order')
        await screenshot(page, 'section-order')

        await page.reload()
        await page.getByRole('heading', { name: 'Article', exact: true }).click()
        await page.getByRole('button', { name: 'Move down: Wind' }).waitFor()
        assert.deepEqual(await shownTitles(page), ['Wind', 'Rain', 'Heat'])
      },
      { width: 360, height: 800 },
    )
  })

  test('a change made through the API after the page loaded makes the next save a conflict that writes nothing', {
    skip,
  }, async () => {
    const { username, ids } = await expertWithArticles('Grace', 'Conflict')
    const [rain, heat, wind] = [present(ids[0]), present(ids[1]), present(ids[2])]
    await withPage(async (page) => {
      await openArticles(page, username)
      await apiData('PUT', `/expert/${username}/article/order`, { ids: [heat, wind, rain] })
      await page.getByRole('button', { name: 'Move up: Wind' }).click()
      await page.getByRole('alert').getByText('Someone else changed this profile').first().waitFor()
      await page.getByRole('button', { name: 'Reload the profile' }).waitFor()
      assert.deepEqual(await storedTitles(username), ['Heat', 'Wind', 'Rain'])

      // A form's save is refused in the same way, and the form keeps what was typed.
      await apiData('PUT', `/expert/${username}/article/${rain}`, { title: 'Drizzle' })
      const heatForm = page.getByRole('form', { name: 'Article 2' })
      await heatForm.getByLabel('Title').fill('Heatwave')
      await heatForm.getByRole('button', { name: 'Save' }).click()
      await heatForm.getByRole('alert').getByText('Someone else changed this profile').waitFor()
      assert.deepEqual(await storedTitles(username), ['Heat', 'Wind', 'Drizzle'])
      assert.equal(await heatForm.getByLabel('Title').inputValue(), 'Heatwave')
      await assertAccessible(page, 'conflict on move')

      await page.getByRole('button', { name: 'Reload the profile' }).click()
      await page.getByRole('button', { name: 'Move up: Drizzle' }).waitFor()
      assert.deepEqual(await shownTitles(page), ['Heat', 'Wind', 'Drizzle'])
    })
  })
})
