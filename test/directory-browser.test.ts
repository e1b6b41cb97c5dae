import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import { after, before, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { browserSkip, closeSharedBrowsers, sharedBrowser } from './helpers/browser.js'
import { present } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'

/** The browser's own function, called inside the page (the tests are compiled without the DOM library). */
declare function getComputedStyle(element: unknown): { backgroundColor: string }

const skip = await browserSkip()
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js')
/** The directory and the site that embeds its widget: two origins, both on 127.0.0.1. */
const DIRECTORY_HOST = 'experts.example.test'
const NEWS_HOST = 'news.example.test'

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[]
}

/** axe-core's serious and critical violations on the page, as `rule: targets` lines. */
async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT })
  const result = await page.evaluate<AxeResult>('axe.run(document)')
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`)
}

/** A page of another site that embeds the widget, themed by its own CSS custom properties. */
function embeddingPage(directory: string, orgId: number, pageSize = 6): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Newsroom</title>
<style>expert-directory { --expert-directory-accent: rgb(128, 0, 0); }</style></head>
<body><main><h1>Our sources</h1>
<expert-directory corporation="${orgId}" topics="Climate" page-size="${pageSize}"></expert-directory>
<script src="${directory}/directory/widget.js"></script></main></body></html>`
}

after(closeSharedBrowsers)

/**
 * The public directory in a real browser: the find-an-expert page without JavaScript (form and links
 * alone) and with it, the widget embedded in a page of another origin, and axe-core on every page type.
 */
describeEachDialect('the public directory in a real browser', (ctx) => {
  let browser: Browser | undefined
  let news: Server | undefined
  let directory = ''
  let newsOrigin = ''
  let post = 0
  let question = 0

  before(async () => {
    if (skip) return
    const org = ctx.tenant.orgId
    await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${org}`,
      headers: ctx.tenant.auth,
      payload: { public_directory: 1, brand_color: '#0b3d6b', accent_color: '#b45309' },
    })
    const expert = (key: string, firstname: string, topic: string, published = 1) => ({
      key,
      firstname,
      lastname: 'Browser',
      job_title: 'Researcher',
      email: `${key}@uni.example`,
      company: 'Main University',
      is_published: published,
      sections: {
        topic: [{ name: topic }],
        tagline: [{ tagline: `${firstname} explains ${topic.toLowerCase()}` }],
        biography: [
          {
            biography: `<p>${firstname} studies ${topic.toLowerCase()}.</p><ul><li>Field work</li><li>Teaching</li></ul>`,
          },
        ],
      },
    })
    const result = await importDocument(ctx, org, {
      experts: [
        expert('amara', 'Amara', 'Climate'),
        expert('bo', 'Bo', 'Health'),
        expert('cy', 'Cy', 'Climate'),
        expert('draft', 'Drafty', 'Climate', 0),
      ],
      spotlights: [
        { key: 'p', title: 'Longer heat waves', html: '<p>Text.</p>', published: 1, experts: ['amara'] },
      ],
      questions: [
        {
          key: 'q',
          question: 'Why?',
          published: 1,
          answers: [{ key: 'a', expert: 'amara', answer: '<p>Because.</p>' }],
        },
      ],
    })
    post = present(result.ids.spotlights[0])
    question = present(result.ids.questions[0])
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    directory = `http://${DIRECTORY_HOST}:${listeningPort(ctx.app.server)}`
    news = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      const size = new URL(request.url ?? '/', 'http://x').searchParams.get('page-size')
      response.end(embeddingPage(directory, org, size ? Number(size) : undefined))
    })
    await new Promise<void>((resolve) => news?.listen(0, '127.0.0.1', resolve))
    newsOrigin = `http://${NEWS_HOST}:${listeningPort(news)}`
    browser = await sharedBrowser([DIRECTORY_HOST, NEWS_HOST])
  })
  after(async () => {
    await new Promise((resolve) => (news ? news.close(resolve) : resolve(undefined)))
  })

  async function withContext<T>(
    options: Parameters<Browser['newContext']>[0],
    use: (context: BrowserContext) => Promise<T>,
  ): Promise<T> {
    if (!browser) throw new Error('no browser')
    const context = await browser.newContext(options)
    try {
      return await use(context)
    } finally {
      await context.close()
    }
  }

  test(
    'without JavaScript: search with the form, filter with a facet link, open an expert',
    { skip },
    async () =>
      withContext({ javaScriptEnabled: false }, async (context) => {
        const page = await context.newPage()
        await page.goto(`${directory}/directory/${ctx.tenant.orgId}/`)
        await page.getByLabel('Search by name, topic or keyword').fill('amara')
        await page.getByRole('button', { name: 'Search' }).click()
        await page.waitForURL(/\?q=amara/)
        assert.deepEqual(await page.locator('.expert-card h3').allTextContents(), ['Amara Browser'])

        await page.goto(`${directory}/directory/${ctx.tenant.orgId}/`)
        await page
          .getByRole('navigation', { name: 'Filters' })
          .getByRole('link', { name: /^Climate/ })
          .click()
        await page.waitForURL(/topics=Climate/)
        assert.deepEqual(await page.locator('.expert-card h3').allTextContents(), [
          'Amara Browser',
          'Cy Browser',
        ])
        await page.getByRole('link', { name: 'Cy Browser' }).click()
        await page.waitForURL(/\/cy-browser$/)
        assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Cy Browser')
        await page.getByRole('textbox', { name: 'Message' }).waitFor()
      }),
  )

  test('with JavaScript: the results follow the search box as one types', { skip }, async () =>
    withContext({}, async (context) => {
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(error.message))
      // Over plain HTTP the browser also notes that it ignores Cross-Origin-Opener-Policy: not an error of ours.
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().includes('Cross-Origin-Opener-Policy'))
          errors.push(message.text())
      })
      await page.goto(`${directory}/directory/${ctx.tenant.orgId}/`)
      await page.getByLabel('Search by name, topic or keyword').pressSequentially('bo')
      await page.locator('#results-heading', { hasText: '1 expert' }).waitFor()
      assert.deepEqual(await page.locator('.expert-card h3').allTextContents(), ['Bo Browser'])
      assert.match(page.url(), /\?q=bo$/)
      assert.deepEqual(errors, [], 'no script or CSP error')
    }),
  )

  test(
    'the widget on a page of another origin: search and a profile in its shadow root, no credentials sent',
    { skip },
    async () =>
      withContext({}, async (context) => {
        await context.addCookies([{ name: 'session', value: 'secret', url: directory }])
        const page = await context.newPage()
        const cookies: string[] = []
        page.on('request', (request) => {
          if (request.url().startsWith(directory)) cookies.push(request.headers().cookie ?? '')
        })
        const errors: string[] = []
        page.on('pageerror', (error) => errors.push(error.message))
        await page.goto(`${newsOrigin}/`)
        const widget = page.locator('expert-directory')
        await widget.getByRole('listitem').first().waitFor()
        assert.deepEqual(await widget.getByRole('heading', { level: 3 }).allTextContents(), [
          'Amara Browser',
          'Cy Browser',
        ])
        assert.equal(
          await widget
            .getByRole('button', { name: 'Search' })
            .evaluate((button) => getComputedStyle(button).backgroundColor),
          'rgb(128, 0, 0)',
          'the embedding page themes the widget',
        )
        await widget.getByRole('searchbox').fill('cy')
        await widget.getByRole('button', { name: 'Search' }).click()
        await widget.getByText('1 expert', { exact: true }).waitFor()
        await widget.getByRole('button', { name: 'Cy Browser' }).click()
        await widget.getByRole('heading', { level: 2, name: 'Cy Browser' }).waitFor()
        await widget.getByText('Cy studies climate.').waitFor()
        const full = widget.getByRole('link', { name: 'Full profile and contact form' })
        assert.equal(await full.getAttribute('href'), `${directory}/directory/${ctx.tenant.orgId}/cy-browser`)
        assert.ok(!(await page.content()).includes('Drafty'))
        assert.ok(cookies.length >= 3, 'the widget fetched its script and data')
        assert.deepEqual(cookies.filter(Boolean), [], 'no cookie of the directory was sent')
        assert.deepEqual(errors, [])
      }),
  )

  test('the widget pages its results and shows the biography as paragraphs and lists', { skip }, async () =>
    withContext({}, async (context) => {
      const page = await context.newPage()
      await page.goto(`${newsOrigin}/?page-size=1`)
      const widget = page.locator('expert-directory')
      await widget.getByText('Page 1 of 2').waitFor()
      assert.deepEqual(await widget.getByRole('heading', { level: 3 }).allTextContents(), ['Amara Browser'])
      assert.equal(await widget.getByRole('button', { name: 'Previous page' }).isDisabled(), true)
      await widget.getByRole('button', { name: 'Next page' }).click()
      await widget.getByText('Page 2 of 2').waitFor()
      assert.deepEqual(await widget.getByRole('heading', { level: 3 }).allTextContents(), ['Cy Browser'])
      await widget.getByRole('button', { name: 'Cy Browser' }).click()
      await widget.getByRole('heading', { level: 2, name: 'Cy Browser' }).waitFor()
      assert.equal(await widget.locator('.biography p').textContent(), 'Cy studies climate.')
      assert.deepEqual(await widget.locator('.biography ul li').allTextContents(), ['Field work', 'Teaching'])
      await widget.getByRole('button', { name: 'Back to the search' }).click()
      await widget.getByText('Page 2 of 2').waitFor()
      assert.deepEqual(await accessibilityViolations(page), [])
    }),
  )

  test('axe-core finds no serious or critical violation on any page type', { skip }, async () =>
    withContext({ bypassCSP: true }, async (context) => {
      const page = await context.newPage()
      const org = ctx.tenant.orgId
      for (const path of [
        '/',
        '/?topics=Climate&page=1',
        '/amara-browser',
        `/spotlight/${post}`,
        `/qanda/${question}`,
        '/amara-browser/contact?kind=media',
        '/no-such-expert',
        '/?q=nobody-at-all',
        '/spotlight/',
        '/qanda/',
      ]) {
        await page.goto(`${directory}/directory/${org}${path}`)
        assert.deepEqual(await accessibilityViolations(page), [], path)
      }
    }),
  )
})
