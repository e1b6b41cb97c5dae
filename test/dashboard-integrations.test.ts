import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { Type } from 'typebox'
import { createOutbox } from '../src/delivery/outbox.js'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import { parsed } from './helpers/checked.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  screenshot,
  signInAt,
  withPage,
} from './helpers/dashboard.js'
import {
  createExpert,
  describeEachDialect,
  inquiryBody,
  type Tenant,
  type TestContext,
} from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'
import { verifySignature, WebhookReceiver } from './helpers/receivers.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

/**
 * The Integrations screen (CONTRACT §15) in a real headless Chromium against the real server: API
 * clients with their scopes and a secret shown once, revocation, the webhook with its secret, a signed
 * test delivery to a real receiver, and the delivery log. Each test has an organization of its own.
 */
describeEachDialect('the integrations screen in a real browser', integrationsScreen, {
  // The receiver listens on 127.0.0.1, which webhooks may reach only when the operator allows it.
  config: { webhookAllowPrivate: true },
})

function integrationsScreen(ctx: TestContext): void {
  let browser: Browser | undefined
  let origin = ''
  const receiver = new WebhookReceiver()

  before(async () => {
    if (skip) return
    await receiver.start()
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await launchBrowser()
  })
  after(async () => {
    await browser?.close()
    await receiver.stop()
  })

  /** A new organization (with a client of every scope, for the test's own API calls) and its owner. */
  async function organizationWithOwner(name: string) {
    const tenant = await ctx.addTenant(name)
    const owner = await addPersonWithPassword(ctx, tenant.orgId, 'owner')
    return { tenant, owner }
  }

  async function openIntegrations(page: Page, person: { email: string; password: string }) {
    await signInAt(page, `${origin}/admin/experts`, person)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).click()
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor()
  }

  /** Calls the API over HTTP as a website would. */
  const http = (path: string, init: RequestInit = {}) => fetch(`${origin}${path}`, init)

  async function sendInquiries(tenant: Tenant, count: number): Promise<number[]> {
    const username = await createExpert(ctx, tenant)
    const ids: number[] = []
    for (let n = 0; n < count; n++) {
      const response = await ctx.inject({
        method: 'POST',
        url: `/v2/organization/${tenant.orgId}/inquiry/general`,
        headers: tenant.auth,
        payload: inquiryBody('general', username, { firstname: `Sender ${n}` }),
      })
      assert.equal(response.statusCode, 200, response.body)
      ids.push(response.json().data.id)
    }
    return ids
  }

  test('an owner creates a client with chosen scopes, sees its secret once, and revokes it: its token stops working', {
    skip,
  }, async () => {
    const { tenant, owner } = await organizationWithOwner('Clients University')
    const username = await createExpert(ctx, tenant)
    await withPage(browser, async (page) => {
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
      await openIntegrations(page, owner)
      const form = page.getByRole('form', { name: 'New client' })
      const scopes = form.getByRole('group', { name: 'Scopes' })
      for (const [scope, ticked] of [
        ['read', true],
        ['read:public', false],
        ['write', true],
        ['inquiries:create', true],
        ['inquiries:read', true],
        ['inquiries:handle', false],
        ['admin', false],
      ] as const)
        assert.equal(
          await scopes.getByLabel(scope, { exact: true }).isChecked(),
          ticked,
          `${scope} by default`,
        )
      await assertAccessible(page, 'integrations')

      for (const scope of ['read', 'write', 'inquiries:create', 'inquiries:read'])
        await scopes.getByLabel(scope, { exact: true }).uncheck()
      await form.getByLabel('Name').fill('www.example.edu')
      await form.getByRole('button', { name: 'Create the client' }).click()
      await scopes.getByText('Scopes: must not be empty').waitFor()
      assert.equal(await page.getByLabel('Client secret').count(), 0, 'nothing created')

      await scopes.getByLabel('read', { exact: true }).check()
      await scopes.getByLabel('inquiries:create', { exact: true }).check()
      await form.getByRole('button', { name: 'Create the client' }).click()
      const box = page.getByRole('region', { name: 'The secret of “www.example.edu”' })
      await box.getByText('it will not be shown again').waitFor()
      const secret = await box.getByLabel('Client secret').inputValue()
      const clientId = (await box.locator('dd code').textContent()) ?? ''
      assert.match(clientId, /^cl_/)
      assert.ok(secret.length >= 40)
      await box.getByRole('button', { name: 'Copy client secret' }).click()
      await box.getByRole('status').getByText('Copied to the clipboard.').waitFor()
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret)
      const row = page.getByRole('row', { name: /www\.example\.edu/ })
      await row.getByRole('cell', { name: clientId }).waitFor()
      assert.match((await row.textContent()) ?? '', /read\s*inquiries:create/)
      await assertAccessible(page, 'integrations with a new secret')
      await page.evaluate('window.scrollTo(0, 0)')
      await screenshot(page, 'integrations')

      const token = await http('/v2/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: secret,
        }),
      })
      assert.equal(token.status, 200)
      const granted = parsed(
        Type.Object({ access_token: Type.String(), scope: Type.String() }),
        await token.json(),
      )
      assert.equal(granted.scope, 'read inquiries:create')
      const bearer = { authorization: `Bearer ${granted.access_token}` }
      const profile = `/v2/organization/${tenant.orgId}/expert/${username}`
      assert.equal((await http(profile, { headers: bearer })).status, 200)
      const write = await http(profile, {
        method: 'PUT',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ job_title: 'Changed' }),
      })
      assert.equal(write.status, 403, 'write was not chosen')

      // Leaving the screen drops the secret: coming back shows the client, never its secret again.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
      await page.getByRole('heading', { name: 'Audit log' }).waitFor()
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).click()
      await row.getByRole('cell', { name: clientId }).waitFor()
      assert.equal(await page.getByLabel('Client secret').count(), 0)
      assert.ok(!(await page.content()).includes(secret), 'the secret is nowhere in the page')

      const confirmation = new Promise<string>((resolve) => {
        page.once('dialog', (dialog) => {
          resolve(dialog.message())
          void dialog.accept()
        })
      })
      await row.getByRole('button', { name: 'Revoke www.example.edu' }).click()
      const asked = await confirmation
      assert.match(asked, /“www\.example\.edu”/)
      assert.ok(asked.includes(clientId))
      assert.match(asked, /stops working at once/)
      await page.getByRole('status').getByText('The client “www.example.edu” is revoked.').waitFor()
      await row.getByText('Revoked').waitFor()
      assert.equal(await row.getByRole('button', { name: /Revoke/ }).count(), 0)
      assert.equal((await http(profile, { headers: bearer })).status, 401, 'its token is refused')
    })
  })

  test('an owner sets the webhook to a receiver, sends signed test deliveries, keeps or rotates the secret, reads the delivery log, removes it', {
    skip,
  }, async () => {
    const { tenant, owner } = await organizationWithOwner('Webhook Hospital')
    // The receiver checks a signature's age against real time, as docs/webhooks.md tells receivers to.
    ctx.clock.current = Math.max(ctx.clock.current, Date.now())
    await withPage(browser, async (page) => {
      await openIntegrations(page, owner)
      const webhook = page.getByRole('region', { name: 'Webhook' })
      await webhook.getByText('Not configured').waitFor()
      await webhook.getByText('No inquiry has been sent to the webhook yet.').waitFor()
      assert.equal(await webhook.getByLabel('Keep the signing secret').count(), 0, 'nothing to keep yet')
      assert.equal(await webhook.getByRole('button', { name: 'Send a test delivery' }).count(), 0)
      await assertAccessible(page, 'integrations without a webhook')

      await webhook.getByLabel('Webhook URL').fill('ftp://example.org/hook')
      await webhook.getByRole('button', { name: 'Set the webhook' }).click()
      await webhook.getByText(/^Webhook URL must be/).waitFor()
      assert.equal(await webhook.getByLabel('Webhook URL').getAttribute('aria-invalid'), 'true')

      await webhook.getByLabel('Webhook URL').fill(receiver.url)
      await webhook.getByRole('button', { name: 'Set the webhook' }).click()
      const box = webhook.getByRole('region', { name: 'The new signing secret' })
      const secret = await box.getByLabel('Signing secret', { exact: true }).inputValue()
      assert.match(secret, /^whsec_/)
      await webhook.getByText('Configured', { exact: true }).waitFor()
      await webhook.getByRole('definition').getByText(receiver.url).waitFor()

      const sent = receiver.requests.length
      await webhook.getByRole('button', { name: 'Send a test delivery' }).click()
      await webhook.getByRole('status').getByText('Test delivery: delivered').waitFor()
      const [ping] = receiver.requests.slice(sent)
      assert.ok(ping)
      assert.equal(ping.headers['x-expertdir-event'], 'ping')
      assert.ok(verifySignature(secret, String(ping.headers['x-expertdir-signature']), ping.body))

      await box.getByRole('button', { name: 'I have stored it' }).click()
      await webhook.getByLabel('Webhook URL').fill(`${receiver.url}?v=2`)
      await webhook.getByLabel('Keep the signing secret').check()
      await webhook.getByRole('button', { name: 'Save the webhook' }).click()
      await webhook.getByText('The URL is changed; the signing secret is the same.').waitFor()
      await webhook.getByRole('definition').getByText(`${receiver.url}?v=2`).waitFor()
      assert.equal(await webhook.getByLabel('Signing secret', { exact: true }).count(), 0)
      receiver.mode = 'fail'
      try {
        await webhook.getByRole('button', { name: 'Send a test delivery' }).click()
        await webhook
          .getByRole('alert')
          .getByText('Test delivery: not delivered. webhook answered HTTP 500')
          .waitFor()
      } finally {
        receiver.mode = 'ok'
      }
      const kept = receiver.requests.at(-1)
      assert.ok(kept && verifySignature(secret, String(kept.headers['x-expertdir-signature']), kept.body))

      // 21 inquiries reach the receiver through the outbox: the log shows 20, then one more.
      const ids = await sendInquiries(tenant, 21)
      const outbox = createOutbox({
        database: ctx.testDatabase.database,
        now: ctx.clock.now,
        config: { ...ctx.config, smtpUrl: '' },
      })
      let delivered = 0
      try {
        for (let run = await outbox.processOnce(); run.claimed > 0; run = await outbox.processOnce())
          delivered += run.delivered
      } finally {
        await outbox.stop()
      }
      assert.equal(delivered, ids.length)
      await webhook.getByRole('button', { name: 'Refresh the log' }).click()
      const log = webhook.getByRole('table', { name: 'Webhook deliveries, newest first' })
      await log.getByRole('row').nth(20).waitFor()
      assert.equal(await log.getByRole('row').count(), 21, 'a header and the 20 newest')
      const newest = log.getByRole('row').nth(1)
      assert.equal(await newest.getByRole('cell').first().textContent(), String(ids.at(-1)))
      await newest.getByRole('cell', { name: 'delivered' }).waitFor()
      assert.equal(await newest.getByRole('cell').nth(2).textContent(), '1', 'one attempt')
      await assertAccessible(page, 'integrations with the delivery log')
      await page.evaluate("document.getElementById('webhook-title').scrollIntoView()")
      await screenshot(page, 'integrations-webhook')
      await webhook.getByRole('button', { name: 'Load more' }).click()
      await log.getByRole('row').nth(21).waitFor()
      assert.equal(await log.getByRole('row').last().getByRole('cell').first().textContent(), String(ids[0]))
      assert.equal(await webhook.getByRole('button', { name: 'Load more' }).count(), 0, 'the last page')

      const confirmation = new Promise<string>((resolve) => {
        page.once('dialog', (dialog) => {
          resolve(dialog.message())
          void dialog.accept()
        })
      })
      await webhook.getByRole('button', { name: 'Remove the webhook' }).click()
      assert.match(await confirmation, /no longer sent to http:\/\/127\.0\.0\.1:\d+\/hooks\/inquiries\?v=2/)
      await webhook.getByText('Not configured').waitFor()
      const stored = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${tenant.orgId}/webhook`,
        headers: tenant.auth,
      })
      assert.equal(stored.json().data.configured, false)
    })
  })

  test('an editor and an expert person have no Integrations entry, and its address sends them to their start', {
    skip,
  }, async () => {
    const { tenant } = await organizationWithOwner('Limits College')
    const username = await createExpert(ctx, tenant, { firstname: 'Lise', lastname: 'Meitner' })
    const editor = await addPersonWithPassword(ctx, tenant.orgId, 'editor')
    const expert = await addPersonWithPassword(ctx, tenant.orgId, 'expert', { expert: username })
    for (const [person, start] of [
      [editor, '/admin/experts'],
      [expert, `/admin/experts/${username}`],
    ] as const) {
      await withPage(browser, async (page) => {
        await signInAt(page, `${origin}/admin/integrations`, person)
        await page.waitForURL(`${origin}${start}`)
        await page.getByRole('heading', { name: 'Integrations' }).waitFor({ state: 'detached' })
        const nav = page.getByRole('navigation', { name: 'Main' })
        await nav.getByRole('link').first().waitFor()
        assert.equal(await nav.getByRole('link', { name: 'Integrations' }).count(), 0)
      })
    }
  })

  test('works 360 px wide without sideways scrolling', { skip }, async () => {
    const { owner } = await organizationWithOwner('Narrow Institute')
    await withPage(
      browser,
      async (page) => {
        await openIntegrations(page, owner)
        const form = page.getByRole('form', { name: 'New client' })
        await form.getByLabel('Name').fill('A partner’s booking system')
        await form.getByRole('button', { name: 'Create the client' }).click()
        await page.getByLabel('Client secret').waitFor()
        await page.getByRole('region', { name: 'Webhook' }).getByText('No inquiry has been sent').waitFor()
        const width = await page.evaluate<number>('document.documentElement.scrollWidth')
        assert.ok(width <= 360, `integrations ${width} px wide`)
        await assertAccessible(page, 'integrations at 360 px')
        await page.evaluate("document.querySelector('.secret-once').scrollIntoView()")
        await screenshot(page, 'integrations-360')
      },
      { width: 360, height: 740 },
    )
  })
}
