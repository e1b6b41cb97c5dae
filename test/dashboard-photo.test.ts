import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import { assertAccessible, ensureDashboardBuilt, pageWidth, signInAt, withPage } from './helpers/dashboard.js'
import { createExpert, describeEachDialect } from './helpers/harness.js'
import { testImage } from './helpers/images.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

/** Where screenshots of this screen go with `EXPERTDIR_SCREENSHOTS` (not in the repository). */
const SHOTS = process.env.EXPERTDIR_SCREENSHOTS

async function shot(page: Page, name: string) {
  if (!SHOTS) return
  mkdirSync(SHOTS, { recursive: true })
  await page.locator('section.photo').scrollIntoViewIfNeeded()
  await page.screenshot({ path: `${SHOTS}/${name}.png` })
}

/**
 * The profile's photo panel in a real headless Chromium: a file the server would refuse is refused in
 * the browser, with the reason, before anything is sent; a photo is removed after a confirmation that
 * names the person, and a dismissed confirmation removes nothing.
 */
describeEachDialect('the photo panel in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let owner = { email: '', password: '' }

  const avatarOf = async (username: string) => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: ctx.tenant.auth,
    })
    return response.json().data.avatar as Record<string, { url?: string }>
  }
  /** An expert with a photo uploaded through the API. */
  const expertWithPhoto = async (firstname: string, lastname: string) => {
    const username = await createExpert(ctx, ctx.tenant, { firstname, lastname })
    const upload = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/avatar`,
      headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
      payload: await testImage('jpeg', 640, 480),
    })
    assert.equal(upload.statusCode, 200, upload.body)
    return username
  }

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

  /** Counts the photo uploads the page sends. */
  const uploadsSent = (page: Page) => {
    const sent: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'PUT' && request.url().includes('/avatar')) sent.push(request.url())
    })
    return sent
  }

  test('a photo too small, of another type or too large is refused before it is sent', { skip }, async () => {
    const username = await createExpert(ctx, ctx.tenant, { firstname: 'Rosalind', lastname: 'Franklin' })
    await withPage(browser, async (page) => {
      const sent = uploadsSent(page)
      await signInAt(page, `${origin}/admin/experts/${username}`, owner)
      const input = page.getByLabel('Choose a photo')
      await input.setInputFiles({
        name: 'tiny.png',
        mimeType: 'image/png',
        buffer: await testImage('png', 150, 120),
      })
      await page
        .getByRole('alert')
        .getByText('tiny.png is 150 × 120 pixels: choose a photo of at least 200 × 200.')
        .waitFor()
      assert.equal(await page.getByRole('button', { name: 'Upload photo' }).count(), 0)
      assert.equal(await input.getAttribute('aria-invalid'), 'true')
      await assertAccessible(page, 'photo refused')
      await shot(page, `photo-refused-${ctx.dialect}-1280`)

      await input.setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('not a photo'),
      })
      await page
        .getByRole('alert')
        .getByText('notes.txt is not a JPEG, PNG or WebP image: choose a photo in one of those formats.')
        .waitFor()
      await input.setInputFiles({
        name: 'huge.jpg',
        mimeType: 'image/jpeg',
        buffer: Buffer.alloc(5 * 1024 * 1024),
      })
      await page
        .getByRole('alert')
        .getByText('huge.jpg is 5.0 MiB: choose a photo of at most 4 MiB.')
        .waitFor()

      await input.setInputFiles({
        name: 'good.jpg',
        mimeType: 'image/jpeg',
        buffer: await testImage('jpeg', 400, 300),
      })
      await page.getByRole('button', { name: 'Upload photo' }).waitFor()
      assert.equal(await page.getByRole('alert').count(), 0, 'the refusal is gone with a good file')
      assert.deepEqual(sent, [], 'nothing was sent')
    })
  })

  test('removing a photo asks first, naming the person; a dismissed question removes nothing', {
    skip,
  }, async () => {
    const username = await expertWithPhoto('Lise', 'Meitner')
    await withPage(browser, async (page) => {
      await signInAt(page, `${origin}/admin/experts/${username}`, owner)
      await page.getByRole('img', { name: 'Current portrait' }).waitFor()
      await shot(page, `photo-remove-${ctx.dialect}-1280`)

      const questions: string[] = []
      page.once('dialog', (dialog) => {
        questions.push(dialog.message())
        void dialog.dismiss()
      })
      await page.getByRole('button', { name: 'Remove photo' }).click()
      await page.getByRole('img', { name: 'Current portrait' }).waitFor()
      assert.match(questions[0] ?? '', /^Remove the photo of Lise Meitner\?/)
      assert.ok((await avatarOf(username)).l?.url, 'still there after the question was dismissed')

      page.once('dialog', (dialog) => {
        questions.push(dialog.message())
        void dialog.accept()
      })
      await page.getByRole('button', { name: 'Remove photo' }).click()
      await page.getByRole('status').getByText('The photo of Lise Meitner was removed.').waitFor()
      await page.locator('section.photo').getByText('No photo yet.').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Remove photo' }).count(), 0)
      assert.deepEqual(await avatarOf(username), { s: {}, m: {}, o: {}, l: {} })
      await assertAccessible(page, 'photo removed')
    })
  })

  test('the photo panel fits a phone screen', { skip }, async () => {
    const username = await expertWithPhoto('Chien-Shiung', 'Wu')
    await withPage(
      browser,
      async (page) => {
        await signInAt(page, `${origin}/admin/experts/${username}`, owner)
        await page.getByRole('button', { name: 'Remove photo' }).waitFor()
        await page.getByLabel('Choose a photo').setInputFiles({
          name: 'small.png',
          mimeType: 'image/png',
          buffer: await testImage('png', 100, 100),
        })
        await page
          .getByRole('alert')
          .getByText(/small\.png is 100 × 100 pixels/)
          .waitFor()
        assert.ok((await pageWidth(page)) <= 360, 'no sideways scrolling')
        await shot(page, `photo-${ctx.dialect}-360`)
      },
      { width: 360, height: 800 },
    )
  })
})
