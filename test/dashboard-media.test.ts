import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
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

/**
 * The media desk in the dashboard (CONTRACT §22), in a real headless Chromium against the real server: an
 * editor sets an expert's media availability in the profile's "Media availability" panel, and the public
 * page shows it.
 */
describeEachDialect('media availability in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let username = ''

  before(async () => {
    if (skip) return
    const client = api(ctx.app, ctx.tenant)
    username = await createExpert(ctx, ctx.tenant, {
      firstname: 'Noor',
      lastname: 'Haddad',
      job_title: 'Professor of Epidemiology',
    })
    expectOk(
      await client.put('/v2/organization/{corporation}/expert/{username}', {
        params: { corporation: ctx.tenant.orgId, username },
        body: { is_published: 1 },
      }),
    )
    const directory = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}`,
      headers: ctx.tenant.auth,
      payload: { public_directory: 1 },
    })
    assert.equal(directory.statusCode, 200, directory.body)
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
  })

  const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
    withPageOf(browser, run, viewport)

  /** A date and time two days ahead, as a `datetime-local` input takes it (UTC), and in unix seconds. */
  const end = () => {
    const seconds = Math.floor(ctx.clock.now() / 1000 / 60) * 60 + 2 * 86_400
    return { seconds, input: new Date(seconds * 1000).toISOString().slice(0, 16) }
  }

  test('an editor sets the media availability; the public page shows it, languages by name', {
    skip,
  }, async () => {
    const editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const until = end()
    await withPage(async (page) => {
      await signInAt(page, `${origin}/admin/experts/${username}`, editor)
      await page.getByRole('heading', { name: 'Noor Haddad', level: 1 }).waitFor()
      const panel = page.getByRole('region', { name: 'Media availability' })
      await panel.getByLabel('Available for media').check()
      await panel.getByLabel('Available until').fill(until.input)
      await panel.getByLabel('Interview languages').fill('en, ar, fr-CA')
      await panel.getByLabel('Remote interviews').check()
      await panel.getByLabel('Time zone').selectOption('Asia/Amman')
      await panel.getByLabel('Pronunciation').fill('noor ha-DAD')
      await panel.getByLabel('Pronouns').fill('she/her')
      await panel.getByRole('button', { name: 'Save media availability' }).click()
      await panel.getByRole('status').getByText('Saved.').waitFor()
      await panel.scrollIntoViewIfNeeded()
      await assertAccessible(page, 'profile with media availability')
      await screenshot(page, 'media-availability')

      // A bad tag is the server's message beside the field.
      await panel.getByLabel('Interview languages').fill('en, not a tag!')
      await panel.getByRole('button', { name: 'Save media availability' }).click()
      await panel.getByText('must be BCP 47 language tags').waitFor()
    })
    const { account } = expectOk(
      await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}', {
        params: { corporation: ctx.tenant.orgId, username },
      }),
    )
    const [stored] = account
    assert.equal(stored?.media_available, 1)
    assert.equal(stored?.media_available_until, until.seconds)
    assert.deepEqual(stored?.interview_languages, ['en', 'ar', 'fr-CA'])
    assert.equal(stored?.remote_ready, 1)
    assert.equal(stored?.time_zone, 'Asia/Amman')
    assert.equal(stored?.pronouns, 'she/her')

    await withPage(async (page) => {
      await page.goto(`${origin}/directory/${ctx.tenant.orgId}/${username}`)
      const block = page.getByRole('region', { name: 'Media availability' })
      await block.getByText('Available for media interviews until').waitFor()
      await block.getByText(/English, Arabic, (Canadian French|French \(Canada\))/).waitFor()
      await block.getByText('Remote interviews (video or phone)').waitFor()
      await block.scrollIntoViewIfNeeded()
      await assertAccessible(page, 'expert page with media availability')
      await screenshot(page, 'media-availability-public')
    })
  })

  test('at 360 px the panel and the public block fit the screen', { skip }, async () => {
    const editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    await withPage(async (page) => {
      await signInAt(page, `${origin}/admin/experts/${username}`, editor)
      const panel = page.getByRole('region', { name: 'Media availability' })
      await panel.getByLabel('Available for media').waitFor()
      await panel.scrollIntoViewIfNeeded()
      assert.ok((await pageWidth(page)) <= NARROW.width, `profile ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'media availability at 360 px')
      await screenshot(page, 'media-availability-360')
    }, NARROW)
    await withPage(async (page) => {
      await page.goto(`${origin}/directory/${ctx.tenant.orgId}/${username}`)
      const block = page.getByRole('region', { name: 'Media availability' })
      await block.scrollIntoViewIfNeeded()
      assert.ok((await pageWidth(page)) <= NARROW.width, `expert page ${await pageWidth(page)} px wide`)
      await screenshot(page, 'media-availability-public-360')
    }, NARROW)
  })
})
