import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, closeSharedBrowsers, sharedBrowser } from './helpers/browser.js'
import { importDocument } from './helpers/content.js'
import { assertAccessible, pageWidth, screenshot } from './helpers/dashboard.js'
import { describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

const skip = await browserSkip()

const ABSTRACT =
  'Storm surges and rising seas put coastal cities at risk. We model flood risk along the coastline and ' +
  'test coastal engineering defences such as dikes and dunes against storm surge scenarios.'

after(closeSharedBrowsers)

/**
 * "Describe your story" and similar experts in a real browser: a journalist pastes a text and submits
 * it (with and without JavaScript), at a desktop and a phone width, and the pages pass axe-core.
 */
describeEachDialect('the directory finds experts by meaning in a real browser', (ctx) => {
  let browser: Browser | undefined
  let directory = ''

  before(async () => {
    if (skip) return
    const org = ctx.tenant.orgId
    await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${org}`,
      headers: ctx.tenant.auth,
      payload: { public_directory: 1, brand_color: '#0b3d6b', accent_color: '#b45309' },
    })
    const expert = (key: string, firstname: string, topics: string[], biography: string, published = 1) => ({
      key,
      firstname,
      lastname: 'Browser',
      job_title: `${topics[0]} researcher`,
      email: `${key}@uni.example`,
      company: 'Main University',
      is_published: published,
      sections: {
        topic: topics.map((name) => ({ name })),
        biography: [{ biography: `<p>${biography}</p>` }],
      },
    })
    await importDocument(ctx, org, {
      experts: [
        expert(
          'coral',
          'Coral',
          ['Coastal engineering', 'Flood risk'],
          'Storm surges, dikes and the flood defences of coastal cities.',
        ),
        expert('brook', 'Brook', ['Flood risk', 'Hydrology'], 'Rivers, rainfall and flood forecasting.'),
        expert(
          'marisol',
          'Marisol',
          ['Sea level rise', 'Coastal engineering'],
          'Coastlines in a warmer world.',
        ),
        expert('heart', 'Harvey', ['Cardiology'], 'Blood pressure and the heart.'),
        expert('draft', 'Drafty', ['Flood risk', 'Coastal engineering'], 'Unpublished storm surge work.', 0),
      ],
    })
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    directory = `http://127.0.0.1:${listeningPort(ctx.app.server)}/directory/${org}`
    browser = await sharedBrowser()
  })

  async function withPage<T>(
    options: { width: number; javaScript?: boolean },
    use: (page: Page) => Promise<T>,
  ): Promise<T> {
    if (!browser) throw new Error('no browser')
    const context = await browser.newContext({
      viewport: { width: options.width, height: 900 },
      javaScriptEnabled: options.javaScript ?? true,
    })
    try {
      return await use(await context.newPage())
    } finally {
      await context.close()
    }
  }

  async function describeStory(page: Page) {
    await page.goto(`${directory}/`)
    await page.getByRole('link', { name: 'Describe it and find the experts who fit' }).click()
    await page.getByLabel('Your story').fill(ABSTRACT)
    await page.getByRole('button', { name: 'Find experts' }).click()
    await page.locator('#results').waitFor()
    const names = await page.locator('#results .expert-card h3').allTextContents()
    assert.equal(names[0], 'Coral Browser', names.join(', '))
    assert.ok(!names.includes('Drafty Browser'))
    const reasons = await page.locator('#results .expert-card').first().locator('.reason').allTextContents()
    assert.ok(
      reasons.some((reason) => reason.startsWith('Works on:')),
      reasons.join(' | '),
    )
  }

  for (const width of [1280, 360])
    test(`paste a text, submit, see the experts and their reasons at ${width} px`, { skip }, async () =>
      withPage({ width }, async (page) => {
        await page.goto(`${directory}/story/`)
        await page.getByLabel('Your story').fill('Flood risk')
        assert.equal(await page.locator('#story-hint').textContent(), '10 of 20,000 characters.')
        await describeStory(page)
        await assertAccessible(page, `the story page at ${width} px`)
        assert.ok((await pageWidth(page)) <= width, 'no sideways scrolling')
        await screenshot(page, `directory-story-${width}`)
        await page.locator('#results .expert-card h3 a').first().click()
        await page.getByRole('heading', { name: 'Similar experts' }).waitFor()
        const similar = await page.locator('.similar .expert-card h3').allTextContents()
        assert.ok(
          similar.includes('Brook Browser') && !similar.includes('Drafty Browser'),
          similar.join(', '),
        )
        await assertAccessible(page, `an expert page with similar experts at ${width} px`)
        assert.ok((await pageWidth(page)) <= width, 'no sideways scrolling')
        await page.getByRole('heading', { name: 'Similar experts' }).scrollIntoViewIfNeeded()
        await screenshot(page, `directory-similar-${width}`)
      }),
    )

  test('without JavaScript the form works the same', { skip }, async () =>
    withPage({ width: 1280, javaScript: false }, async (page) => {
      await describeStory(page)
      await page.getByLabel('Your story').fill('x'.repeat(20_001))
      await page.getByRole('button', { name: 'Find experts' }).click()
      await page.locator('#story-error').waitFor()
      assert.match((await page.locator('#story-error').textContent()) ?? '', /use at most 20,000/)
      await screenshot(page, 'directory-story-too-long')
    }),
  )
})
