import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, closeSharedBrowsers, sharedBrowser } from './helpers/browser.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  pageWidth,
  screenshot,
  signInAt,
  withPage as withBrowserPage,
} from './helpers/dashboard.js'
import { createExpert, describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()
after(closeSharedBrowsers)

const NARROW = { width: 360, height: 740 }

/**
 * The editorial workflow in the dashboard (CONTRACT §21) in a real headless Chromium against the real
 * server: a profile's History with its diffs and a restore, the publish gate's checklist, and the
 * organization's workflow settings.
 */
describeEachDialect('the editorial workflow in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let owner = { email: '', password: '' }

  const api = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) => {
    const response = await ctx.inject({
      method,
      url: `/v2/organization/${ctx.tenant.orgId}${path}`,
      headers: ctx.tenant.auth,
      ...(payload ? { payload } : {}),
    })
    assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`)
    return response.json().data
  }

  before(async () => {
    if (skip) return
    owner = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await sharedBrowser()
  })

  const signIn = (page: Page, path: string) => signInAt(page, `${origin}/admin${path}`, owner)
  const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
    withBrowserPage(browser, run, viewport)
  /** Waits until a field of the page holds `value` (a form takes a new read of its record after it renders). */
  const untilFieldReads = (page: Page, value: string) =>
    page.waitForFunction(
      `[...document.querySelectorAll('input, textarea')].some((field) => field.value === ${JSON.stringify(value)})`,
    )
  /** The History panel's versions (not the changes listed inside an opened one). */
  const versionRows = (page: Page) => page.locator('.version-list > li')

  test('History: two edits, their diffs (rich text word by word), restoring the older one', {
    skip,
  }, async () => {
    const username = await createExpert(ctx, ctx.tenant, { firstname: 'Rachel', lastname: 'Carson' })
    await api('POST', `/expert/${username}/biography`, {
      biography: '<p>She studies <strong>tides</strong> of the sea.</p>',
    })
    await api('POST', `/expert/${username}/biography`, {
      biography: '<p>She studies storm surges of the sea.</p>',
    })
    await withPage(async (page) => {
      await signIn(page, `/experts/${username}`)
      const tagline = page.getByRole('textbox', { name: 'Tagline' })
      await tagline.fill('Oceans and their tides')
      await page.getByRole('button', { name: 'Save tagline' }).click()
      const taglineRows = versionRows(page).filter({ hasText: 'the tagline section' })
      await taglineRows.first().waitFor()
      await tagline.fill('Silent springs')
      await page.getByRole('button', { name: 'Save tagline' }).click()

      const history = page.getByRole('region', { name: 'History' })
      await taglineRows.nth(1).waitFor()
      assert.equal(await versionRows(page).count(), 5, 'the account, two biographies, two taglines')
      assert.match((await versionRows(page).first().textContent()) ?? '', /the tagline section by .+/)

      // The newest: the tagline's before and after.
      await taglineRows.first().getByRole('button', { name: /^Open/ }).click()
      const newest = taglineRows.first().getByRole('list', { name: /^Changes of version/ })
      await newest.getByRole('definition').filter({ hasText: 'Silent springs' }).waitFor()
      await newest.getByRole('definition').filter({ hasText: 'Oceans and their tides' }).waitFor()

      // The biography's change, word by word: a deletion and an insertion, each named for screen readers.
      const biographyRow = versionRows(page).filter({ hasText: 'the biography section' }).first()
      await biographyRow.getByRole('button', { name: /^Open/ }).click()
      await biographyRow.locator('del').filter({ hasText: 'tides' }).waitFor()
      assert.equal(await biographyRow.locator('ins').textContent(), '[added: storm surges]')
      assert.equal(await biographyRow.locator('del').textContent(), '[removed: tides]')
      await history.scrollIntoViewIfNeeded()
      await assertAccessible(page, 'history with a diff')
      await screenshot(page, 'profile-history')

      // Restoring the older tagline asks first; Cancel leaves it.
      await biographyRow.getByRole('button', { name: /^Close/ }).click()
      await taglineRows.nth(1).getByRole('button', { name: /^Open/ }).click()
      await taglineRows.nth(1).getByRole('button', { name: 'Restore this version' }).click()
      await taglineRows.nth(1).getByRole('button', { name: 'Cancel' }).click()
      await taglineRows.nth(1).getByRole('button', { name: 'Restore this version' }).click()
      await assertAccessible(page, 'history asking to restore')
      await taglineRows.nth(1).getByRole('button', { name: 'Yes, restore it' }).click()
      await taglineRows.nth(2).waitFor()
      await page.getByRole('status').getByText('Restored the tagline section as it was then.').waitFor()
      await untilFieldReads(page, 'Oceans and their tides')
    })
    const read = await api('GET', `/expert/${username}`)
    assert.equal(read.tagline[0].tagline, 'Oceans and their tides')

    await withPage(async (page) => {
      await signIn(page, `/experts/${username}`)
      await versionRows(page).first().getByRole('button', { name: /^Open/ }).click()
      await page.getByRole('list', { name: /^Changes of version/ }).waitFor()
      await page.getByRole('region', { name: 'History' }).scrollIntoViewIfNeeded()
      assert.ok((await pageWidth(page)) <= NARROW.width, `history ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'history at 360 px')
      await screenshot(page, 'profile-history-360')
    }, NARROW)
  })

  test('Workflow settings set a publish gate; publishing a profile that fails it names what is missing', {
    skip,
  }, async () => {
    const username = await createExpert(ctx, ctx.tenant, { firstname: 'Sylvia', lastname: 'Earle' })
    await api('POST', `/expert/${username}/tagline`, { tagline: 'Explorer of the deep ocean and its reefs' })
    await api('POST', `/expert/${username}/topic`, { name: 'Marine biology' })
    await withPage(async (page) => {
      await signIn(page, '/experts')
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workflow' }).click()
      await page.getByRole('heading', { name: 'Editorial workflow', level: 1 }).waitFor()
      const form = page.getByRole('form', { name: 'Editorial workflow settings' })
      await form.getByRole('checkbox', { name: 'Tagline at most' }).check()
      await form.getByLabel('Tagline at most (characters)').fill('-5')
      await form.getByRole('checkbox', { name: 'Topics at least' }).check()
      await form.getByLabel('Topics at least (topics)').fill('1')
      await form.getByRole('button', { name: 'Save' }).click()
      // The server's message, beside the field it names.
      await form.locator('#limit-tagline_max-error').waitFor()
      assert.equal(await form.getByLabel('Tagline at most (characters)').getAttribute('aria-invalid'), 'true')
      assert.deepEqual((await api('GET', '/workflow')).gate.tagline_max, null, 'nothing saved')
      await form.getByLabel('Tagline at most (characters)').fill('')
      await form.getByRole('button', { name: 'Save' }).click()
      await form.locator('#limit-tagline_max-error').getByText('must be an integer').waitFor()
      await form.getByLabel('Tagline at most (characters)').fill('20')
      await form.getByRole('button', { name: 'Save' }).click()
      await form.getByRole('status').getByText('Saved.').waitFor()
      assert.equal(await form.locator('.field-error').count(), 0)
      assert.deepEqual((await api('GET', '/workflow')).gate, {
        photo_min_px: null,
        tagline_max: 20,
        biography_max: null,
        topics_min: 1,
      })
      await assertAccessible(page, 'workflow settings')
      await screenshot(page, 'workflow-settings')

      await page.goto(`${origin}/admin/experts/${username}`)
      const gate = page.getByRole('list', { name: 'Publish gate' })
      await gate.getByRole('listitem').nth(1).waitFor()
      assert.deepEqual(await gate.locator('.badge').allTextContents(), ['Missing', 'Met'])
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      const refused = page.getByRole('list', { name: 'Why it cannot be published' })
      await refused.getByText('longer than the 20 allowed').waitFor()
      assert.equal(await refused.getByRole('listitem').count(), 1)
      await assertAccessible(page, 'publishing refused by the gate')
      await page.getByRole('region', { name: 'Publishing' }).scrollIntoViewIfNeeded()
      await screenshot(page, 'publish-gate')
      assert.equal((await api('GET', `/expert/${username}`)).account[0].is_published, 0)

      await page.getByRole('textbox', { name: 'Tagline' }).fill('Deep ocean explorer')
      await page.getByRole('button', { name: 'Save tagline' }).click()
      await gate.locator('.badge', { hasText: 'Missing' }).waitFor({ state: 'detached' })
      await page.getByRole('button', { name: 'Publish', exact: true }).click()
      await page.getByRole('button', { name: 'Unpublish' }).waitFor()
      assert.equal(await refused.count(), 0)
    })
    assert.equal((await api('GET', `/expert/${username}`)).account[0].is_published, 1)

    await withPage(async (page) => {
      await signIn(page, '/workflow')
      await page.getByRole('form', { name: 'Editorial workflow settings' }).waitFor()
      assert.ok((await pageWidth(page)) <= NARROW.width, `workflow ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'workflow settings at 360 px')
      await screenshot(page, 'workflow-settings-360')
    }, NARROW)
    await api('PUT', '/workflow', {
      review: { roles: [], sections: null },
      gate: { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: null },
    })
  })

  test('a post’s History: its title’s change, and the older title restored', { skip }, async () => {
    const request = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
      const response = await ctx.inject({
        method,
        url,
        headers: ctx.tenant.auth,
        ...(payload ? { payload } : {}),
      })
      assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`)
      return response.json().data
    }
    const created = await request('POST', `/v2/spotlight/${ctx.tenant.orgId}`, {
      title: 'Reefs in warm water',
      html: '<p>Corals bleach.</p>',
    })
    const id = created.id
    await request('PUT', `/v2/spotlight/${ctx.tenant.orgId}/${id}`, { title: 'Reefs in a warming sea' })
    await withPage(async (page) => {
      await signIn(page, `/posts/${id}`)
      await page.getByRole('heading', { name: 'Reefs in a warming sea', level: 1 }).waitFor()
      await versionRows(page).nth(1).waitFor()
      assert.equal(await versionRows(page).count(), 2)
      await versionRows(page).first().getByRole('button', { name: /^Open/ }).click()
      const changes = page.getByRole('list', { name: /^Changes of version/ })
      await changes.getByRole('definition').filter({ hasText: 'Reefs in warm water' }).waitFor()
      await page.getByRole('button', { name: /^Close/ }).click()
      await versionRows(page).nth(1).getByRole('button', { name: /^Open/ }).click()
      await page.getByRole('button', { name: 'Restore this version' }).click()
      await page.getByRole('button', { name: 'Yes, restore it' }).click()
      await page.getByRole('status').getByText('Restored the post as it was then.').waitFor()
      await page.getByRole('heading', { name: 'Reefs in warm water', level: 1 }).waitFor()
      await versionRows(page).nth(2).waitFor()
      await assertAccessible(page, 'a post’s history')
    })
    assert.equal(
      (await request('GET', `/v2/spotlight/${ctx.tenant.orgId}/${id}`)).spotlight[0].title,
      'Reefs in warm water',
    )
  })
})
