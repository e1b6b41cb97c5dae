import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { type HTMLElement, parse } from 'node-html-parser'
import { importDocument } from './helpers/content.js'
import { describeEachDialect, type TestContext } from './helpers/harness.js'

const PUBLIC_URL = 'https://experts.example.org'

const ABSTRACT =
  'Storm surges and rising seas put coastal cities at risk. We model flood risk along the coastline and ' +
  'test coastal engineering defences such as dikes and dunes against storm surge scenarios.'

/** The experts a story page or a similar-experts section shows: name, link and reasons. */
function cards(section: HTMLElement | null) {
  return (section?.querySelectorAll('.expert-card') ?? []).map((card) => ({
    name: card.querySelector('h3 a')?.textContent ?? '',
    href: card.querySelector('h3 a')?.getAttribute('href') ?? '',
    reasons: card.querySelectorAll('.reason').map((reason) => reason.textContent.trim()),
  }))
}

/**
 * The public directory finds experts by meaning (CONTRACT §20): "describe your story" (a pasted text in,
 * experts with their reasons out) and similar experts on an expert's page, for the public audience only.
 */
/** Story searches per address and minute in this suite: a few more than its other tests make. */
const STORY_LIMIT = 4

describeEachDialect(
  'public directory: experts by meaning',
  (ctx: TestContext) => {
    const org = () => ctx.tenant.orgId
    const root = () => `/directory/${org()}`
    const story = (text: string) =>
      ctx.inject({
        method: 'POST',
        url: `${root()}/story/`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ text }).toString(),
      })
    const page = async (url: string) => {
      const response = await ctx.inject({ method: 'GET', url })
      assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 300)}`)
      return parse(response.body)
    }
    const similarOn = async (username: string) =>
      cards((await page(`${root()}/${username}`)).querySelector('.similar'))

    const expert = (
      key: string,
      firstname: string,
      topics: string[],
      biography: string,
      flags = { is_published: 1, is_private: 0 },
    ) => ({
      key,
      firstname,
      lastname: 'Tester',
      job_title: `${firstname} researcher`,
      email: `${key}@uni.example`,
      company: 'Main University',
      ...flags,
      sections: {
        topic: topics.map((name) => ({ name })),
        biography: [{ biography: `<p>${biography}</p>` }],
      },
    })

    before(async () => {
      const enable = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}`,
        headers: ctx.tenant.auth,
        payload: { public_directory: 1 },
      })
      assert.equal(enable.statusCode, 200, enable.body)
      const coast = 'Studies storm surges, dikes and flood defences of coastal cities.'
      await importDocument(ctx, org(), {
        experts: [
          expert('coral', 'Coral', ['Flood risk', 'Coastal engineering'], coast),
          expert('brook', 'Brook', ['Flood risk', 'Hydrology'], 'Rivers, rainfall and flood forecasting.'),
          expert('heart', 'Harvey', ['Cardiology', 'Hypertension'], 'Blood pressure and the heart.'),
          expert('secret', 'Sienna', ['Flood risk', 'Coastal engineering'], 'Tides and estuaries.', {
            is_published: 1,
            is_private: 1,
          }),
          expert('draft', 'Dune', ['Flood risk', 'Coastal engineering'], 'Tides and harbours.', {
            is_published: 0,
            is_private: 0,
          }),
        ],
      })
    })

    test('the story page is linked from the search page and the nav, and works without a script', async () => {
      const search = await page(`${root()}/`)
      const href = `${PUBLIC_URL}${root()}/story/`
      assert.ok(search.querySelector(`.story-link a[href="${href}"]`), 'the search page links to it')
      assert.ok(search.querySelector(`.site-nav a[href="${href}"]`), 'the nav links to it')
      const form = (await page(`${root()}/story/`)).querySelector('form.story')
      assert.equal(form?.getAttribute('method'), 'post')
      assert.equal(form?.getAttribute('action'), `${href}#results`)
      assert.ok(form?.querySelector('textarea[name="text"]'))
      assert.ok(form?.querySelector('label[for="story-text"]'))
    })

    test('a pasted abstract finds the experts with their reasons, never a private or unpublished one', async () => {
      const response = await story(ABSTRACT)
      assert.equal(response.statusCode, 200, response.body.slice(0, 300))
      const html = parse(response.body)
      assert.equal(html.querySelector('textarea')?.textContent, ABSTRACT, 'the text is kept')
      assert.equal(html.querySelector('meta[name="robots"]')?.getAttribute('content'), 'noindex, follow')
      const found = cards(html.querySelector('#results'))
      assert.equal(found[0]?.name, 'Coral Tester', JSON.stringify(found))
      assert.equal(found[0]?.href, `${PUBLIC_URL}${root()}/coral-tester`)
      assert.ok(
        found[0]?.reasons.some((reason) => /^Works on: .*(Flood risk|Coastal engineering)/.test(reason)),
        JSON.stringify(found[0]),
      )
      assert.ok(
        found[0]?.reasons.some((reason) => reason.startsWith('Words in common: ')),
        JSON.stringify(found[0]),
      )
      const names = found.map((card) => card.name)
      assert.ok(names.includes('Brook Tester'), 'flood risk finds the hydrologist too')
      for (const hidden of ['Sienna Tester', 'Dune Tester']) assert.ok(!names.includes(hidden), hidden)
      assert.ok(!response.body.includes('Sienna') && !response.body.includes('Dune Tester'))
    })

    test('empty, too long and unmatched texts are clear pages, not errors', async () => {
      const empty = await story('   ')
      assert.equal(empty.statusCode, 400)
      assert.match(
        parse(empty.body).querySelector('#story-error')?.textContent ?? '',
        /Paste or type your story/,
      )

      const long = 'flood '.repeat(3_400)
      const tooLong = await story(long)
      assert.equal(tooLong.statusCode, 400)
      const html = parse(tooLong.body)
      assert.match(
        html.querySelector('#story-error')?.textContent ?? '',
        /20,400 characters; use at most 20,000/,
      )
      assert.equal(html.querySelector('textarea')?.textContent, long, 'the text is kept to be shortened')
      assert.equal(html.querySelector('textarea')?.getAttribute('aria-invalid'), 'true')

      const none = await story('Quantum chromodynamics of gluon plasmas')
      assert.equal(none.statusCode, 200)
      const results = parse(none.body).querySelector('#results')
      assert.equal(results?.querySelector('h2')?.textContent, 'No experts found for this text')
      assert.equal(cards(results).length, 0)

      const missingField = await ctx.inject({
        method: 'POST',
        url: `${root()}/story/`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'other=1',
      })
      assert.equal(missingField.statusCode, 400)
      const unknown = await ctx.inject({
        method: 'POST',
        url: `/directory/${org() + 1000}/story/`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'text=flood',
      })
      assert.equal(unknown.statusCode, 404)
      const put = await ctx.inject({ method: 'PUT', url: `${root()}/story/`, payload: {} })
      assert.equal(put.statusCode, 405)
      assert.equal(put.headers.allow, 'GET, HEAD, POST')
    })

    test('the expert page shows similar public experts with reasons, and follows changes to the others', async () => {
      const similar = await similarOn('coral-tester')
      assert.equal(similar[0]?.name, 'Brook Tester', JSON.stringify(similar))
      assert.ok(similar[0]?.reasons.includes('Works on: Flood risk'), JSON.stringify(similar[0]))
      assert.ok(similar.length <= 5)
      const names = similar.map((card) => card.name)
      for (const hidden of ['Sienna Tester', 'Dune Tester']) assert.ok(!names.includes(hidden), hidden)

      // Another expert changes: the kept page must not keep the old list.
      const hide = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/brook-tester`,
        headers: ctx.tenant.auth,
        payload: { is_private: 1 },
      })
      assert.equal(hide.statusCode, 200, hide.body)
      assert.ok(!(await similarOn('coral-tester')).some((card) => card.name === 'Brook Tester'))
      const show = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/brook-tester`,
        headers: ctx.tenant.auth,
        payload: { is_private: 0 },
      })
      assert.equal(show.statusCode, 200, show.body)
      assert.equal((await similarOn('coral-tester'))[0]?.name, 'Brook Tester')
    })

    test('an expert with nothing in common shows no similar experts section', async () => {
      const html = await page(`${root()}/harvey-tester`)
      assert.equal(html.querySelector('.similar'), null)
      assert.equal(html.querySelector('#similar-heading'), null)
    })

    test('story searches from one address are limited per minute: 429 with Retry-After, the text kept', async () => {
      // The earlier tests' searches count too (one window): within STORY_LIMIT + 1 searches one is refused.
      let refused: Awaited<ReturnType<typeof story>> | undefined
      for (let n = 0; n <= STORY_LIMIT && !refused; n++) {
        const response = await story('Flood risk of coastal towns')
        if (response.statusCode === 429) refused = response
        else assert.equal(response.statusCode, 200, response.body.slice(0, 300))
      }
      assert.ok(refused, 'a search past the limit is refused')
      const wait = Number(refused.headers['retry-after'])
      assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`)
      const html = parse(refused.body)
      assert.match(html.querySelector('#story-error')?.textContent ?? '', /try again in \d+ seconds?/)
      assert.equal(html.querySelector('textarea')?.textContent, 'Flood risk of coastal towns')
      assert.equal(html.querySelector('#results'), null)
    })
  },
  { config: { publicUrl: PUBLIC_URL, directoryStoryLimit: STORY_LIMIT } },
)
