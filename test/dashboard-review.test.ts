import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { createClient } from '../src/auth/clients.js'
import { browserSkip, closeSharedBrowsers, sharedBrowser } from './helpers/browser.js'
import {
  assertAccessible,
  ensureDashboardBuilt,
  pageWidth,
  screenshot,
  signInAt,
  withPage as withBrowserPage,
} from './helpers/dashboard.js'
import { createExpert, describeEachDialect, requestToken } from './helpers/harness.js'
import { listeningPort } from './helpers/net.js'
import { addPersonWithPassword } from './helpers/people.js'

const skip = await browserSkip()
if (!skip) ensureDashboardBuilt()
after(closeSharedBrowsers)

const NARROW = { width: 360, height: 740 }
const KEPT = 'Your change waits for review; the public profile is unchanged until it is approved.'

/**
 * Review in the dashboard (CONTRACT §21) in a real headless Chromium against the real server: an expert's
 * change waits as a draft, a reviewer sends it back with a comment, the expert fixes it, the reviewer
 * approves it, and the public profile changes only then; a draft whose record changed live is approved
 * over those changes only once the reviewer confirms.
 */
describeEachDialect('review of drafts in a real browser', (ctx) => {
  let browser: Browser | undefined
  let origin = ''
  let editor = { id: 0, email: '', password: '' }
  let publicToken = ''

  const api = async (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) => {
    const response = await ctx.inject({
      method,
      url: `/v2/organization/${ctx.tenant.orgId}${path}`,
      headers: ctx.tenant.auth,
      ...(payload ? { payload } : {}),
    })
    assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`)
    return response.json().data
  }
  /** The tagline the public API (`read:public`) serves. */
  const publicTagline = async (username: string): Promise<unknown> => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: { authorization: `Bearer ${publicToken}` },
    })
    assert.equal(response.statusCode, 200, response.body)
    return response.json().data.tagline[0]?.tagline
  }
  /** An expert published with a tagline, and its own person, who signs in. */
  const expertWithPerson = async (firstname: string, lastname: string, tagline: string) => {
    const username = await createExpert(ctx, ctx.tenant, { firstname, lastname })
    await api('POST', `/expert/${username}/tagline`, { tagline })
    await api('PUT', `/expert/${username}`, { is_published: 1 })
    const person = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'expert', { expert: username })
    return { username, person }
  }
  /** The drafts of a profile not yet published, oldest first. */
  const draftsOf = async (username: string) => {
    const drafts: { id: number; state: string; record: { username: string } }[] = (
      await api('GET', '/drafts')
    ).drafts
    return drafts.filter((draft) => draft.record.username === username)
  }

  before(async () => {
    if (skip) return
    editor = await addPersonWithPassword(ctx, ctx.tenant.orgId, 'editor')
    const { db } = ctx.testDatabase.database
    publicToken = await requestToken(
      ctx.app,
      await createClient(db, ctx.tenant.orgId, 'website', ctx.clock.now(), ['read:public']),
    )
    await api('PUT', '/workflow', {
      review: { roles: ['expert'], sections: null },
      gate: { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: null },
    })
    await ctx.app.listen({ host: '127.0.0.1', port: 0 })
    origin = `http://127.0.0.1:${listeningPort(ctx.app.server)}`
    browser = await sharedBrowser()
  })

  const withPage = (run: (page: Page) => Promise<void>, viewport?: { width: number; height: number }) =>
    withBrowserPage(browser, run, viewport)
  const signIn = (page: Page, path: string, person: { email: string; password: string }) =>
    signInAt(page, `${origin}/admin${path}`, person)
  const ownDrafts = (page: Page) => page.getByRole('region', { name: 'Your changes waiting for review' })

  test('an expert’s change waits; the reviewer sends it back; the fix is approved; only then the public profile changes', {
    skip,
  }, async () => {
    const { username, person } = await expertWithPerson('Marie', 'Tharp', 'Maps the ocean floor')

    // The expert edits its tagline: kept as a draft, submitted, the public profile unchanged.
    await withPage(async (page) => {
      await signIn(page, `/experts/${username}`, person)
      const tagline = page.getByRole('textbox', { name: 'Tagline' })
      await tagline.fill('Maps the ocaen floor and its ridges')
      await page.getByRole('button', { name: 'Save tagline' }).click()
      await page.getByRole('status').filter({ hasText: KEPT }).waitFor()
      assert.equal(await tagline.inputValue(), 'Maps the ocean floor', 'the form shows the published tagline')
      const mine = ownDrafts(page)
      await mine.getByText('Waiting for a reviewer').waitFor()
      await mine.locator('dd', { hasText: 'Maps the ocaen floor and its ridges' }).waitFor()
      await assertAccessible(page, 'the expert’s change waiting for review')
      await mine.scrollIntoViewIfNeeded()
      await screenshot(page, 'review-own-draft')
      // No Review menu for an expert.
      assert.equal(
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).count(),
        0,
      )
    })
    assert.equal(await publicTagline(username), 'Maps the ocean floor')
    const [draft] = await draftsOf(username)
    assert.ok(draft)
    assert.equal(draft.state, 'submitted')

    // The reviewer finds it in the queue, reads the diff and sends it back with a comment.
    await withPage(async (page) => {
      await signIn(page, '/experts', editor)
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review' }).click()
      await page.getByRole('heading', { name: 'Review', level: 1 }).waitFor()
      const queue = page.getByRole('list', { name: 'Drafts: Waiting for review' })
      const item = queue.getByRole('listitem').filter({ hasText: 'Marie Tharp' })
      await item.waitFor()
      assert.match(
        (await item.textContent()) ?? '',
        /Marie Tharp: tagline.*Waiting for review.*by .+, last changed/,
      )
      await assertAccessible(page, 'the review queue')
      await screenshot(page, 'review-queue')
      await item.getByRole('link', { name: 'Marie Tharp: tagline' }).click()

      await page.getByRole('heading', { name: 'Marie Tharp: tagline', level: 1 }).waitFor()
      const changes = page.getByRole('list', { name: 'What the draft changes' })
      await changes
        .getByRole('definition')
        .filter({ hasText: 'Maps the ocaen floor and its ridges' })
        .waitFor()
      await changes
        .getByRole('definition')
        .filter({ hasText: /^Maps the ocean floor$/ })
        .waitFor()
      await assertAccessible(page, 'a draft opened')
      await screenshot(page, 'review-draft')

      // An empty comment is refused in words, before anything is sent.
      await page.getByRole('button', { name: 'Send back' }).click()
      await page.getByRole('alert').filter({ hasText: 'Write what the author should change' }).waitFor()
      await page.getByRole('textbox', { name: 'Comment for the author' }).fill('“ocaen” is misspelt.')
      await page.getByRole('button', { name: 'Send back' }).click()
      await page
        .getByRole('status')
        .filter({ hasText: 'Sent back to its author with your comment.' })
        .waitFor()
      await page.getByText('Sent back with this comment:').waitFor()
      assert.equal(await page.getByRole('button', { name: 'Approve and publish' }).count(), 0)
    })
    assert.equal((await api('GET', `/drafts/${draft.id}`)).state, 'returned')
    assert.equal(await publicTagline(username), 'Maps the ocean floor')

    // The expert reads the comment, fixes the tagline and saves: submitted again.
    await withPage(async (page) => {
      await signIn(page, `/experts/${username}`, person)
      const mine = ownDrafts(page)
      await mine.getByText('Sent back to you.').waitFor()
      await mine
        .getByRole('figure')
        .filter({ hasText: 'The reviewer wrote:' })
        .getByText('“ocaen” is misspelt.')
        .waitFor()
      await assertAccessible(page, 'a draft sent back')
      await mine.scrollIntoViewIfNeeded()
      await screenshot(page, 'review-own-draft-returned')
      await page.getByRole('textbox', { name: 'Tagline' }).fill('Maps the ocean floor and its ridges')
      await page.getByRole('button', { name: 'Save tagline' }).click()
      await page.getByRole('status').filter({ hasText: KEPT }).waitFor()
      await mine.getByText('Waiting for a reviewer').waitFor()
    })
    assert.equal((await api('GET', `/drafts/${draft.id}`)).state, 'submitted')
    assert.equal(await publicTagline(username), 'Maps the ocean floor')

    // The reviewer, on a narrow screen, approves it: now the public profile changes.
    await withPage(async (page) => {
      await signIn(page, '/review', editor)
      const item = page
        .getByRole('list', { name: 'Drafts: Waiting for review' })
        .getByRole('listitem')
        .filter({ hasText: 'Marie Tharp' })
      await item.waitFor()
      assert.ok((await pageWidth(page)) <= NARROW.width, `queue ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'the review queue at 360 px')
      await screenshot(page, 'review-queue-360')
      await item.getByRole('link').click()
      const changes = page.getByRole('list', { name: 'What the draft changes' })
      await changes
        .getByRole('definition')
        .filter({ hasText: 'Maps the ocean floor and its ridges' })
        .waitFor()
      // The comment it was sent back with stays readable beside the fix.
      await page.getByText('“ocaen” is misspelt.').waitFor()
      assert.ok((await pageWidth(page)) <= NARROW.width, `draft ${await pageWidth(page)} px wide`)
      await assertAccessible(page, 'a draft opened at 360 px')
      await screenshot(page, 'review-draft-360')
      await page.getByRole('button', { name: 'Approve and publish' }).click()
      await page.getByRole('status').filter({ hasText: 'Approved and published' }).waitFor()
    }, NARROW)
    assert.equal(await publicTagline(username), 'Maps the ocean floor and its ridges')
    assert.equal((await api('GET', `/drafts/${draft.id}`)).state, 'published')
  })

  test('approved for a date and time: the draft waits, approved, and the public profile is unchanged until then', {
    skip,
  }, async () => {
    const { username, person } = await expertWithPerson('Sylvia', 'Earle', 'Explores the deep sea')
    await withPage(async (page) => {
      await signIn(page, `/experts/${username}`, person)
      await page.getByRole('textbox', { name: 'Tagline' }).fill('Explores the deep sea and its reefs')
      await page.getByRole('button', { name: 'Save tagline' }).click()
      await page.getByRole('status').filter({ hasText: KEPT }).waitFor()
    })
    const [draft] = await draftsOf(username)
    assert.ok(draft)
    // Two days ahead, to the minute, as the UTC date-and-time field takes it.
    const at = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 16)
    await withPage(async (page) => {
      await signIn(page, `/review/${draft.id}`, editor)
      await page.getByRole('radio', { name: 'At a date and time' }).check()
      await page.getByRole('button', { name: 'Approve for that time' }).click()
      await page
        .getByRole('alert')
        .filter({ hasText: 'Choose the date and time to publish it at.' })
        .waitFor()
      await page.getByLabel('Publish at (date and time in UTC)').fill(at)
      await page.getByRole('button', { name: 'Approve for that time' }).click()
      await page.getByRole('status').filter({ hasText: 'Approved: it will be published on' }).waitFor()
      await page.getByText('It is approved: it is published at its time.').waitFor()
    })
    const approved = await api('GET', `/drafts/${draft.id}`)
    assert.equal(approved.state, 'approved')
    assert.equal(approved.publish_at, Date.parse(`${at}:00Z`) / 1000)
    assert.equal(await publicTagline(username), 'Explores the deep sea')
  })

  test('a draft whose record changed live is approved over the change only once the reviewer confirms; a stale step is refused in words', {
    skip,
  }, async () => {
    const { username, person } = await expertWithPerson('Inge', 'Lehmann', 'Found the inner core')
    await withPage(async (page) => {
      await signIn(page, `/experts/${username}`, person)
      await page.getByRole('textbox', { name: 'Tagline' }).fill('Found the Earth’s inner core')
      await page.getByRole('button', { name: 'Save tagline' }).click()
      await page.getByRole('status').filter({ hasText: KEPT }).waitFor()
    })
    const [draft] = await draftsOf(username)
    assert.ok(draft)
    // The organization's integration changes the tagline live meanwhile.
    await api('POST', `/expert/${username}/tagline`, { tagline: 'Seismologist of the inner core' })

    await withPage(async (page) => {
      await signIn(page, `/review/${draft.id}`, editor)
      const live = page.getByRole('region', { name: 'Changed live since it was written' })
      await live.getByRole('definition').filter({ hasText: 'Seismologist of the inner core' }).waitFor()
      await page.getByRole('button', { name: 'Approve and publish' }).click()
      const confirm = page.getByRole('group', { name: 'Approve over the live changes' })
      await confirm.waitFor()
      await assertAccessible(page, 'approving over live changes')
      await screenshot(page, 'review-conflict')
      await confirm.getByRole('button', { name: 'Cancel' }).click()
      assert.equal(
        await publicTagline(username),
        'Seismologist of the inner core',
        'nothing before the confirmation',
      )
      await page.getByRole('button', { name: 'Approve and publish' }).click()
      await confirm.getByRole('button', { name: 'Yes, approve over the live changes' }).click()
      await page.getByRole('status').filter({ hasText: 'Approved and published' }).waitFor()
    })
    assert.equal(await publicTagline(username), 'Found the Earth’s inner core')

    // A page opened before another reviewer decided: its step is refused, and says why.
    await withPage(async (page) => {
      await signIn(page, `/experts/${username}`, person)
      await page.getByRole('textbox', { name: 'Tagline' }).fill('Discovered the inner core in 1936')
      await page.getByRole('button', { name: 'Save tagline' }).click()
      await page.getByRole('status').filter({ hasText: KEPT }).waitFor()
    })
    const [second] = (await draftsOf(username)).filter((found) => found.state === 'submitted')
    assert.ok(second)
    await withPage(async (page) => {
      await signIn(page, `/review/${second.id}`, editor)
      await page.getByRole('button', { name: 'Approve and publish' }).waitFor()
      await api('POST', `/drafts/${second.id}/approve`, {})
      await page.getByRole('textbox', { name: 'Comment for the author' }).fill('Say where.')
      await page.getByRole('button', { name: 'Send back' }).click()
      // The draft read again is published: the step's form is gone, the refusal stays.
      await page.getByText('It is published: the live record reads as it says.').waitFor()
      await page
        .getByRole('alert')
        .filter({ hasText: `Draft ${second.id} is not submitted` })
        .waitFor()
      assert.equal(await page.getByRole('button', { name: 'Send back' }).count(), 0)
    })
    assert.equal(await publicTagline(username), 'Discovered the inner core in 1936')
  })
})
