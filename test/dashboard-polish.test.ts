import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  pageWidth,
  screenshot,
  signInAt,
  withPage as withPageOf,
} from './helpers/dashboard.js'
import { createExpert, describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

const NARROW = { width: 360, height: 740 }

/** The browser's own function, called inside the page (the tests are compiled without the DOM library). */
declare function getComputedStyle(element: unknown, pseudo?: string): { display: string; content: string }

/**
 * The dashboard's finishing touches in a real headless Chromium against the real server: posts' and Q&A
 * items' search-engine fields, name chips that change at once (Undo after a removal, a refused name
 * rolled back with the reason), the audit log and the public find-an-expert page 360 px wide.
 */
describeEachDialect(
  'the dashboard’s polish in a real browser',
  (ctx) => {
    let browser: Browser | undefined
    let origin = ''
    let owner = { email: '', password: '' }
    let curie = ''
    const signIn = (page: Page, path: string, person: { email: string; password: string }) =>
      signInAt(page, `${origin}/admin${path}`, person)
    const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
      withPageOf(browser, run, viewport)
    /**
     * The rich-text editor comes in a chunk of its own after the item and takes its placeholder's place,
     * moving what is below it: a test acts once it is there, as a person would.
     */
    const richTextLoaded = async (page: Page) => {
      await page.getByText('Loading the editor…').first().waitFor({ state: 'detached' })
      await page.locator('.rich-text-area').first().waitFor()
    }

    const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
      const response = await ctx.inject({
        method,
        url,
        headers: ctx.tenant.auth,
        ...(payload ? { payload } : {}),
      })
      assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`)
      return response.json().data
    }
    const org = () => ctx.tenant.orgId

    before(async () => {
      if (skip) return
      curie = await createExpert(ctx, ctx.tenant, { firstname: 'Marie', lastname: 'Curie' })
      await api('PUT', `/v2/organization/${org()}/expert/${curie}`, { is_published: 1 })
      // Enough topics that the find-an-expert page has a long list of facet links.
      for (let n = 1; n <= 12; n++) {
        const username = await createExpert(ctx, ctx.tenant, { firstname: 'Topic', lastname: `Keeper ${n}` })
        await api('POST', `/v2/organization/${org()}/expert/${username}/topic`, { name: `Subject ${n}` })
        await api('PUT', `/v2/organization/${org()}/expert/${username}`, { is_published: 1 })
      }
      await api('PUT', `/v2/organization/${org()}`, { public_directory: 1 })
      owner = await addPersonWithPassword(ctx, org(), 'owner')
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
      browser = await launchBrowser()
    })
    after(async () => {
      await browser?.close()
    })

    test('saves a post’s search-engine fields from their folded group and reads them back', {
      skip,
    }, async () => {
      const { id } = await api('POST', `/v2/spotlight/${org()}`, {
        title: 'Bees',
        html: '<p>Bees dance.</p>',
      })
      await withPage(async (page) => {
        await signIn(page, `/posts/${id}`, owner)
        await page.getByRole('heading', { name: 'Bees', exact: true }).waitFor()
        await richTextLoaded(page)
        const form = page.getByRole('form', { name: 'Search engines' })
        assert.equal(await form.isVisible(), false, 'folded at first')
        await page.getByRole('heading', { name: 'Search engines', level: 2 }).click()
        // The fields show what pages get: the title as the page title until one is set.
        assert.equal(await form.getByLabel('Page title').inputValue(), 'Bees')
        await form.getByLabel('Page title').fill('Bees at work | Biology')
        await form.getByLabel('Meta description').fill('How honey bees tell each other where food is.')
        await form.getByLabel('Share image').fill('not a link')
        await form.getByRole('button', { name: 'Save' }).click()
        await form.getByRole('alert').waitFor()
        assert.equal(await form.getByLabel('Share image').getAttribute('aria-invalid'), 'true')
        await form.getByLabel('Share image').fill('')
        await form.getByRole('button', { name: 'Save' }).click()
        await form.getByRole('status').getByText('Saved.').waitFor()
        await assertAccessible(page, 'post editor, search engines open')
        await screenshot(page, 'post-seo')

        await page.reload()
        await page.getByRole('heading', { name: 'Bees', exact: true }).waitFor()
        await richTextLoaded(page)
        await page.getByRole('heading', { name: 'Search engines', level: 2 }).click()
        assert.equal(await form.getByLabel('Page title').inputValue(), 'Bees at work | Biology')
        assert.equal(
          await form.getByLabel('Meta description').inputValue(),
          'How honey bees tell each other where food is.',
        )
      })
      const stored = await api('GET', `/v2/spotlight/${org()}/${id}`)
      assert.equal(stored.seo[0].title, 'Bees at work | Biology')
      assert.equal(stored.seo[0].description, 'How honey bees tell each other where food is.')
    })

    test('saves a Q&A item’s search-engine fields', { skip }, async () => {
      const { id } = await api('POST', `/v2/qanda/${org()}`, { question: 'Why do bees dance?' })
      await withPage(async (page) => {
        await signIn(page, `/questions/${id}`, owner)
        await page.getByRole('heading', { name: 'Why do bees dance?' }).waitFor()
        await richTextLoaded(page)
        await page.getByRole('heading', { name: 'Search engines', level: 2 }).click()
        const form = page.getByRole('form', { name: 'Search engines' })
        await form.getByLabel('Keywords').fill('bees, waggle dance')
        await form.getByRole('button', { name: 'Save' }).click()
        await form.getByRole('status').getByText('Saved.').waitFor()
      })
      const stored = await api('GET', `/v2/qanda/${org()}/${id}`)
      assert.equal(stored.seo[0].keywords, 'bees, waggle dance')
    })

    test('a tag removed shows gone at once and comes back with Undo; a failed removal and a refused expert are rolled back with the reason', {
      skip,
    }, async () => {
      const { id } = await api('POST', `/v2/spotlight/${org()}`, {
        title: 'Hives',
        html: '<p>Hives.</p>',
        tags: ['Biology', 'Insects', 'Farming'],
      })
      const storedTags = async () =>
        (await api('GET', `/v2/spotlight/${org()}/${id}`)).tags.map((tag: { tag: string }) => tag.tag)
      await withPage(async (page) => {
        await signIn(page, `/posts/${id}`, owner)
        const tags = page.getByRole('list', { name: 'Tags' })
        await tags.getByText('Insects').waitFor()
        // The write is held at the browser until the chip is seen gone: the change shows before it is saved.
        let release = () => {}
        const held = new Promise<void>((resolve) => {
          release = resolve
        })
        await page.route(`**/v2/spotlight/${org()}/${id}`, async (route) => {
          if (route.request().method() === 'PUT') await held
          await route.fallback()
        })
        await page.getByRole('button', { name: 'Remove Insects' }).click()
        await tags.getByText('Insects').waitFor({ state: 'detached' })
        assert.equal(await tags.getAttribute('aria-busy'), 'true')
        release()
        await page.unrouteAll({ behavior: 'wait' })
        await page.getByRole('status').getByText('Removed Insects.').waitFor()
        // The focus went with the removed chip's button; it lands on Undo, which stays while it has it.
        assert.equal(await page.locator(':focus').textContent(), 'Undo')
        assert.deepEqual(await storedTags(), ['Biology', 'Farming'])
        await assertAccessible(page, 'post editor with Undo')
        await screenshot(page, 'post-undo')
        await page.getByRole('button', { name: 'Undo' }).click()
        await page.getByRole('button', { name: 'Remove Insects' }).waitFor()
        // No name list is writing (a list carries aria-busy while its write runs).
        await page.locator('[aria-busy="true"]').waitFor({ state: 'detached' })
        assert.deepEqual((await storedTags()).sort(), ['Biology', 'Farming', 'Insects'])
        assert.deepEqual(await tags.getByRole('listitem').allTextContents(), [
          'Biology×',
          'Insects×',
          'Farming×',
        ])

        // A removal that cannot reach the server: the chip comes back, and the reason is given.
        await page.route(`**/v2/spotlight/${org()}/${id}`, (route) =>
          route.request().method() === 'PUT' ? route.abort('connectionrefused') : route.fallback(),
        )
        await page.getByRole('button', { name: 'Remove Farming' }).click()
        await page.getByRole('alert').getByText('The server cannot be reached').waitFor()
        await page.getByRole('button', { name: 'Remove Farming' }).waitFor()
        await page.unrouteAll({ behavior: 'wait' })

        const tagged = page.getByRole('list', { name: 'Tagged experts' })
        await page.getByLabel('Tag an expert (username)').fill('nobody-here')
        await page.getByLabel('Tag an expert (username)').press('Enter')
        await page
          .getByRole('alert')
          .getByText(/nobody-here/)
          .waitFor()
        assert.equal(await tagged.getByText('nobody-here').count(), 0, 'the refused chip is rolled back')
        assert.equal(await page.getByLabel('Tag an expert (username)').inputValue(), 'nobody-here')
        await page.getByLabel('Tag an expert (username)').fill(curie)
        await page.getByLabel('Tag an expert (username)').press('Enter')
        await page.getByRole('button', { name: `Remove ${curie}` }).waitFor()
        // No name list is writing (a list carries aria-busy while its write runs).
        await page.locator('[aria-busy="true"]').waitFor({ state: 'detached' })
      })
      const stored = await api('GET', `/v2/spotlight/${org()}/${id}`)
      assert.deepEqual(
        stored.spotlight[0].tagged_experts.map((expert: { username: string }) => expert.username),
        [curie],
      )
    })

    test('the audit log reads as stacked entries at 360 px and as a table on a desktop', {
      skip,
    }, async () => {
      await api('PUT', `/v2/organization/${org()}`, { location_city: 'Lyon' })
      const action = "Changed the organization's profile"
      await withPage(async (page) => {
        await signIn(page, '/audit', owner)
        // Stacked, each entry is still a row of cells for a screen reader.
        const cell = page.getByRole('row').nth(1).getByRole('cell', { name: action, exact: true })
        await cell.waitFor()
        assert.ok((await pageWidth(page)) <= 360, `audit log ${await pageWidth(page)} px wide`)
        assert.equal(await cell.evaluate((element) => getComputedStyle(element).display), 'grid')
        assert.match(await cell.evaluate((element) => getComputedStyle(element, '::before').content), /What/)
        await assertAccessible(page, 'audit log at 360 px')
        await screenshot(page, 'audit-log-360')
      }, NARROW)
      await withPage(async (page) => {
        await signIn(page, '/audit', owner)
        const cell = page.getByRole('row').nth(1).getByRole('cell', { name: action, exact: true })
        await cell.waitFor()
        assert.equal(await cell.evaluate((element) => getComputedStyle(element).display), 'table-cell')
      })
    })

    test('the public find-an-expert page puts the results first at 360 px, the facets folded under Filter', {
      skip,
    }, async () => {
      const url = `${origin}/directory/${org()}/`
      await withPage(async (page) => {
        await page.goto(url)
        const firstResult = page.locator('.expert-card').first()
        await firstResult.waitFor()
        const facet = page.getByRole('link', { name: /^Subject 1 / })
        assert.equal(await facet.isVisible(), false, 'facets folded')
        const box = await firstResult.boundingBox()
        assert.ok(
          box && box.y + box.height <= NARROW.height,
          `the first result within the first screen (${box?.y})`,
        )
        assert.ok((await pageWidth(page)) <= 360)
        await assertAccessible(page, 'find an expert at 360 px')
        await screenshot(page, 'find-an-expert-360')
        await page.getByText('Filter', { exact: true }).click()
        await facet.click()
        await page.waitForURL(/topics=Subject/)
        assert.deepEqual(await page.locator('.expert-card h3').allTextContents(), ['Topic Keeper 1'])
      }, NARROW)
      await withPage(async (page) => {
        await page.goto(url)
        await page
          .getByRole('navigation', { name: 'Filters' })
          .getByRole('link', { name: /^Subject 1 / })
          .waitFor()
        assert.equal(
          await page.getByText('Filter', { exact: true }).isVisible(),
          false,
          'no disclosure on a desktop',
        )
      })
    })
  },
  { config: { secretKey: randomBytes(32).toString('hex') } },
)
