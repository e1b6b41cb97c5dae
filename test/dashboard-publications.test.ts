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
import { eventually } from './helpers/eventually.js'
import { createExpert, describeEachDialect, type TestContext } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'
import { AuthoredSource, authoredWork } from './helpers/works.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

const NARROW = { width: 360, height: 740 }
const ADA_ORCID = '0000-0002-1825-0097'
const BO_ORCID = '0000-0001-5109-3700'
const ADA_WORKS = ['Pollen counts in city parks', 'Bees at night', 'A survey of moths', 'Wasps and figs']
const BO_WORKS = ['Glacier retreat', 'Ice cores from the Andes', 'Snow and soot']

/** The scholarly source of these tests: it offers each expert works found by name and affiliation. */
const orcid = new AuthoredSource('orcid')
for (const [iD, titles] of [
  [ADA_ORCID, ADA_WORKS],
  [BO_ORCID, BO_WORKS],
] as const)
  orcid.works.set(
    iD,
    titles.map((title, n) =>
      authoredWork('orcid', {
        doi: `10.1000/${iD}-${n}`,
        title,
        year: 2020 + n,
        container: 'Journal of Field Studies',
        authors: [
          { name: 'Ada Okafor', position: 'first' },
          { name: 'Bo Lindqvist', position: 'last' },
        ],
        foundBecause: 'name_affiliation',
        score: 0.4,
      }),
    ),
  )

/** An expert with an ORCID iD, published, whose works a refresh has put in its queue. */
async function expertWithWorks(ctx: TestContext, names: { firstname: string; lastname: string }, iD: string) {
  const client = api(ctx.app, ctx.tenant)
  const username = await createExpert(ctx, ctx.tenant, names)
  const params = { corporation: ctx.tenant.orgId, username }
  expectOk(
    await client.put('/v2/organization/{corporation}/expert/{username}', {
      params,
      body: { orcid: iD, is_published: 1 },
    }),
  )
  const started = await client.post('/v2/organization/{corporation}/expert/{username}/works/refresh', {
    params,
  })
  assert.equal(started.statusCode, 202, started.body)
  const run: { id: number } = started.json().data
  await eventually(
    async () => {
      const { runs } = expectOk(
        await client.get('/v2/organization/{corporation}/imports', {
          params: { corporation: ctx.tenant.orgId },
        }),
      )
      return runs.find((entry) => entry.id === run.id && entry.status === 'finished')
    },
    { what: `the refresh of ${username}`, timeoutMs: 10_000 },
  )
  return username
}

/**
 * The Publications screens (CONTRACT §19) in a real headless Chromium against the real server: an expert
 * person decides on its own queue, an editor decides for another expert in bulk and reads the runs.
 */
describeEachDialect(
  'the Publications screens in a real browser',
  (ctx) => {
    let browser: Browser | undefined
    let origin = ''
    let ada = ''
    let bo = ''

    before(async () => {
      if (skip) return
      expectOk(
        await api(ctx.app, ctx.tenant).put('/v2/organization/{corporation}', {
          params: { corporation: ctx.tenant.orgId },
          body: { public_directory: 1 },
        }),
      )
      ada = await expertWithWorks(ctx, { firstname: 'Ada', lastname: 'Okafor' }, ADA_ORCID)
      bo = await expertWithWorks(ctx, { firstname: 'Bo', lastname: 'Lindqvist' }, BO_ORCID)
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
      browser = await launchBrowser()
    })
    after(async () => {
      await browser?.close()
    })

    const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
      withPageOf(browser, run, viewport)
    const worksOf = async (username: string) =>
      expectOk(
        await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}/works', {
          params: { corporation: ctx.tenant.orgId, username },
        }),
      ).works

    test('an expert person claims two of its works and rejects one: the profile and its public page show exactly the two', {
      skip,
    }, async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'expert', { expert: ada })
      const [first, second, third] = ADA_WORKS
      assert.ok(first && second && third)
      await withPage(async (page) => {
        await signInAt(page, `${origin}/admin/`, person)
        await page.getByRole('link', { name: 'Publications found by the sources' }).click()
        await page.getByRole('heading', { name: 'Publications', exact: true }).waitFor()
        const pending = page.getByRole('list', { name: 'Waiting for a decision' })
        await pending
          .getByRole('listitem')
          .nth(ADA_WORKS.length - 1)
          .waitFor()
        await pending.getByText('Name and affiliation match · score 40%').first().waitFor()
        await screenshot(page, 'publications')

        await page.getByRole('button', { name: `Claim ${first}` }).click()
        await page.getByRole('status').getByText('1 work claimed.').waitFor()
        await page.getByRole('list', { name: 'Claimed (shown as articles)' }).getByText(first).waitFor()
        await page.getByRole('button', { name: `Claim ${second}` }).click()
        await page.getByRole('list', { name: 'Claimed (shown as articles)' }).getByText(second).waitFor()
        await page.getByRole('button', { name: `Reject ${third}` }).click()
        await page.getByRole('list', { name: 'Rejected' }).getByText(third).waitFor()
        assert.equal(await pending.getByRole('listitem').count(), 1)
        await assertAccessible(page, 'publications')

        // The expert reads how its own refreshes end, the one it starts included.
        const lastRun = page.getByRole('region', { name: `Refresh of ${ada}` })
        await lastRun.getByText(/^Found 4: 4 new/).waitFor()
        await page.getByRole('button', { name: 'Refresh now' }).click()
        await page.getByRole('status').getByText('The refresh has started.').waitFor()
        await lastRun.getByText(/^Found 4: 0 new/).waitFor()
        await lastRun.getByText('finished').waitFor()

        // The organization's run log is not an expert person's: it lands on its own profile.
        await page.goto(`${origin}/admin/publications`)
        await page.getByRole('link', { name: 'Publications found by the sources' }).waitFor()
        assert.equal(new URL(page.url()).pathname, `/admin/experts/${ada}`)
      })
      await withPage(async (page) => {
        await signInAt(page, `${origin}/admin/experts/${ada}/publications`, person)
        await page.getByRole('list', { name: 'Claimed (shown as articles)' }).getByText(first).waitFor()
        assert.ok((await pageWidth(page)) <= NARROW.width, `publications ${await pageWidth(page)} px wide`)
        await assertAccessible(page, 'publications at 360 px')
        await screenshot(page, 'publications-360')
      }, NARROW)

      const profile = expectOk(
        await api(ctx.app, ctx.tenant).get('/v2/organization/{corporation}/expert/{username}', {
          params: { corporation: ctx.tenant.orgId, username: ada },
        }),
      )
      assert.deepEqual(profile.article.map((article) => article.title).sort(), [first, second].sort())
      await withPage(async (page) => {
        await page.goto(`${origin}/directory/${ctx.tenant.orgId}/${ada}`)
        const articles = page.getByRole('region', { name: 'Articles' }).getByRole('listitem')
        await articles.first().waitFor()
        const shown = await articles.allTextContents()
        assert.equal(shown.length, 2, shown.join(' | '))
        for (const title of [first, second])
          assert.ok(
            shown.some((text) => text.startsWith(title)),
            title,
          )
        assert.ok(shown.every((text) => text.includes('Journal of Field Studies')))
      })
    })

    test('an editor reads the runs, opens an expert’s queue and claims all of it at once; a failing source is told', {
      skip,
    }, async () => {
      const editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      await withPage(async (page) => {
        await signInAt(page, `${origin}/admin/experts`, editor)
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Publications' })
          .click()
        const runs = page.getByRole('list', { name: 'Refreshes' })
        await runs
          .getByRole('region', { name: `Refresh of ${bo}` })
          .getByText('Found 3: 3 new')
          .waitFor()
        await assertAccessible(page, 'publication refreshes')
        await screenshot(page, 'publication-refreshes')
        await runs.getByRole('link', { name: `${bo}’s publications` }).click()

        const pending = page.getByRole('list', { name: 'Waiting for a decision' })
        await pending
          .getByRole('listitem')
          .nth(BO_WORKS.length - 1)
          .waitFor()
        await page.getByRole('checkbox', { name: 'Select all' }).check()
        await page.getByLabel('Decision for the selected works').selectOption('claimed')
        await page.getByRole('button', { name: `Apply to ${BO_WORKS.length} selected` }).click()
        await page.getByRole('status').getByText(`${BO_WORKS.length} works claimed.`).waitFor()
        await pending.waitFor({ state: 'detached' })
        assert.deepEqual(
          (await worksOf(bo)).map((work) => work.state),
          BO_WORKS.map(() => 'claimed'),
        )

        orcid.failWith = 'ORCID answered 503'
        try {
          await page.getByRole('button', { name: 'Refresh now' }).click()
          await page.getByRole('status').getByText('The refresh has started.').waitFor()
          const run = page.getByRole('region', { name: `Refresh of ${bo}` })
          await run.getByRole('list', { name: 'Errors' }).getByText('ORCID answered 503').waitFor()
          await run.getByText(/^Found 3:/).waitFor()
        } finally {
          orcid.failWith = undefined
        }
        await assertAccessible(page, 'publications after a refresh')
        await screenshot(page, 'publications-refreshed')
      })
    })
  },
  { workSources: [orcid] },
)
