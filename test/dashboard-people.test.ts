import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { browserSkip, launchBrowser } from './helpers/browser.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  screenshot,
  signInAt,
  withPage,
} from './helpers/dashboard.js'
import { createExpert, describeEachDialect } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword, PASSWORD } from './helpers/people.js'
import { SmtpReceiver } from './helpers/receivers.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()

/** Invitations go out through a real SMTP server on 127.0.0.1, as in production. */
const smtp = new SmtpReceiver()
await smtp.start()
after(() => smtp.stop())

/**
 * The link of the newest invitation emailed to `email` (quoted-printable undone), opened at `origin`:
 * the link names the configured address (127.0.0.1:3000 here), the test's server listens on another port.
 */
function invitationLink(email: string, origin: string): string {
  const mail = smtp.messages.findLast((message) => message.to.includes(email))
  assert.ok(mail, `an invitation to ${email}`)
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
  const link = /http:\/\/127\.0\.0\.1:3000(\/admin\/invitation#token=[A-Za-z0-9_-]+)/.exec(text)?.[1]
  assert.ok(link, `a link to the configured address in: ${text}`)
  return `${origin}${link}`
}

/**
 * The People screen (CONTRACT §14, §15) in a real headless Chromium against the real server: owners
 * and admins invite, change and remove the people who sign in, within the rules the API enforces.
 */
describeEachDialect(
  'the People screen in a real browser',
  (ctx) => {
    let browser: Browser | undefined
    let origin = ''
    let owner = { email: '', password: '' }
    let franklin = ''

    before(async () => {
      if (skip) return
      franklin = await createExpert(ctx, ctx.tenant, {
        firstname: 'Rosalind',
        lastname: 'Franklin',
        job_title: 'Chemist',
      })
      await createExpert(ctx, ctx.tenant, { firstname: 'Marie', lastname: 'Curie' })
      owner = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
      browser = await launchBrowser()
    })
    after(async () => {
      await browser?.close()
    })

    const signIn = (page: Page, path: string, person = owner) =>
      signInAt(page, `${origin}/admin${path}`, person)
    const menu = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link')
    const row = (page: Page, email: string) => page.locator('.person-row', { hasText: email })
    /** Opens a person's editor in their row. */
    async function editorOf(page: Page, email: string): Promise<Locator> {
      const found = row(page, email)
      await found.locator('summary').click()
      return found
    }
    /** Answers the next confirmation with OK and returns its question. */
    const confirmNext = (page: Page) =>
      new Promise<string>((resolve) => {
        page.once('dialog', async (dialog) => {
          resolve(dialog.message())
          await dialog.accept()
        })
      })

    /** An invitee opens the emailed link in a browser of their own and sets a password: they are signed in. */
    async function acceptInvitation(page: Page, email: string) {
      await page.goto(invitationLink(email, origin))
      await page.getByRole('heading', { name: 'Welcome: choose your password' }).waitFor()
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByLabel('Confirm the password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Save password' }).click()
      await page.getByRole('status').getByText('Your password is set and you are signed in.').waitFor()
      await page.getByRole('link', { name: 'Open the dashboard' }).click()
    }

    test('an owner invites an editor by email; the invitee sets a password from the link and signs in; a new role applies at once', {
      skip,
    }, async () => {
      const email = `sam.${ctx.dialect}@main.example`
      await withPage(browser, async (page) => {
        await signIn(page, '/experts')
        await menu(page).getByText('People', { exact: true }).click()
        await page.getByRole('heading', { name: 'People', exact: true }).waitFor()
        await row(page, owner.email).getByText('(you)').waitFor()

        const form = page.getByRole('form', { name: 'Invite a person' })
        await form.getByLabel('Email').fill('not-an-email')
        await form.getByLabel('Name').fill('Sam Editor')
        await form.getByRole('combobox', { name: 'Role' }).selectOption('editor')
        await form.locator('.hint', { hasText: 'Editor: experts, posts, Q&A and the organization' }).waitFor()
        await form.getByRole('button', { name: 'Send the invitation' }).click()
        await form.getByText('Email must be a valid email address').waitFor()
        assert.equal(await form.getByLabel('Email').getAttribute('aria-invalid'), 'true')
        await assertAccessible(page, 'people with a validation message')

        await form.getByLabel('Email').fill(email)
        await form.getByRole('button', { name: 'Send the invitation' }).click()
        await form
          .getByRole('status')
          .getByText(`Sam Editor (${email}) was added. The invitation was emailed.`)
          .waitFor()
        const invited = row(page, email)
        await invited.getByText('Invitation pending').waitFor()
        await invited.getByText(/^The invitation link works until /).waitFor()
        await assertAccessible(page, 'people')
        await screenshot(page, 'people')

        // The first email went astray: a new link is sent, and only it works.
        const astray = invitationLink(email, origin)
        await invited.getByRole('button', { name: 'Send Sam Editor a new invitation' }).click()
        await invited.getByRole('status').getByText('The earlier link no longer works.').waitFor()
        assert.notEqual(invitationLink(email, origin), astray)

        await withPage(browser, async (invitee) => {
          await invitee.goto(astray)
          await invitee.getByLabel('Password', { exact: true }).fill(PASSWORD)
          await invitee.getByLabel('Confirm the password').fill(PASSWORD)
          await invitee.getByRole('button', { name: 'Save password' }).click()
          await invitee.getByRole('alert').getByText('This link is unknown, used or expired').waitFor()
          await acceptInvitation(invitee, email)
          await invitee.getByRole('heading', { name: 'Experts' }).waitFor()
          assert.deepEqual(await menu(invitee).allTextContents(), [
            'Experts',
            'Find experts',
            'Publications',
            'Staff',
            'Posts',
            'Q&A',
            'Organization',
            'Review',
          ])

          await page.reload()
          await row(page, email).getByText('Password set').waitFor()
          const editor = await editorOf(page, email)
          await editor.getByLabel('Role').selectOption('inquiries')
          await editor.locator('.hint', { hasText: 'Inquiries: reads and handles inquiries' }).waitFor()
          await editor.getByRole('button', { name: 'Save' }).click()
          await editor.getByRole('status').getByText('Saved.').waitFor()
          await editor.locator('.badge', { hasText: 'Inquiries' }).waitFor()

          await invitee.reload()
          await menu(invitee).getByText('Inquiries').waitFor()
          assert.deepEqual(await menu(invitee).allTextContents(), ['Experts', 'Find experts', 'Inquiries'])
        })
      })
    })

    test('an expert person is invited linked to an expert found by name, and then sees only that profile', {
      skip,
    }, async () => {
      const email = `rosalind.${ctx.dialect}@main.example`
      await withPage(browser, async (page) => {
        await signIn(page, '/people')
        const form = page.getByRole('form', { name: 'Invite a person' })
        await form.getByLabel('Email').fill(email)
        await form.getByRole('combobox', { name: 'Role' }).selectOption('expert')
        await form.getByRole('button', { name: 'Send the invitation' }).click()
        await form.getByText('Linked expert is required for the expert role').waitFor()

        await form.getByLabel('Search experts by name').fill('Frank')
        await form.getByRole('button', { name: 'Find' }).click()
        const matches = form.getByRole('list', { name: 'Matching experts' })
        await matches.getByRole('button', { name: 'Link Rosalind Franklin' }).waitFor()
        assert.equal(await matches.getByRole('button').count(), 1)
        await assertAccessible(page, 'people, choosing an expert')
        await matches.getByRole('button', { name: 'Link Rosalind Franklin' }).click()
        await form.getByText(`Rosalind Franklin (${franklin})`).waitFor()
        await form.getByRole('button', { name: 'Send the invitation' }).click()
        await form.getByRole('status').getByText('The invitation was emailed.').waitFor()
        await row(page, email).getByText(`Linked to the expert ${franklin}.`).waitFor()
      })
      await withPage(browser, async (invitee) => {
        await acceptInvitation(invitee, email)
        await invitee.getByRole('heading', { name: 'Rosalind Franklin' }).waitFor()
        assert.deepEqual(await menu(invitee).allTextContents(), ['My profile', 'My inquiries'])
        await invitee.goto(`${origin}/admin/people`)
        await invitee.getByRole('heading', { name: 'Rosalind Franklin' }).waitFor()
        assert.match(invitee.url(), new RegExp(`/admin/experts/${franklin}$`))
      })
    })

    test('an admin may not demote or remove the owner and is told why beside the action', {
      skip,
    }, async () => {
      const admin = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'admin')
      await withPage(browser, async (page) => {
        await signIn(page, '/people', admin)
        const ownerRow = await editorOf(page, owner.email)
        await ownerRow.getByLabel('Role').selectOption('admin')
        await ownerRow.getByRole('button', { name: 'Save' }).click()
        await ownerRow
          .getByRole('alert')
          .getByText('Only an owner may make someone an owner or change an owner’s role.')
          .waitFor()
        await assertAccessible(page, 'people with a refusal')
        await screenshot(page, 'people-refused')

        await ownerRow.getByRole('button', { name: 'Undo changes' }).click()
        const question = confirmNext(page)
        await ownerRow.getByRole('button', { name: /^Remove / }).click()
        assert.match(await question, new RegExp(`Remove .+ \\(${owner.email.replaceAll('.', '\\.')}\\)\\?`))
        await ownerRow.getByRole('alert').getByText('Only an owner may remove an owner.').waitFor()
        await ownerRow.locator('.badge', { hasText: 'Owner' }).waitFor()
      })
    })

    test('an owner is warned before demoting themselves, and the last owner keeps the role', { skip }, () =>
      withPage(browser, async (page) => {
        await signIn(page, '/people')
        const mine = await editorOf(page, owner.email)
        await mine.getByLabel('Role').selectOption('editor')
        await mine.getByText('You are changing your own role: you will lose this screen at once.').waitFor()
        const question = confirmNext(page)
        await mine.getByRole('button', { name: 'Save' }).click()
        assert.match(await question, /^You are making yourself Editor: you lose People/)
        await mine
          .getByRole('alert')
          .getByText('The organization must keep an owner: make someone else owner first.')
          .waitFor()

        const removal = confirmNext(page)
        await mine.getByRole('button', { name: 'Remove me' }).click()
        assert.match(await removal, /^Remove yourself/)
        await mine.getByRole('alert').getByText('The organization must keep an owner').waitFor()
        await menu(page).getByText('People', { exact: true }).waitFor()
      }),
    )

    test('removing a person ends their session at once: their next action shows the sign-in screen', {
      skip,
    }, async () => {
      const editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      await withPage(browser, async (removed) => {
        await signIn(removed, '/experts', editor)
        await removed.getByRole('heading', { name: 'Experts' }).waitFor()
        await withPage(browser, async (page) => {
          await signIn(page, '/people')
          const editorRow = await editorOf(page, editor.email)
          const question = confirmNext(page)
          await editorRow.getByRole('button', { name: /^Remove / }).click()
          assert.match(
            await question,
            new RegExp(`\\(${editor.email.replaceAll('.', '\\.')}\\)\\? They are signed out`),
          )
          await page.getByRole('status').getByText(`(${editor.email}) was removed and signed out.`).waitFor()
          await row(page, editor.email).waitFor({ state: 'detached' })
        })
        await menu(removed).getByText('Posts').click()
        await removed.getByRole('heading', { name: 'Sign in' }).waitFor()
      })
    })

    test('an editor and an expert person have no People menu, and its address sends them away', {
      skip,
    }, async () => {
      const editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
      const expert = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'expert', { expert: franklin })
      await withPage(browser, async (page) => {
        await signIn(page, '/people', editor)
        await page.getByRole('heading', { name: 'Experts' }).waitFor()
        assert.match(page.url(), /\/admin\/experts$/)
        assert.equal(await menu(page).getByText('People', { exact: true }).count(), 0)
      })
      await withPage(browser, async (page) => {
        await signIn(page, '/people', expert)
        await page.getByRole('heading', { name: 'Rosalind Franklin' }).waitFor()
        assert.equal(await menu(page).getByText('People', { exact: true }).count(), 0)
      })
    })

    test('works 360 px wide without sideways scrolling', { skip }, () =>
      withPage(
        browser,
        async (page) => {
          await signIn(page, '/people')
          await row(page, owner.email).waitFor()
          await editorOf(page, owner.email)
          const width = await page.evaluate<number>('document.documentElement.scrollWidth')
          assert.ok(width <= 360, `people ${width} px wide`)
          await assertAccessible(page, 'people at 360 px')
          await screenshot(page, 'people-360')
        },
        { width: 360, height: 740 },
      ),
    )
  },
  { config: { smtpUrl: smtp.url } },
)
