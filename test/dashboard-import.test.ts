import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import { contentRowCounts } from './helpers/content.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  pageWidth,
  screenshot,
  signInAt,
  withPage,
} from './helpers/dashboard.js'
import { describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

const PEOPLE = 2000
/** Data rows (0-based) made wrong: an empty surname, an email that is not one, an empty job title. */
const BAD = [120, 1033, 1987]

function peopleCsv(bad: boolean): string {
  const rows = Array.from({ length: PEOPLE }, (_, i) => {
    const n = i + 1
    const surname = bad && i === BAD[0] ? '' : `Person${n}`
    const email = bad && i === BAD[1] ? 'nobody-at-example' : `hr${n}@org.example`
    const title = bad && i === BAD[2] ? '' : 'Researcher'
    return `hr-${n},Ada,${surname},${title},${email},Org,Energy; Climate`
  })
  return `Staff ID,First name,Last name,Job title,Email,Company,Topics\n${rows.join('\n')}\n`
}

/**
 * The Import people screen (CONTRACT §19) in a real headless Chromium against the real server: a CSV
 * of 2,000 people with 3 bad rows is refused with all three named by row and column, the fixed file
 * is imported, and importing it again changes nothing.
 */
describeEachDialect('the Import people screen in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let editor = { email: '', password: '' }
  const dir = mkdtempSync(join(tmpdir(), 'expertdir-csv-'))
  const badFile = join(dir, 'people-bad.csv')
  const goodFile = join(dir, 'people.csv')

  before(async () => {
    if (skip) return
    writeFileSync(badFile, peopleCsv(true))
    writeFileSync(goodFile, peopleCsv(false))
    editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const choose = async (page: Page, file: string) => {
    await page.getByLabel('Choose a CSV file').setInputFiles(file)
  }

  test('3 bad rows of 2,000 are all reported and nothing is written; the fixed file imports; again, nothing changes', {
    skip,
  }, async () => {
    await withPage(browser, async (page) => {
      await signInAt(page, `${origin}/admin/experts`, editor)
      await page.getByRole('link', { name: 'Import from CSV' }).click()
      await page.getByRole('heading', { name: 'Import people' }).waitFor()

      const before = await contentRowCounts(ctx)
      await choose(page, badFile)
      const alert = page.getByRole('alert').filter({ hasText: 'problems' })
      await alert.waitFor()
      assert.match(await alert.innerText(), /^3 problems/)
      const problems = await page.locator('.import-problems li').allInnerTexts()
      assert.equal(problems.length, 3)
      assert.match(problems[0] ?? '', /^Row 122, column Last name/)
      assert.match(problems[1] ?? '', /^Row 1035, column Email/)
      assert.match(problems[2] ?? '', /^Row 1989, column Job title/)
      assert.equal(await page.getByRole('button', { name: `Import ${PEOPLE} people` }).isDisabled(), true)
      assert.equal(await page.getByLabel('Field of the column Staff ID').inputValue(), 'key')
      await assertAccessible(page, 'import people with problems')
      await screenshot(page, `import-people-${ctx.dialect}`)
      assert.deepEqual(await contentRowCounts(ctx), before)

      await choose(page, goodFile)
      await page.getByText(`Ready: ${PEOPLE} to create, 0 to update, 0 unchanged.`).waitFor()
      await page.getByRole('button', { name: `Import ${PEOPLE} people` }).click()
      await page.getByText(`Imported: ${PEOPLE} created, 0 updated, 0 unchanged.`).waitFor()
      const written = await contentRowCounts(ctx)
      assert.notDeepEqual(written, before)

      await choose(page, goodFile)
      await page.getByText(`Ready: 0 to create, 0 to update, ${PEOPLE} unchanged.`).waitFor()
      await page.getByRole('button', { name: `Import ${PEOPLE} people` }).click()
      await page.getByText(`Imported: 0 created, 0 updated, ${PEOPLE} unchanged.`).waitFor()
      assert.deepEqual(await contentRowCounts(ctx), written)
    })
  })

  test('at 360 px the screen does not scroll sideways', { skip }, async () => {
    await withPage(
      browser,
      async (page) => {
        await signInAt(page, `${origin}/admin/experts/import`, editor)
        await page.getByRole('heading', { name: 'Import people' }).waitFor()
        await choose(page, badFile)
        await page.locator('.import-problems li').first().waitFor()
        await screenshot(page, `import-people-${ctx.dialect}-360`)
        assert.ok((await pageWidth(page)) <= 360, `page width ${await pageWidth(page)}`)
      },
      { width: 360, height: 800 },
    )
  })
})
