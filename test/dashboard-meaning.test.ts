import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { api, expectOk } from './helpers/api.js'
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

const PEOPLE = [
  {
    firstname: 'Ada',
    lastname: 'Okafor',
    job_title: 'Professor of Coastal Engineering',
    topics: ['Flood risk', 'Coastal engineering', 'Hydrology'],
  },
  {
    firstname: 'Bo',
    lastname: 'Lindqvist',
    job_title: 'Hydrologist',
    topics: ['Flood risk', 'Hydrology', 'Sea level rise'],
  },
  { firstname: 'Cy', lastname: 'Marsh', job_title: 'Cardiologist', topics: ['Cardiology', 'Hypertension'] },
  { firstname: 'Di', lastname: 'Serra', job_title: 'Lawyer', topics: ['Copyright', 'Patents'] },
]

const PRESS_RELEASE =
  'Storm surges and coastal engineering: how should cities plan for flood risk as the sea rises? ' +
  'We are looking for an expert who can explain the hydrology behind river floods.'

/**
 * Finding experts by meaning in the dashboard (CONTRACT §20) in a real headless Chromium against the real
 * server: a media relations person pastes a text, an editor hides one of an expert's concepts.
 */
describeEachDialect('finding experts by meaning in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  const usernames = new Map<string, string>()
  const usernameOf = (first: string) => {
    const username = usernames.get(first)
    assert.ok(username, first)
    return username
  }

  before(async () => {
    if (skip) return
    const client = api(ctx.app, ctx.tenant)
    for (const { topics, ...names } of PEOPLE) {
      const username = await createExpert(ctx, ctx.tenant, names)
      usernames.set(names.firstname, username)
      expectOk(
        await client.put('/v2/organization/{corporation}/expert/{username}', {
          params: { corporation: ctx.tenant.orgId, username },
          body: { is_published: 1 },
        }),
      )
      for (const name of topics) {
        const added = await ctx.inject({
          method: 'POST',
          url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/topic`,
          headers: ctx.tenant.auth,
          payload: { name },
        })
        assert.equal(added.statusCode, 200, added.body)
      }
    }
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
  })

  const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
    withPageOf(browser, run, viewport)

  const rowOf = (page: Page, list: string, name: string) =>
    page.getByRole('list', { name: list }).getByRole('listitem').filter({ hasText: name })

  /** The shared concepts a found expert's reasons name. */
  const conceptReasons = (row: Locator) => row.locator('dt:text-is("Concepts") + dd')

  test('media relations paste a press release: the coastal engineer comes with her reasons and links to her profile', {
    skip,
  }, async () => {
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'inquiries')
    await withPage(async (page) => {
      await signInAt(page, `${origin}/admin/`, person)
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Find experts' }).click()
      await page.getByRole('heading', { name: 'Find experts' }).waitFor()

      await page.getByRole('button', { name: 'Find experts' }).click()
      await page.getByRole('alert').getByText('Paste a text first').waitFor()
      await page.getByLabel('Press release or question').fill('x'.repeat(20_001))
      await page.getByRole('button', { name: 'Find experts' }).click()
      await page.getByRole('alert').getByText('at most 20,000 are read').waitFor()

      await page.getByLabel('Press release or question').fill(PRESS_RELEASE)
      await page.getByRole('button', { name: 'Find experts' }).click()
      const ada = rowOf(page, 'Matching experts', 'Ada Okafor')
      await ada.getByRole('definition').filter({ hasText: 'Coastal engineering' }).waitFor()
      const names = await page
        .getByRole('list', { name: 'Matching experts' })
        .getByRole('link')
        .allTextContents()
      assert.equal(names[0], 'Ada Okafor', names.join(' | '))
      assert.ok(!names.includes('Cy Marsh'), names.join(' | '))
      await assertAccessible(page, 'find experts')
      await screenshot(page, 'find-experts')

      await ada.getByRole('link', { name: 'Ada Okafor' }).click()
      await page.getByRole('heading', { name: 'Ada Okafor', level: 1 }).waitFor()
      // Media relations read the profile: concepts without toggles.
      await page.getByRole('list', { name: 'Concepts' }).getByText('Flood risk').waitFor()
      assert.equal(await page.getByRole('button', { name: /^Hide / }).count(), 0)
    })
    await withPage(async (page) => {
      await signInAt(page, `${origin}/admin/find`, person)
      await page.getByLabel('Press release or question').fill(PRESS_RELEASE)
      await page.getByRole('button', { name: 'Find experts' }).click()
      const ada = rowOf(page, 'Matching experts', 'Ada Okafor')
      await ada.getByRole('definition').filter({ hasText: 'Coastal engineering' }).waitFor()
      await ada.scrollIntoViewIfNeeded()
      assert.ok((await pageWidth(page)) <= NARROW.width, `find experts ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'find experts at 360 px')
      await screenshot(page, 'find-experts-360')
    }, NARROW)
  })

  test('an editor hides a concept of an expert: it shows as hidden, and the API no longer counts it', {
    skip,
  }, async () => {
    const editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const ada = usernameOf('Ada')
    const concepts = async () =>
      expectOk(
        await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}/concepts', {
          params: { corporation: ctx.tenant.orgId, username: ada },
        }),
      ).concepts
    await withPage(async (page) => {
      await signInAt(page, `${origin}/admin/experts/${ada}`, editor)
      await page.getByRole('heading', { name: 'Ada Okafor', level: 1 }).waitFor()
      await conceptReasons(rowOf(page, 'Similar experts', 'Bo Lindqvist'))
        .getByText('Hydrology')
        .waitFor()
      await screenshot(page, 'profile-meaning')

      await page.getByRole('button', { name: 'Hide Hydrology' }).click()
      await page.getByRole('status').getByText('“Hydrology” is hidden.').waitFor()
      const hydrology = rowOf(page, 'Concepts', 'Hydrology')
      await hydrology.getByText('Hidden').waitFor()
      await hydrology.getByRole('button', { name: 'Show Hydrology' }).waitFor()
      assert.deepEqual(
        (await concepts()).filter((concept) => concept.hidden).map((concept) => concept.concept),
        ['hydrology'],
      )
      const bo = rowOf(page, 'Similar experts', 'Bo Lindqvist')
      // A hidden concept is no reason (the word may still be one).
      await conceptReasons(bo).filter({ hasText: 'Flood risk' }).filter({ hasNotText: 'Hydrology' }).waitFor()
      await assertAccessible(page, 'profile with concepts')
    })
    await withPage(async (page) => {
      await signInAt(page, `${origin}/admin/experts/${ada}`, editor)
      await rowOf(page, 'Concepts', 'Hydrology').getByText('Hidden').waitFor()
      await page.getByRole('heading', { name: 'Concepts' }).scrollIntoViewIfNeeded()
      assert.ok((await pageWidth(page)) <= NARROW.width, `profile ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'profile with concepts at 360 px')
      await screenshot(page, 'profile-meaning-360')

      await page.getByRole('button', { name: 'Show Hydrology' }).click()
      await rowOf(page, 'Concepts', 'Hydrology').getByRole('button', { name: 'Hide Hydrology' }).waitFor()
    }, NARROW)
    assert.ok((await concepts()).every((concept) => !concept.hidden))
  })
})
