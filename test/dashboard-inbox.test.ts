import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  pageWidth,
  screenshot,
  signInAt,
} from './helpers/dashboard.js'
import { createExpert, describeEachDialect, envelope, inquiryBody, type Tenant } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

/**
 * The inquiry inbox and the recipients screen (CONTRACT §17, §22) in a real headless Chromium against
 * the real server, on an organization as it is created: nobody is a notification recipient, and people
 * still assign inquiries to each other by name.
 */
describeEachDialect('the inbox in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let tenant: Tenant
  let owner = { email: '', password: '' }
  let press = { id: 0, email: '' }
  let mediaId = 0

  const named = async (role: string, name: string) => {
    const person = await addPersonWithPassword(ctx, tenant.orgId, role)
    await ctx.testDatabase.database.db
      .updateTable('people')
      .set({ name })
      .where('id', '=', person.id)
      .execute()
    return person
  }
  const api = async (method: 'GET' | 'POST', path: string, payload?: object) => {
    const response = await ctx.inject({
      method,
      url: `/v2/organization/${tenant.orgId}${path}`,
      headers: tenant.auth,
      ...(payload ? { payload } : {}),
    })
    assert.equal(response.statusCode, 200, response.body)
    return envelope(response).data as Record<string, unknown>
  }

  before(async () => {
    if (skip) return
    tenant = await ctx.addTenant(`Fresh Desk ${ctx.dialect}`)
    owner = await named('owner', 'Olive Owner')
    press = await named('inquiries', 'Pat Press')
    const username = await createExpert(ctx, tenant, { firstname: 'Katherine', lastname: 'Johnson' })
    await api('POST', '/inquiry/general', inquiryBody('general', username, { firstname: 'Pierre' }))
    const { username: _desk, ...media } = inquiryBody('media', username, { firstname: 'Nellie' })
    mediaId = Number((await api('POST', '/inquiry/media', media)).id)
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
  })

  /** A page in Toronto's time zone, so that dates must be converted to be right. */
  async function withTorontoPage(run: (page: Page) => Promise<void>) {
    assert.ok(browser)
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: 'America/Toronto',
      locale: 'en-US',
    })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`))
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) problems.push(message.text())
    })
    try {
      await run(page)
      assert.deepEqual(problems, [], 'no CSP violation or uncaught error')
    } finally {
      await context.close()
    }
  }

  /** Screenshots at 1280 and 360 px wide; the narrow one must not scroll sideways. */
  async function shots(page: Page, name: string) {
    await screenshot(page, `${name}-1280`)
    await page.setViewportSize({ width: 360, height: 800 })
    assert.ok((await pageWidth(page)) <= 360, `${name} fits 360 px`)
    await screenshot(page, `${name}-360`)
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  test('a person assigns an inquiry to a colleague from the picker; the detail shows labels and dates in the reader’s time zone', {
    skip,
  }, async () => {
    await withTorontoPage(async (page) => {
      await signInAt(page, `${origin}/admin/inquiries`, owner)
      const list = page.getByRole('region', { name: 'Inquiry list' })
      const row = list.getByRole('button', { name: /Nellie/ })
      await row.getByText('Unassigned').waitFor()
      // 1767225600 is 2026-01-01 00:00 UTC: the evening before in Toronto.
      await row.getByText(/Deadline: Dec 31, 2025, 07:00 PM EST/).waitFor()
      await row.getByText('New', { exact: true }).waitFor()
      await shots(page, 'inbox-list')

      await row.click()
      const detail = page.getByRole('region', { name: 'Media inquiry from Nellie Lovelace' })
      const facts = detail.locator('dl')
      await facts.getByText('Deadline', { exact: true }).waitFor()
      await facts.getByText('Dec 31, 2025, 07:00 PM EST').waitFor()
      await facts.getByText('Position', { exact: true }).waitFor()
      await facts.getByText('News director').waitFor()
      await facts.getByText('First name', { exact: true }).waitFor()
      const text = await detail.innerText()
      for (const raw of ['media_position', 'media position', 'firstname', 'news_director', '1767225600'])
        assert.ok(!text.includes(raw), `no raw "${raw}" in the detail`)

      await detail.getByLabel('Assignee').selectOption({ label: `Pat Press (${press.email})` })
      await detail.getByRole('button', { name: 'Save' }).click()
      await detail.getByRole('status').getByText('Saved.').waitFor()
      const stored = await api('GET', `/inquiry/${mediaId}`)
      assert.deepEqual(
        [stored.status, stored.assignee],
        ['assigned', { id: press.id, name: 'Pat Press', email: press.email }],
      )
      await row.getByText('Assigned to Pat Press').waitFor()
      await assertAccessible(page, 'inquiry detail')
      await shots(page, 'inbox-detail')

      // Filters are pickers, and filtering keeps the open inquiry.
      await page.getByLabel('Assigned to').selectOption({ label: 'Pat Press' })
      await list.getByRole('button', { name: /Pierre/ }).waitFor({ state: 'detached' })
      await row.waitFor()
      await detail.waitFor()
      assert.match(page.url(), /assignee=\d+/)
      await page.getByLabel('Status').first().selectOption({ label: 'Spam' })
      await list.getByText('No inquiry matches these filters.').waitFor()
      await detail.waitFor()
      await page.getByLabel('Status').first().selectOption({ label: 'Any status' })
      await page.getByLabel('Assigned to').selectOption({ label: 'Anyone' })
      await page.getByRole('searchbox', { name: 'Expert' }).fill('Katherine')
      await page.getByRole('button', { name: 'Find expert' }).click()
      await page.getByRole('button', { name: 'Inquiries to Katherine Johnson' }).click()
      await page.getByText('Expert: Katherine Johnson').waitFor()
      await list.getByRole('button', { name: /Pierre/ }).waitFor()
      await row.waitFor({ state: 'detached' })
    })
  })

  test('the recipients screen, linked from the organization, saves who is emailed', { skip }, async () => {
    await withTorontoPage(async (page) => {
      await signInAt(page, `${origin}/admin/organization`, owner)
      await page.getByRole('link', { name: 'Who is emailed about inquiries' }).click()
      await page.getByRole('heading', { name: 'Who is emailed about inquiries' }).waitFor()
      const media = page.getByRole('group', { name: 'Media inquiries' })
      await media.getByLabel('Desk addresses').fill('press@desk.example\nnews@desk.example')
      await media.getByLabel('Email the desk about inquiries to experts too').check()
      const general = page.getByRole('group', { name: 'General inquiries' })
      await general.getByLabel('Desk addresses').fill('not an address')
      await page.getByRole('button', { name: 'Save' }).click()
      await page.getByRole('alert').getByText('“not” (General inquiries) is not an email address.').waitFor()
      await general.getByLabel('Desk addresses').fill('')
      await page.getByRole('button', { name: 'Save' }).click()
      await page
        .getByRole('status')
        .getByText(/^Saved\./)
        .waitFor()
      const settings = await api('GET', '/notifications')
      assert.deepEqual(settings.media, {
        recipients: ['press@desk.example', 'news@desk.example'],
        expert: 1,
        assistant: 0,
        desk: 1,
      })
      assert.deepEqual(settings.general, { recipients: [], expert: 1, assistant: 0, desk: 0 })
      await assertAccessible(page, 'recipients')
      await shots(page, 'recipients')
    })
  })

  test('an empty inbox says so', { skip }, async () => {
    const empty = await ctx.addTenant(`Empty Desk ${ctx.dialect}`)
    const person = await addPersonWithPassword(ctx, empty.orgId, 'inquiries')
    await withTorontoPage(async (page) => {
      await signInAt(page, `${origin}/admin/inquiries`, person)
      await page.getByText(/^No inquiries yet\./).waitFor()
    })
  })
})
