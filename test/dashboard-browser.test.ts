import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { cliWriteContext } from '../src/audit/write-context.js'
import { addPerson } from '../src/people/service.js'
import { NO_NOTICES } from '../src/sso/notices.js'
import { putSsoSettings, removeSsoSettings } from '../src/sso/settings.js'
import { browserSkip, closeSharedBrowsers, sharedBrowser } from './helpers/browser.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  openPage,
  pageWidth,
  screenshot,
  signInAt,
  withPage as withBrowserPage,
} from './helpers/dashboard.js'
import { TestDnsServer } from './helpers/dns-server.js'
import { createExpert, describeEachDialect, inquiryBody } from './helpers/harness.js'
import { testImage } from './helpers/images.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword, PASSWORD } from './helpers/people.js'

const skip = await browserSkip()
/** The DNS server that answers the single sign-on domains' TXT lookups. */
const dns = await TestDnsServer.start()
after(() => dns.close())
if (!skip) ensureDashboardBuilt()

const DESK = 'desk@main.example'

after(closeSharedBrowsers)

/** An image element as the page has it (the tests are compiled without the DOM library). */
interface Decodable {
  decode(): Promise<void>
  naturalWidth: number
}

/**
 * The dashboard (CONTRACT §15) in a real headless Chromium against the real server: every task it
 * offers, by accessible names, with axe-core on each screen and no CSP violation or uncaught error.
 */
describeEachDialect(
  'the dashboard in a real browser',
  (ctx) => {
    let browser: Browser | undefined
    let origin = ''
    let owner = { email: '', password: '' }
    let curie = ''
    let franklin = ''

    const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, payload?: object) =>
      ctx.inject({
        method,
        url: `/v2/organization/${ctx.tenant.orgId}${path}`,
        headers: ctx.tenant.auth,
        ...(payload ? { payload } : {}),
      })
    const apiData = async (method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, payload?: object) => {
      const response = await api(method, path, payload)
      assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`)
      return response.json().data
    }

    before(async () => {
      if (skip) return
      curie = await createExpert(ctx, ctx.tenant, {
        firstname: 'Marie',
        lastname: 'Curie',
        job_title: 'Physicist',
      })
      await apiData('POST', `/expert/${curie}/topic`, { name: 'Radioactivity' })
      await apiData('PUT', `/expert/${curie}`, { is_published: 1 })
      franklin = await createExpert(ctx, ctx.tenant, { firstname: 'Rosalind', lastname: 'Franklin' })
      for (let n = 1; n <= 20; n++)
        await createExpert(ctx, ctx.tenant, {
          firstname: 'Filler',
          lastname: `Person ${String(n).padStart(2, '0')}`,
        })
      await apiData('PUT', '/notifications', { general: { recipients: [DESK] } })
      owner = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'owner')
      await ctx.app.listen({ host: '127.0.0.1', port: 0 })
      origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
      browser = await sharedBrowser()
    })

    /** Opens `path` of the dashboard and signs in on the sign-in screen it shows. */
    const signIn = (page: Page, path: string, person = owner) =>
      signInAt(page, `${origin}/admin${path}`, person)

    const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
      withBrowserPage(browser, run, viewport)

    const newExpert = (firstname: string, lastname: string) =>
      createExpert(ctx, ctx.tenant, { firstname, lastname })

    test(
      'signs in (a wrong password says so), finds experts by search, status, facet and page, signs out',
      { skip },
      () =>
        withPage(async (page) => {
          await page.goto(`${origin}/admin/experts`)
          await page.getByRole('heading', { name: 'Sign in' }).waitFor()
          await assertAccessible(page, 'sign-in')
          await screenshot(page, 'sign-in')
          await page.getByLabel('Email').fill(owner.email)
          await page.getByLabel('Password').fill('not-the-password-at-all')
          await page.getByRole('button', { name: 'Sign in' }).click()
          await page.getByRole('alert').getByText('The email or the password is wrong').waitFor()

          await page.getByLabel('Password').fill(owner.password)
          await page.getByRole('button', { name: 'Sign in' }).click()
          await page.getByRole('heading', { name: 'Experts' }).waitFor()
          await page.getByRole('status').getByText('22 experts').waitFor()
          await assertAccessible(page, 'experts list')
          await screenshot(page, 'experts')

          await page.getByRole('button', { name: 'Next page' }).click()
          await page.getByText('Page 2 of 2').waitFor()
          // The pager moves with the address at once; the rows follow when the page is read.
          await page.getByRole('link', { name: 'Filler Person 20' }).waitFor()
          assert.equal(await page.getByRole('list').locator('.expert-row').count(), 2)

          await page.getByLabel('Search experts').fill('Curie')
          await page.getByRole('button', { name: 'Search', exact: true }).click()
          await page.getByRole('status').getByText('1 expert', { exact: true }).waitFor()
          await page.getByRole('link', { name: 'Marie Curie' }).waitFor()

          await page.getByLabel('Search experts').fill('')
          await page.getByRole('button', { name: 'Search', exact: true }).click()
          await page.getByRole('status').getByText('22 experts').waitFor()
          await page.getByLabel('Status').selectOption('unpublished')
          await page.getByRole('status').getByText('21 experts').waitFor()
          await page.getByLabel('Status').selectOption('all')
          await page.getByRole('button', { name: /Radioactivity/ }).click()
          await page.getByRole('status').getByText('1 expert', { exact: true }).waitFor()
          assert.match(page.url(), /facet=topics/)

          await page.getByRole('button', { name: 'Sign out' }).click()
          await page.getByRole('heading', { name: 'Sign in' }).waitFor()
          await page.reload()
          await page.getByRole('heading', { name: 'Sign in' }).waitFor()
        }),
    )

    test(
      'creates an expert: the server’s message stands beside the field, then the new profile opens',
      { skip },
      () =>
        withPage(async (page) => {
          await signIn(page, '/experts')
          await page.getByRole('button', { name: 'Add an expert' }).click()
          const form = page.getByRole('form', { name: 'Add an expert' })
          await form.getByLabel('First name').fill('Nora')
          await form.getByLabel('Last name').fill('Quill')
          await form.getByLabel('Job title').fill('Ornithologist')
          // The organization's name is the company until someone types another.
          await page.locator('input[name="company"][value="Main University"]').waitFor()
          // The pickers load after the form (a read-only field stands in until then).
          await form.getByRole('combobox', { name: 'Country' }).selectOption({ label: 'Canada' })
          await form.getByRole('combobox', { name: 'State/province' }).selectOption({ label: 'Ontario' })
          await form.getByLabel(/^Email address/).fill('not-an-email')
          await form.getByRole('button', { name: 'Create expert' }).click()
          await form.getByText('must be a valid email address').waitFor()
          assert.equal(await form.getByLabel(/^Email address/).getAttribute('aria-invalid'), 'true')
          await assertAccessible(page, 'create expert with a validation message')
          await screenshot(page, 'create-expert')

          await form.getByLabel(/^Email address/).fill('nora.quill@main.example')
          await form.getByRole('button', { name: 'Create expert' }).click()
          await page.getByRole('heading', { name: 'Nora Quill' }).waitFor()
          assert.match(page.url(), /\/admin\/experts\/nora-quill/)
          const account = (await apiData('GET', '/expert/nora-quill')).account[0]
          assert.deepEqual(
            [account.company, account.location_country, account.location_state],
            ['Main University', 'CA', 'ON'],
          )
        }),
    )

    test('edits a profile: tagline, rich-text biography, list elements, topics; publishes with the checklist', {
      skip,
    }, async () => {
      const username = await newExpert('Karl', 'Frisch')
      const colleague = await newExpert('Maria', 'Merian')
      await apiData('POST', `/expert/${colleague}/topic`, { name: 'Pollination' })
      await withPage(async (page) => {
        await signIn(page, `/experts/${username}`)
        // What the checklist asks for comes first and open; the other sections are grouped after it.
        await page.getByRole('heading', { name: 'Essentials' }).waitFor()
        const groups = await page.locator('.section-group > h2').allTextContents()
        assert.equal(groups[0], 'Essentials')
        assert.ok(groups.includes('Publications') && groups.includes('Media'), groups.join(', '))
        assert.deepEqual(
          await page.getByRole('region', { name: 'Essentials' }).locator('summary h3').allTextContents(),
          ['Tagline', 'Biography', 'Topic'],
        )
        assert.equal(
          await page.getByText('Public page: shown once published and public').count(),
          1,
          'an unpublished profile says when its public page appears',
        )
        const lacks = page.getByRole('list', { name: 'What this profile lacks' })
        await lacks.getByText('a tagline').waitFor()
        assert.deepEqual(await lacks.getByRole('listitem').allTextContents(), [
          'a photo',
          'a tagline',
          'a biography',
          'at least one topic',
        ])

        await page.getByRole('textbox', { name: 'Tagline' }).fill('Bees and their dances')
        await page.getByRole('button', { name: 'Save tagline' }).click()
        await lacks.getByText('a tagline').waitFor({ state: 'detached' })

        const biography = page.getByRole('textbox', { name: 'Biography' })
        await biography.click()
        await page.keyboard.type('Studies bees')
        for (let n = 0; n < 4; n++) await page.keyboard.press('Shift+ArrowLeft')
        // Pressing a tool never takes the focus from the editor, so the next keys move its cursor, not the page's.
        const bold = await page.getByRole('button', { name: 'Bold' }).boundingBox()
        assert.ok(bold)
        await page.mouse.move(bold.x + bold.width / 2, bold.y + bold.height / 2)
        await page.mouse.down()
        assert.ok(
          await biography.evaluate((editor) => editor === editor.ownerDocument.activeElement),
          'the editor keeps the focus',
        )
        await page.mouse.up()
        assert.equal(await page.getByRole('button', { name: 'Bold' }).getAttribute('aria-pressed'), 'true')
        await page.keyboard.press('End')
        await page.keyboard.type(' at')
        // A paragraph left empty after the text (Enter, then back up) is not stored.
        await page.keyboard.press('Enter')
        await page.keyboard.press('ArrowLeft')
        await page.keyboard.press('Shift+ArrowLeft')
        await page.keyboard.press('Shift+ArrowLeft')
        // The Link button asks in a dialog of the page (no browser prompt), and refuses what the server would drop.
        await page.getByRole('button', { name: 'Link' }).click()
        const linkDialog = page.getByRole('dialog', { name: 'Add a link' })
        await linkDialog.getByLabel('Link address').fill('javascript:alert(1)')
        await linkDialog.getByRole('button', { name: 'Add link' }).click()
        await linkDialog.getByRole('alert').waitFor()
        await linkDialog.getByLabel('Link address').fill('https://bees.example/')
        await linkDialog.getByRole('button', { name: 'Add link' }).click()
        await linkDialog.waitFor({ state: 'hidden' })
        // Nothing is typed into the editor after the dialog: it takes the focus back a moment later, and keys
        // sent by a machine within that moment can move the page's cursor without the editor's.
        await biography.getByRole('link', { name: 'at' }).waitFor()
        await page.getByRole('button', { name: 'Save biography' }).click()
        await lacks.getByText('a biography').waitFor({ state: 'detached' })
        const stored = await apiData('GET', `/expert/${username}/biography`)
        assert.equal(
          stored.biography[0].biography,
          '<p>Studies <strong>bees </strong><a target="_blank" rel="noopener noreferrer nofollow" href="https://bees.example/"><strong>at</strong></a></p>',
        )

        await page.locator('summary', { hasText: 'Education' }).click()
        const added = page.getByRole('form', { name: 'New education' })
        await added.getByLabel('Institution').fill('University of Munich')
        await added.getByRole('button', { name: 'Add' }).click()
        const first = page.getByRole('form', { name: 'Education 1' })
        await first.getByLabel('Degree').fill('PhD')
        await first.getByRole('button', { name: 'Save' }).click()
        await first.getByRole('status').getByText('Saved.').waitFor()
        const education = await apiData('GET', `/expert/${username}/education`)
        assert.deepEqual(
          education.education.map((e: { institution: string; degree: string }) => [e.institution, e.degree]),
          [['University of Munich', 'PhD']],
        )
        page.once('dialog', (dialog) => void dialog.accept())
        await first.getByRole('button', { name: 'Remove' }).click()
        await first.waitFor({ state: 'detached' })
        assert.deepEqual((await apiData('GET', `/expert/${username}/education`)).education, [])

        // The organization's topics are offered while typing.
        await page.locator('#suggest-topic option[value="Pollination"]').waitFor({ state: 'attached' })
        assert.equal(await page.getByLabel('Add to topic').getAttribute('list'), 'suggest-topic')
        await page.getByLabel('Add to topic').fill('Animal behaviour')
        await page.getByLabel('Add to topic').press('Enter')
        await page.getByRole('button', { name: 'Remove Animal behaviour' }).waitFor()
        assert.deepEqual(await lacks.getByRole('listitem').allTextContents(), ['a photo'])

        await page.getByRole('button', { name: 'Publish', exact: true }).click()
        await page.getByRole('button', { name: 'Unpublish' }).waitFor()
        assert.equal(
          await page.getByRole('link', { name: /View public page/ }).getAttribute('href'),
          `/directory/${ctx.tenant.orgId}/${username}`,
        )
        assert.equal((await apiData('GET', `/expert/${username}`)).account[0].is_published, 1)
        await assertAccessible(page, 'profile editor')
        await page.evaluate('window.scrollTo(0, 0)')
        await screenshot(page, 'profile-editor')
      })
    })

    test('tells of a change made elsewhere instead of saving over it', { skip }, async () => {
      const username = await newExpert('Lise', 'Meitner')
      await withPage(async (page) => {
        await signIn(page, `/experts/${username}`)
        const account = page.getByRole('form', { name: 'Account' })
        await account.getByLabel('Job title').waitFor()
        await apiData('PUT', `/expert/${username}`, { job_title: 'Changed elsewhere' })
        await account.getByLabel('Job title').fill('Changed here')
        await account.getByRole('button', { name: 'Save account' }).click()
        await page.getByRole('alert').getByText('Someone else changed this profile').first().waitFor()
        assert.equal((await apiData('GET', `/expert/${username}`)).account[0].job_title, 'Changed elsewhere')
        await screenshot(page, 'conflict')
        await page.getByRole('button', { name: 'Reload the profile' }).click()
        // React keeps a controlled input's value attribute in step; the page's CSP forbids string predicates.
        await page.locator('input[name="job_title"][value="Changed elsewhere"]').waitFor()
      })
    })

    test('warns before leaving a profile with unsaved changes', { skip }, async () => {
      const username = await newExpert('Emmy', 'Noether')
      await withPage(async (page) => {
        await signIn(page, `/experts/${username}`)
        await page.getByRole('form', { name: 'Account' }).getByLabel('Department').fill('Mathematics')
        const dismissed = new Promise<string>((resolve) =>
          page.once('dialog', (dialog) => {
            resolve(dialog.message())
            void dialog.dismiss()
          }),
        )
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Experts', exact: true })
          .click()
        assert.match(await dismissed, /unsaved changes/)
        await page.getByRole('heading', { name: 'Emmy Noether' }).waitFor()

        page.once('dialog', (dialog) => void dialog.accept())
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Experts', exact: true })
          .click()
        await page.getByRole('heading', { name: 'Experts' }).waitFor()
      })
    })

    test('uploads a photo around a chosen focus point', { skip }, async () => {
      const username = await newExpert('Dian', 'Fossey')
      const photo = await testImage('jpeg', 800, 600)
      await withPage(async (page) => {
        await signIn(page, `/experts/${username}`)
        await page
          .getByLabel('Choose a photo')
          .setInputFiles({ name: 'fossey.jpg', mimeType: 'image/jpeg', buffer: photo })
        const chosen = page.getByRole('img', { name: 'Chosen portrait, at full size' })
        await chosen.click({ position: { x: 20, y: 20 } })
        await page.getByLabel(/Focus from the top/).focus()
        await page.keyboard.press('Home')
        await page.getByLabel('Focus from the top (0%)').waitFor()
        await assertAccessible(page, 'photo crop')
        await screenshot(page, 'photo')
        await page.getByRole('button', { name: 'Upload photo' }).click()
        await page.getByRole('status').getByText('Photo saved.').waitFor()
        const current = page.getByRole('img', { name: 'Current portrait' })
        await current.waitFor()
        assert.match((await current.getAttribute('src')) ?? '', /\/media\//)
        // Loaded, waited for in the page: a polled string predicate needs eval, which the CSP forbids.
        const width = await current.evaluate((element) => {
          const image = element as unknown as Decodable
          return image.decode().then(() => image.naturalWidth)
        })
        assert.ok(width > 0, 'the new photo is shown')
        const avatar = (await apiData('GET', `/expert/${username}`)).avatar
        assert.match(avatar.l.url, /\/media\//)
      })
    })

    test('handles an inquiry: filters, detail, status, assignee and notes', { skip }, async () => {
      const first = await apiData(
        'POST',
        '/inquiry/general',
        inquiryBody('general', curie, { firstname: 'Pierre' }),
      )
      const spam = await apiData(
        'POST',
        '/inquiry/general',
        inquiryBody('general', curie, { firstname: 'Spammy' }),
      )
      await apiData('PATCH', `/inquiry/${spam.id}`, { status: 'spam' })
      await withPage(async (page) => {
        await signIn(page, '/inquiries')
        const list = page.getByRole('region', { name: 'Inquiry list' })
        await list.getByRole('button', { name: /Pierre/ }).waitFor()
        await assertAccessible(page, 'inbox')

        await page.getByLabel('Status').selectOption('spam')
        await list.getByRole('button', { name: /Pierre/ }).waitFor({ state: 'detached' })
        await list.getByRole('button', { name: /Spammy/ }).waitFor()
        await page.getByLabel('Status').selectOption('')

        await list.getByRole('button', { name: /Pierre/ }).click()
        const detail = page.getByRole('region', { name: /General inquiry from Pierre/ })
        await detail.getByText('we would like to talk').waitFor()
        await detail.getByLabel('Status', { exact: true }).selectOption('answered')
        // The assignee is a person, chosen by name: the owner signed in here.
        await detail
          .getByLabel('Assignee')
          .selectOption({ label: `${owner.email.split('@')[0]} (${owner.email})` })
        await detail.getByLabel('Internal notes').fill('Called back on Monday.')
        await detail.getByRole('button', { name: 'Save' }).click()
        await detail.getByRole('status').getByText('Saved.').waitFor()
        const stored = await apiData('GET', `/inquiry/${first.id}`)
        assert.deepEqual(
          [stored.status, stored.assignee?.email, stored.notes],
          ['answered', owner.email, 'Called back on Monday.'],
        )
        await assertAccessible(page, 'inquiry detail')
        await screenshot(page, 'inbox')
      })
    })

    const content = async (path: string) => {
      const response = await ctx.inject({ method: 'GET', url: `/v2/${path}`, headers: ctx.tenant.auth })
      assert.equal(response.statusCode, 200, response.body)
      return response.json().data
    }

    test('writes a post: the server’s messages beside the fields, tags, tagged experts, publishing, deleting', {
      skip,
    }, async () => {
      await withPage(async (page) => {
        await signIn(page, '/posts')
        await page.getByRole('heading', { name: 'Posts' }).waitFor()
        await page.getByText('No post matches. Write the first one.').waitFor()
        await assertAccessible(page, 'posts list, empty')

        await page.getByRole('link', { name: 'New post' }).click()
        const form = page.getByRole('form', { name: 'New post' })
        await form.getByRole('button', { name: 'Create post' }).click()
        await form.getByRole('alert').waitFor()
        assert.equal(await form.getByLabel('Title').getAttribute('aria-invalid'), 'true')
        await assertAccessible(page, 'new post with messages')

        await form.getByLabel('Title').fill('Bees at work')
        await form.getByRole('textbox', { name: 'Body' }).click()
        await page.keyboard.type('How bees dance')
        await form.getByRole('button', { name: 'Create post' }).click()
        await page.getByRole('heading', { name: 'Bees at work' }).waitFor()
        const id = Number(page.url().split('/').pop())

        await page.getByLabel('Add a tag').fill('Biology')
        await page.getByLabel('Add a tag').press('Enter')
        await page.getByRole('button', { name: 'Remove Biology' }).waitFor()
        await page.getByLabel('Tag an expert (username)').fill('nobody-here')
        await page.getByLabel('Tag an expert (username)').press('Enter')
        await page
          .getByRole('alert')
          .getByText(/nobody-here/)
          .waitFor()
        await page.getByLabel('Tag an expert (username)').fill(curie)
        await page.getByLabel('Tag an expert (username)').press('Enter')
        await page.getByRole('button', { name: `Remove ${curie}` }).waitFor()

        const post = page.getByRole('form', { name: 'Post' })
        await post.getByLabel('Title').fill('Bees at work and at rest')
        await post.getByRole('button', { name: 'Save' }).click()
        await page.getByRole('heading', { name: 'Bees at work and at rest' }).waitFor()
        await page.getByRole('button', { name: 'Publish', exact: true }).click()
        await page.getByRole('button', { name: 'Unpublish' }).waitFor()
        const stored = await content(`spotlight/${ctx.tenant.orgId}/${id}`)
        assert.equal(stored.spotlight[0].title, 'Bees at work and at rest')
        assert.equal(stored.spotlight[0].html, '<p>How bees dance</p>')
        assert.equal(stored.spotlight[0].published, 1)
        assert.deepEqual(
          stored.tags.map((tag: { tag: string }) => tag.tag),
          ['Biology'],
        )
        assert.deepEqual(
          stored.spotlight[0].tagged_experts.map((expert: { username: string }) => expert.username),
          [curie],
        )
        await assertAccessible(page, 'post editor')
        await page.evaluate('window.scrollTo(0, 0)')
        await screenshot(page, 'post-editor')

        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Posts' }).click()
        await page.getByRole('status').getByText('1 post', { exact: true }).waitFor()
        await page.getByLabel('Status').selectOption('unpublished')
        await page.getByRole('status').getByText('0 posts').waitFor()
        await page.getByLabel('Status').selectOption('published')
        await page.getByRole('link', { name: 'Bees at work and at rest' }).waitFor()
        await assertAccessible(page, 'posts list')
        await screenshot(page, 'posts')

        await page.getByRole('link', { name: 'Bees at work and at rest' }).click()
        page.once('dialog', (dialog) => void dialog.accept())
        await page.getByRole('button', { name: 'Delete post' }).click()
        await page.getByRole('heading', { name: 'Posts' }).waitFor()
        await page.getByRole('status').getByText('0 posts').waitFor()
        const gone = await ctx.inject({
          method: 'GET',
          url: `/v2/spotlight/${ctx.tenant.orgId}/${id}`,
          headers: ctx.tenant.auth,
        })
        assert.equal(gone.statusCode, 404)
      })
    })

    test('writes a Q&A item with an expert’s answer (an unknown expert is named beside the field)', {
      skip,
    }, async () => {
      await withPage(async (page) => {
        await signIn(page, '/questions')
        await page.getByRole('link', { name: 'New question' }).click()
        const form = page.getByRole('form', { name: 'New question' })
        await form.getByLabel('Question').fill('Why do bees dance?')
        await form.getByRole('button', { name: 'Create question' }).click()
        await page.getByRole('heading', { name: 'Why do bees dance?' }).waitFor()
        const id = Number(page.url().split('/').pop())
        await page.getByText('No answers yet.').waitFor()

        const answer = page.getByRole('form', { name: 'New answer' })
        await answer.getByLabel('Expert username').fill('nobody-here')
        await answer.getByRole('textbox', { name: 'Answer' }).click()
        await page.keyboard.type('To tell where the food is')
        await answer.getByRole('button', { name: 'Add answer' }).click()
        await answer
          .getByText(/not an expert of this organization/)
          .first()
          .waitFor()
        assert.equal(await answer.getByLabel('Expert username').getAttribute('aria-invalid'), 'true')
        await answer.getByLabel('Expert username').fill(curie)
        await answer.getByRole('button', { name: 'Add answer' }).click()
        await page.getByRole('heading', { name: 'Answer by Marie Curie', level: 3 }).waitFor()

        await page.getByLabel('Add a tag').fill('Bees')
        await page.getByLabel('Add a tag').press('Enter')
        await page.getByRole('button', { name: 'Remove Bees' }).waitFor()
        await page.getByRole('button', { name: 'Publish', exact: true }).click()
        await page.getByRole('button', { name: 'Unpublish' }).waitFor()
        const stored = await content(`qanda/${ctx.tenant.orgId}/${id}`)
        assert.equal(stored.question[0].published, 1)
        assert.deepEqual(
          stored.question[0].answers.map((a: { username: string; answer: string }) => [a.username, a.answer]),
          [[curie, '<p>To tell where the food is</p>']],
        )
        await assertAccessible(page, 'Q&A editor')
        await page.evaluate('window.scrollTo(0, 0)')
        await screenshot(page, 'qanda-editor')

        page.once('dialog', (dialog) => void dialog.accept())
        await page
          .getByRole('form', { name: 'Answer by Marie Curie' })
          .getByRole('button', { name: 'Remove' })
          .click()
        await page.getByText('No answers yet.').waitFor()
        assert.deepEqual((await content(`qanda/${ctx.tenant.orgId}/${id}`)).question[0].answers, [])

        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Q&A' }).click()
        await page.getByRole('link', { name: 'Why do bees dance?' }).waitFor()
        await assertAccessible(page, 'Q&A list')
      })
    })

    test('sets the organization profile and its public directory switch; a wrong website is named beside its field', {
      skip,
    }, async () => {
      await withPage(async (page) => {
        await signIn(page, '/organization')
        const form = page.getByRole('form', { name: 'Organization profile' })
        await form.getByLabel('Organization name').waitFor()
        await form.getByLabel('Website').fill('not a website')
        await form.getByRole('button', { name: 'Save' }).click()
        await form.getByRole('alert').waitFor()
        assert.equal(await form.getByLabel('Website').getAttribute('aria-invalid'), 'true')
        await form.getByLabel('Website').fill('https://institute.example')
        await form.getByLabel('City').fill('Paris')
        const publicDirectory = form.getByRole('checkbox', { name: 'Public directory' })
        const wasOn = await publicDirectory.isChecked()
        await publicDirectory.setChecked(!wasOn)
        await form.getByRole('button', { name: 'Save' }).click()
        await form.getByRole('status').getByText('Saved.').waitFor()
        const stored = (await content(`organization/${ctx.tenant.orgId}`)) as Record<string, unknown>
        assert.equal(stored.website, 'https://institute.example')
        assert.equal(stored.location_city, 'Paris')
        assert.equal(stored.public_directory, wasOn ? 0 : 1)
        await assertAccessible(page, 'organization profile')
        await screenshot(page, 'organization')
      })
    })

    test('sets up single sign-on (the client secret never shown, groups mapped to roles); the sign-in page offers its button', {
      skip,
    }, async () => {
      await withPage(async (page) => {
        await signIn(page, '/experts')
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Single sign-on' })
          .click()
        await page.getByText('Single sign-on is not set up.').waitFor()
        await assertAccessible(page, 'single sign-on, not set up')
        const form = page.getByRole('form', { name: 'Single sign-on settings' })
        await form.getByLabel('Protocol').selectOption('oidc')
        await form.getByLabel('Issuer (OIDC)').fill('https://idp.example')
        await form.getByLabel('Client id (OIDC)').fill('expertdir')
        await form.getByLabel('Client secret (OIDC)').fill('a-client-secret-of-the-idp')
        await form.getByRole('button', { name: 'Set up single sign-on' }).click()
        await page.getByText('Stored (never shown)', { exact: false }).waitFor()
        assert.equal(await form.getByLabel('Client secret (OIDC)').inputValue(), '')
        await page.getByLabel('Add a domain').fill('example.edu')
        await page.getByLabel('Add a domain').press('Enter')
        await page.getByRole('button', { name: 'Remove example.edu' }).waitFor()
        // A new domain routes no one until its TXT record is found: the screen says which record.
        const domains = page.getByRole('list', { name: 'Domain verification' })
        await domains.getByText('Not verified: routes no one yet').waitFor()
        const [pending] = (await apiData('GET', '/sso')).domains as { txt_name: string; txt_value: string }[]
        assert.ok(pending)
        await domains.getByText(pending.txt_value, { exact: true }).waitFor()
        await domains.getByText('_expertdir.example.edu', { exact: true }).waitFor()
        const check = domains.getByRole('button', { name: 'Check the TXT record of example.edu' })
        await check.click()
        await domains.getByRole('alert').getByText('No TXT record at _expertdir.example.edu').waitFor()
        await assertAccessible(page, 'single sign-on, a domain not verified')
        await domains.scrollIntoViewIfNeeded()
        await screenshot(page, 'sso-domain-unverified')
        await page.setViewportSize({ width: 360, height: 740 })
        await page.waitForFunction('document.documentElement.clientWidth <= 360')
        const box = await domains.boundingBox()
        assert.ok(box && box.x + box.width <= 360, `the domains ${JSON.stringify(box)} fit 360 px`)
        // The refusal quotes the whole TXT value: it wraps instead of widening the page.
        assert.equal(await pageWidth(page), 360, 'no sideways scrolling')
        await domains.scrollIntoViewIfNeeded()
        await screenshot(page, 'sso-domain-unverified-360')
        await page.setViewportSize({ width: 1280, height: 900 })
        dns.records.set(pending.txt_name, [[pending.txt_value]])
        await check.click()
        await domains.getByText('Verified by DNS').waitFor()
        const mapping = page.getByRole('form', { name: 'Map a group to a role' })
        await mapping.getByLabel('Role').selectOption('editor')
        await mapping.getByRole('button', { name: 'Map the group' }).click()
        await mapping.getByRole('alert').waitFor()
        assert.equal(await mapping.getByLabel('Group').getAttribute('aria-invalid'), 'true')
        await mapping.getByLabel('Group').fill('faculty-editors')
        await mapping.getByRole('button', { name: 'Map the group' }).click()
        await page.getByRole('button', { name: 'Remove faculty-editors' }).waitFor()
        const stored = await apiData('GET', '/sso')
        assert.equal(stored.client_secret_set, true)
        assert.equal(stored.issuer, 'https://idp.example')
        assert.deepEqual(stored.allowed_domains, ['example.edu'])
        assert.deepEqual(stored.role_mapping, [{ group: 'faculty-editors', role: 'editor' }])
        assert.equal(JSON.stringify(stored).includes('a-client-secret-of-the-idp'), false)
        await assertAccessible(page, 'single sign-on settings')
        await page.evaluate('window.scrollTo(0, 0)')
        await screenshot(page, 'sso-settings')

        assert.ok(browser)
        const visitor = await openPage(browser)
        try {
          await visitor.page.goto(`${origin}/admin/`)
          await visitor.page.getByLabel('Email').fill('someone@example.edu')
          await visitor.page.getByLabel('Password').focus()
          const button = visitor.page.getByRole('link', { name: 'Sign in with OpenID Connect' })
          await button.waitFor()
          assert.match(
            (await button.getAttribute('href')) ?? '',
            new RegExp(`/auth/sso/${ctx.tenant.orgId}/oidc$`),
          )
          await assertAccessible(visitor.page, 'sign-in with single sign-on')
          await screenshot(visitor.page, 'sign-in-sso')
          await visitor.page.goto(`${origin}/admin/?organization=${ctx.tenant.orgId}`)
          await visitor.page.getByRole('link', { name: 'Sign in with OpenID Connect' }).waitFor()
          assert.deepEqual(visitor.problems, [])
        } finally {
          await visitor.close()
        }

        page.once('dialog', (dialog) => void dialog.accept())
        await page.getByRole('button', { name: 'Remove single sign-on' }).click()
        await page.getByText('Single sign-on is not set up.').waitFor()
        assert.equal((await api('GET', '/sso')).statusCode, 404)
      })
    })

    test('an admin reads single sign-on and its domains but cannot change them: only an owner may', {
      skip,
    }, async () => {
      const admin = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'admin')
      const domain = `${randomBytes(4).toString('hex')}.example.edu`
      await putSsoSettings(
        {
          ...cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'sso set', ctx.clock.now()),
          secretBox: undefined,
          notices: NO_NOTICES,
        },
        {
          protocol: 'oidc',
          issuer: 'https://idp.example',
          client_id: 'expertdir',
          allowed_domains: [domain],
        },
      )
      try {
        await withPage(async (page) => {
          await signIn(page, '/sso', admin)
          await page.getByRole('heading', { name: 'Single sign-on', exact: true }).waitFor()
          await page.getByText('Only an owner may change single sign-on').waitFor()
          await page.getByText('https://idp.example', { exact: true }).waitFor()
          const domains = page.getByRole('list', { name: 'Domain verification' })
          await domains.getByText('Not verified: routes no one yet').waitFor()
          await domains.getByText(`_expertdir.${domain}`, { exact: true }).waitFor()
          assert.equal(await page.getByRole('form', { name: 'Single sign-on settings' }).count(), 0)
          assert.equal(
            await page
              .getByRole('button')
              .filter({ hasText: /Check the TXT record|Remove single/ })
              .count(),
            0,
          )
          await assertAccessible(page, 'single sign-on, read by an admin')
          await screenshot(page, 'sso-admin-read-only')
        })
      } finally {
        await removeSsoSettings({
          ...cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'sso remove', ctx.clock.now()),
          notices: NO_NOTICES,
        })
      }
    })

    test('reads the audit log, newest first, a page at a time', { skip }, async () => {
      await apiData('PUT', '', { location_city: 'Lyon' })
      await withPage(async (page) => {
        await signIn(page, '/experts')
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
        await page.getByRole('heading', { name: 'Audit log' }).waitFor()
        const first = page.getByRole('row').nth(1)
        await first.getByRole('cell', { name: "Changed the organization's profile", exact: true }).waitFor()
        assert.equal(await page.getByRole('row').count(), 26, 'a header and the 25 newest entries')
        await assertAccessible(page, 'audit log')
        await screenshot(page, 'audit-log')
        await page.getByRole('button', { name: 'Older entries' }).click()
        await page.getByRole('row').nth(26).waitFor()
      })
    })

    test('an expert person lands on its own profile and its own inquiries, and reaches nothing else', {
      skip,
    }, async () => {
      const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'expert', { expert: franklin })
      await apiData('POST', '/inquiry/general', inquiryBody('general', franklin, { firstname: 'Watson' }))
      await apiData('POST', '/inquiry/general', inquiryBody('general', curie, { firstname: 'Other' }))
      await withPage(async (page) => {
        await signIn(page, '/', person)
        await page.getByRole('heading', { name: 'Rosalind Franklin' }).waitFor()
        const nav = page.getByRole('navigation', { name: 'Main' })
        assert.deepEqual(await nav.getByRole('link').allTextContents(), ['My profile', 'My inquiries'])
        assert.equal(await page.getByRole('button', { name: 'Add an expert' }).count(), 0)
        await assertAccessible(page, "an expert's own profile")

        for (const path of ['/experts', `/experts/${curie}`, '/nowhere']) {
          await page.goto(`${origin}/admin${path}`)
          await page.getByRole('heading', { name: 'Rosalind Franklin' }).waitFor()
          assert.match(page.url(), new RegExp(`/admin/experts/${franklin}$`))
        }

        await nav.getByRole('link', { name: 'My inquiries' }).click()
        const list = page.getByRole('region', { name: 'Inquiry list' })
        await list.getByRole('button', { name: /Watson/ }).click()
        assert.equal(await list.getByRole('button', { name: /Other/ }).count(), 0)
        await page.getByRole('heading', { name: /General inquiry from Watson/ }).waitFor()
        assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0, 'reading only: no handling')
        await assertAccessible(page, "an expert's inquiries")
      })
    })

    test('an invitation link sets the first password (a weak one is refused beside the field with the rule it breaks) and signs the person in', {
      skip,
    }, async () => {
      const email = 'invited.editor@main.example'
      const added = await addPerson(
        cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'people add', ctx.clock.now()),
        { email, role: 'editor' },
      )
      assert.ok(added.invitation)
      await withPage(async (page) => {
        await page.goto(`${origin}/admin/invitation#token=${added.invitation}`)
        await page.getByRole('heading', { name: 'Welcome: choose your password' }).waitFor()
        await page.getByLabel('Password', { exact: true }).fill('password')
        await page.getByLabel('Confirm the password').fill('password')
        await page.getByRole('button', { name: 'Save password' }).click()
        await page.getByText('The password must be at least 12 characters long.').waitFor()
        await assertAccessible(page, 'invitation')
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
        await page.getByLabel('Confirm the password').fill(PASSWORD)
        await page.getByRole('button', { name: 'Save password' }).click()
        await page.getByRole('status').getByText('Your password is set and you are signed in.').waitFor()
        await page.getByRole('link', { name: 'Open the dashboard' }).click()
        await page.getByRole('heading', { name: 'Experts' }).waitFor()
      })
    })

    test('a one-time password must be replaced first, without typing it again; after a reload a wrong one is named beside its field', {
      skip,
    }, async () => {
      const email = 'one.time@main.example'
      const oneTime = 'one-time-password-7Qx'
      await addPerson(
        cliWriteContext(ctx.testDatabase.database.db, ctx.tenant.orgId, 'people add', ctx.clock.now()),
        { email, role: 'editor', password: oneTime, mustChange: true },
      )
      await withPage(async (page) => {
        await page.goto(`${origin}/admin/`)
        await page.getByLabel('Email').fill(email)
        await page.getByLabel('Password').fill(oneTime)
        await page.getByRole('button', { name: 'Sign in' }).click()
        await page.getByRole('heading', { name: 'Choose your password' }).waitFor()
        await assertAccessible(page, 'password change')
        // Just typed at sign-in: not asked again. After a reload it is, and a wrong one is named.
        assert.equal(await page.getByLabel('One-time password').count(), 0)
        await page.reload()
        await page.getByRole('heading', { name: 'Choose your password' }).waitFor()
        await page.getByLabel('One-time password').fill('not-the-one-time-password')
        await page.getByLabel('New password').fill(PASSWORD)
        await page.getByLabel('Confirm the password').fill(PASSWORD)
        await page.getByRole('button', { name: 'Save password' }).click()
        await page.getByText('The one-time password is not the password in use.').waitFor()
        await page.getByLabel('One-time password').fill(oneTime)
        await page.getByRole('button', { name: 'Save password' }).click()
        await page.getByRole('heading', { name: 'Experts' }).waitFor()
      })
    })

    test('works 360 px wide: no sideways scrolling on the list, the editors and the settings', { skip }, () =>
      withPage(
        async (page) => {
          await signIn(page, '/experts')
          await page
            .getByRole('status')
            .getByText(/\d+ experts/)
            .waitFor()
          const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth')
          assert.ok((await overflow()) <= 360, `list ${await overflow()} px wide`)
          await screenshot(page, 'experts-360')
          await page.getByLabel('Search experts').fill('Curie')
          await page.getByRole('button', { name: 'Search', exact: true }).click()
          await page.getByRole('link', { name: 'Marie Curie' }).click()
          await page.getByRole('heading', { name: 'Publishing' }).waitFor()
          await page.getByRole('textbox', { name: 'Biography' }).waitFor()
          assert.ok((await overflow()) <= 360, `editor ${await overflow()} px wide`)
          await assertAccessible(page, 'profile editor at 360 px')
          await screenshot(page, 'profile-360')
          await page.goto(`${origin}/admin/posts/new`)
          await page.getByRole('textbox', { name: 'Body' }).waitFor()
          assert.ok((await overflow()) <= 360, `new post ${await overflow()} px wide`)
          await assertAccessible(page, 'new post at 360 px')
          await page.goto(`${origin}/admin/sso`)
          await page.getByRole('heading', { name: 'Single sign-on', exact: true }).waitFor()
          await page.getByRole('form', { name: 'Single sign-on settings' }).waitFor()
          assert.ok((await overflow()) <= 360, `single sign-on ${await overflow()} px wide`)
        },
        { width: 360, height: 740 },
      ),
    )
  },
  { config: { secretKey: randomBytes(32).toString('hex'), dnsServers: [dns.address] } },
)
