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
  withPage as withPageOf,
} from './helpers/dashboard.js'
import { createExpert, createStaff, describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { PASSWORD, personToken } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

const NARROW = { width: 360, height: 740 }

/**
 * The audit log read by a person (who by name, what as a sentence, the record as a link, filtered by
 * person, client or record) and the deletes of an expert and a staff member behind a dialog that names
 * them, in a real headless Chromium against the real server.
 */
describeEachDialect('the audit log and deletes in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let owner = { id: 0, email: '', password: PASSWORD, token: '' }
  let ada = ''
  let mateo = ''
  const org = () => ctx.tenant.orgId
  const signIn = (page: Page, path: string) => signInAt(page, `${origin}/admin${path}`, owner)
  const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
    withPageOf(browser, run, viewport)
  /** A write as the owner, through the API with their dashboard token: the audit log names them. */
  const asOwner = async (method: 'POST' | 'PUT', path: string, payload: object) => {
    const response = await ctx.inject({
      method,
      url: `/v2/organization/${org()}${path}`,
      headers: { authorization: `Bearer ${owner.token}` },
      payload,
    })
    assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`)
  }
  const exists = async (kind: 'expert' | 'staff', username: string) =>
    (
      await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${org()}/${kind}/${username}`,
        headers: ctx.tenant.auth,
      })
    ).statusCode === 200

  before(async () => {
    if (skip) return
    ada = await createExpert(ctx, ctx.tenant, { firstname: 'Ada', lastname: 'Okafor' })
    mateo = await createExpert(ctx, ctx.tenant, { firstname: 'Mateo', lastname: 'García' })
    const person = await personToken(ctx, org(), 'owner')
    await ctx.testDatabase.database.db
      .updateTable('people')
      .set({ name: 'Grace Lee' })
      .where('id', '=', person.id)
      .execute()
    owner = { ...person, password: PASSWORD }
    await asOwner('POST', `/expert/${ada}/biography`, { biography: 'Genomics and machine learning.' })
    await asOwner('POST', `/expert/${mateo}/biography`, { biography: 'Energy policy.' })
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
  })

  test('the audit log says who changed what by name, links the record, and filters by person, client and record', {
    skip,
  }, async () => {
    await withPage(async (page) => {
      await signIn(page, '/audit')
      const rows = page.getByRole('row')
      const adaBiography = rows.filter({ hasText: 'Changed the biography of Ada Okafor' })
      await adaBiography.waitFor()
      assert.equal(await adaBiography.getByRole('cell').nth(1).innerText(), 'Grace Lee')
      const link = adaBiography.getByRole('link', { name: 'Ada Okafor' })
      assert.equal(await link.getAttribute('href'), `/admin/experts/${ada}`)
      assert.equal(
        await rows.filter({ hasText: 'Added the expert Ada Okafor' }).getByRole('cell').nth(1).innerText(),
        'test (API client)',
      )
      assert.equal(await rows.filter({ hasText: /Person \d|Client cl_|:corporation/ }).count(), 0)
      await assertAccessible(page, 'audit log')
      await screenshot(page, 'audit-log-1280')

      // Who: the API client's entries only, then Grace Lee's.
      await page.getByLabel('Who').selectOption({ label: 'test' })
      await rows.filter({ hasText: 'Changed the biography' }).first().waitFor({ state: 'detached' })
      await rows.filter({ hasText: 'Added the expert Ada Okafor' }).waitFor()
      assert.equal(await rows.filter({ hasText: 'Added the expert Mateo García' }).count(), 1)
      await page.getByLabel('Who').selectOption({ label: 'Grace Lee' })
      await rows.filter({ hasText: 'Added the expert' }).first().waitFor({ state: 'detached' })
      await rows.filter({ hasText: 'Changed the biography of Mateo García' }).waitFor()
      assert.equal(await rows.filter({ hasText: 'Changed the biography' }).count(), 2)
      await page.getByLabel('Who').selectOption({ label: 'Everyone' })
      await rows.filter({ hasText: 'Added the expert Ada Okafor' }).waitFor()

      // One record's history: Ada's entries, not Mateo's.
      await adaBiography.getByRole('button', { name: 'History of Ada Okafor' }).click()
      await page.getByRole('button', { name: 'History of Ada Okafor (show every record)' }).waitFor()
      await rows.filter({ hasText: 'Mateo García' }).first().waitFor({ state: 'detached' })
      assert.deepEqual(
        (await page.locator('tbody tr td[data-label="What"]').allInnerTexts()).map((text) => text.trim()),
        ['Changed the biography of Ada Okafor', 'Added the expert Ada Okafor'],
      )
      await screenshot(page, 'audit-log-history-1280')
      await link.click()
      await page.getByRole('heading', { name: 'Ada Okafor', level: 1 }).waitFor()
    })
    await withPage(async (page) => {
      await signIn(page, '/audit')
      await page.getByRole('row').filter({ hasText: 'Changed the biography of Ada Okafor' }).waitFor()
      assert.ok((await pageWidth(page)) <= 360, `audit log ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'audit log at 360 px')
      await screenshot(page, 'audit-log-360')
    }, NARROW)
  })

  test("a delegate's change names the delegate and the profile it acted for", { skip }, async () => {
    const lin = await createExpert(ctx, ctx.tenant, { firstname: 'Lin', lastname: 'Park' })
    const delegate = await personToken(ctx, org(), 'inquiries')
    await ctx.testDatabase.database.db
      .updateTable('people')
      .set({ name: 'Ben Ito' })
      .where('id', '=', delegate.id)
      .execute()
    await asOwner('POST', `/expert/${lin}/delegates`, {
      person: delegate.id,
      until: Math.floor(ctx.clock.now() / 1000) + 3600,
    })
    const written = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${org()}/expert/${lin}/tagline`,
      headers: { authorization: `Bearer ${delegate.token}` },
      payload: { tagline: 'Written by a delegate' },
    })
    assert.equal(written.statusCode, 200, written.body)
    await withPage(async (page) => {
      await signIn(page, '/audit')
      const row = page.getByRole('row').filter({ hasText: 'Changed the tagline of Lin Park' })
      await row.waitFor()
      assert.equal(await row.getByRole('cell').nth(1).innerText(), 'Ben Ito, as a delegate of Lin Park')
      const grant = page.getByRole('row').filter({ hasText: 'Let Ben Ito edit the profile of Lin Park' })
      assert.equal(await grant.getByRole('cell').nth(1).innerText(), 'Grace Lee')
    })
  })

  test('deletes an expert from its profile after a dialog that names it, then shows the list', {
    skip,
  }, async () => {
    const doomed = await createExpert(ctx, ctx.tenant, { firstname: 'Rosalind', lastname: 'Franklin' })
    await withPage(async (page) => {
      await signIn(page, `/experts/${doomed}`)
      await page.getByRole('heading', { name: 'Rosalind Franklin', level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Delete Rosalind Franklin' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete Rosalind Franklin?' })
      await dialog.waitFor()
      const confirm = dialog.getByRole('button', { name: 'Delete Rosalind Franklin' })
      assert.equal(await confirm.isDisabled(), true, 'nothing is deleted before the name is typed')
      await screenshot(page, 'delete-expert-dialog-1280')
      // Cancel keeps the expert.
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'detached' })
      assert.equal(await exists('expert', doomed), true)

      await page.getByRole('button', { name: 'Delete Rosalind Franklin' }).click()
      await dialog.getByLabel('Type Rosalind Franklin to confirm').fill('Rosalind')
      assert.equal(await confirm.isDisabled(), true)
      await dialog.getByLabel('Type Rosalind Franklin to confirm').fill('Rosalind Franklin')
      await assertAccessible(page, 'delete dialog')
      await confirm.click()
      await page.getByRole('heading', { name: 'Experts', level: 1 }).waitFor()
      await page.getByRole('status').filter({ hasText: 'Rosalind Franklin was deleted.' }).waitFor()
      assert.equal(await page.getByRole('link', { name: 'Rosalind Franklin' }).count(), 0)
      assert.equal(await exists('expert', doomed), false)
    })
    const second = await createExpert(ctx, ctx.tenant, { firstname: 'Chien-Shiung', lastname: 'Wu' })
    await withPage(async (page) => {
      await signIn(page, `/experts/${second}`)
      await page.getByRole('button', { name: 'Delete Chien-Shiung Wu' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete Chien-Shiung Wu?' })
      await dialog.getByLabel('Type Chien-Shiung Wu to confirm').fill('chien-shiung wu')
      assert.ok((await pageWidth(page)) <= 360, `dialog ${await pageWidth(page)} px wide`)
      await screenshot(page, 'delete-expert-dialog-360')
      await dialog.getByRole('button', { name: 'Delete Chien-Shiung Wu' }).click()
      await page.getByRole('status').filter({ hasText: 'Chien-Shiung Wu was deleted.' }).waitFor()
      assert.equal(await exists('expert', second), false)
    }, NARROW)
  })

  test('deletes a staff member from the staff list after a dialog that names them', { skip }, async () => {
    const kept = await createStaff(ctx, ctx.tenant, { firstname: 'Alan', lastname: 'Turing' })
    const doomed = await createStaff(ctx, ctx.tenant, { firstname: 'Joan', lastname: 'Clarke' })
    await withPage(async (page) => {
      await signIn(page, '/experts')
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Staff' }).click()
      const list = page.getByRole('list', { name: 'Staff members' })
      await list.getByText('Joan Clarke', { exact: true }).waitFor()
      await assertAccessible(page, 'staff list')
      await screenshot(page, 'staff-1280')
      await list.getByRole('button', { name: 'Delete Joan Clarke' }).click()
      const dialog = page.getByRole('dialog', { name: 'Delete Joan Clarke?' })
      await dialog.getByLabel('Type Joan Clarke to confirm').fill('Joan Clarke')
      await dialog.getByRole('button', { name: 'Delete Joan Clarke' }).click()
      await page.getByRole('status').filter({ hasText: 'Joan Clarke was deleted.' }).waitFor()
      await list.getByText('Joan Clarke', { exact: true }).waitFor({ state: 'detached' })
      assert.equal(await list.getByText('Alan Turing', { exact: true }).count(), 1)
      assert.equal(await exists('staff', doomed), false)
      assert.equal(await exists('staff', kept), true)
    })
    await withPage(async (page) => {
      await signIn(page, '/staff')
      await page
        .getByRole('list', { name: 'Staff members' })
        .getByText('Alan Turing', { exact: true })
        .waitFor()
      assert.ok((await pageWidth(page)) <= 360, `staff list ${await pageWidth(page)} px wide`)
      await screenshot(page, 'staff-360')
    }, NARROW)
  })
})
