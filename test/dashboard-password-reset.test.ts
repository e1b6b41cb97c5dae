import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Page } from 'playwright-core'
import { browserSkip, closeSharedBrowsers, sharedBrowser } from './helpers/browser.js'
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
import { SmtpReceiver } from './helpers/receivers.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()
after(closeSharedBrowsers)

/** Reset links go out through a real SMTP server on 127.0.0.1, as in production. */
const smtp = new SmtpReceiver()
await smtp.start()
after(() => smtp.stop())

const NEW_PASSWORD = 'lantern-meadow-quarry-58'

/**
 * The reset link emailed to `email` at or after message `from`, opened at `origin`: the link names the
 * configured address (127.0.0.1:3000 here), the test's server listens on another port.
 */
async function resetLink(email: string, from: number, origin: string): Promise<string> {
  for (;;) {
    const mail = (await smtp.received(from + 1)).slice(from).find((message) => message.to.includes(email))
    if (mail) {
      const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
      const path = /http:\/\/127\.0\.0\.1:3000(\/admin\/reset#token=[A-Za-z0-9_-]+)/.exec(text)?.[1]
      assert.ok(path, `a link to the configured address in: ${text}`)
      return `${origin}${path}`
    }
    await smtp.received(smtp.messages.length + 1)
  }
}

describeEachDialect(
  'a forgotten password, from the sign-in page to signing in again, in a real browser',
  (ctx) => {
    let origin = ''
    before(async () => {
      if (skip) return
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    })
    const browser = () => sharedBrowser()

    /** From the sign-in page: "Forgot password?", the email, the link asked for. */
    async function askForLink(page: Page, email: string, shot: string) {
      await page.goto(`${origin}/admin/`)
      await page.getByLabel('Email').fill(email)
      await screenshot(page, `${shot}-sign-in`)
      await page.getByRole('button', { name: 'Forgot password?' }).click()
      await page.getByRole('heading', { name: 'Reset your password' }).waitFor()
      assert.equal(await page.getByLabel('Email').inputValue(), email, 'the typed email is kept')
      await assertAccessible(page, 'forgot password')
      await screenshot(page, `${shot}-forgot`)
      await page.getByRole('button', { name: 'Email me a link' }).click()
      await page.getByRole('status').getByText(`If ${email} has an account, a link`).waitFor()
      await screenshot(page, `${shot}-forgot-sent`)
    }

    test('a person asks for a link on the sign-in page, follows the emailed link, sets a new password and signs in', {
      skip,
    }, async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const from = smtp.messages.length
      await withPage(await browser(), async (page) => {
        await askForLink(page, person.email, `reset-${ctx.dialect}`)
        await page.goto(await resetLink(person.email, from, origin))
        await page.getByRole('heading', { name: 'Choose a new password' }).waitFor()

        await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD)
        await page.getByLabel('Confirm the password').fill(`${NEW_PASSWORD}x`)
        await page.getByRole('button', { name: 'Save password' }).click()
        await page.getByText('The confirmation does not match the password above').waitFor()
        await page.getByLabel('Password', { exact: true }).fill('short-one')
        await page.getByLabel('Confirm the password').fill('short-one')
        await page.getByRole('button', { name: 'Save password' }).click()
        await page.getByText('The password must be at least 12 characters long.').waitFor()
        await assertAccessible(page, 'new password with a refused one')
        await screenshot(page, `reset-${ctx.dialect}-link-refused`)

        await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD)
        await page.getByLabel('Confirm the password').fill(NEW_PASSWORD)
        await page.getByRole('button', { name: 'Save password' }).click()
        await page.getByRole('status').getByText('Your password is set.').waitFor()
        await page.getByRole('link', { name: 'Sign in' }).click()
        await signInAt(page, `${origin}/admin/`, { email: person.email, password: NEW_PASSWORD })
        await page.getByRole('heading', { name: 'Experts' }).waitFor()
      })
    })

    test('the forgot-password and new-password screens work 360 px wide', { skip }, async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const from = smtp.messages.length
      await withPage(
        await browser(),
        async (page) => {
          await askForLink(page, person.email, `reset-${ctx.dialect}-360`)
          assert.ok((await pageWidth(page)) <= 360, `forgot password ${await pageWidth(page)} px wide`)
          await page.goto(await resetLink(person.email, from, origin))
          await page.getByRole('heading', { name: 'Choose a new password' }).waitFor()
          assert.ok((await pageWidth(page)) <= 360, `new password ${await pageWidth(page)} px wide`)
          await screenshot(page, `reset-${ctx.dialect}-360-link`)
        },
        { width: 360, height: 740 },
      )
    })
  },
  { config: { smtpUrl: smtp.url } },
)

describeEachDialect(
  'without a mail server, the People screen names the command that prints a link',
  (ctx) => {
    let origin = ''
    before(async () => {
      if (skip) return
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    })

    test('an invitation that could not be emailed says to run expertdir people invite for that address', {
      skip,
    }, async () => {
      const owner = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
      const email = `no.mail.${ctx.dialect}@main.example`
      await withPage(await sharedBrowser(), async (page) => {
        await signInAt(page, `${origin}/admin/people`, owner)
        const form = page.getByRole('form', { name: 'Invite a person' })
        await form.getByLabel('Email').fill(email)
        await form.getByRole('combobox', { name: 'Role' }).selectOption('editor')
        await form.getByRole('button', { name: 'Send the invitation' }).click()
        await form.getByRole('status').getByText(`expertdir people invite --email ${email}`).waitFor()
        await screenshot(page, `people-no-mail-${ctx.dialect}`)
      })
    })
  },
)
