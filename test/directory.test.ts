import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { type HTMLElement, parse } from 'node-html-parser'
import { postgresPoolOf } from '../src/db/database.js'
import { createOutbox } from '../src/delivery/outbox.js'
import { present } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect, openSecondApp, type TestContext } from './helpers/harness.js'
import { SmtpReceiver } from './helpers/receivers.js'

const PUBLIC_URL = 'https://experts.example.org'

/** The page's JSON-LD objects. */
function jsonLd(page: HTMLElement): Record<string, unknown>[] {
  return page
    .querySelectorAll('script[type="application/ld+json"]')
    .map((script) => JSON.parse(script.textContent) as Record<string, unknown>)
}

/** A quoted-printable mail body as text (soft line breaks joined, =XX decoded). */
const unquoted = (raw: string) =>
  Buffer.from(
    raw
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  ).toString('utf8')

const meta = (page: HTMLElement, attribute: 'property' | 'name', key: string) =>
  page.querySelector(`meta[${attribute}="${key}"]`)?.getAttribute('content')

/** The contact form's fields as a form would send them. */
function formFields(page: HTMLElement): { action: string; fields: Record<string, string> } {
  const form = page.querySelector('form.contact-form')
  assert.ok(form, 'the page has the contact form')
  const fields: Record<string, string> = {}
  for (const input of form.querySelectorAll('input, textarea, select')) {
    const name = input.getAttribute('name')
    if (name) fields[name] = input.getAttribute('value') ?? ''
  }
  return { action: form.getAttribute('action') ?? '', fields }
}

/**
 * The public directory (CONTRACT §18): server-rendered pages of published, public experts, posts and
 * Q&A items, their metadata, the sitemap and robots.txt, the widget's public JSON, and the contact form
 * with its spam defences, on both databases.
 */
describeEachDialect(
  'public directory pages',
  (ctx: TestContext) => {
    const org = () => ctx.tenant.orgId
    const root = () => `/directory/${org()}`
    const get = (url: string) => ctx.inject({ method: 'GET', url })
    const page = async (url: string, status = 200) => {
      const response = await get(url)
      assert.equal(response.statusCode, status, `${url}: ${response.body.slice(0, 300)}`)
      assert.match(String(response.headers['content-type']), /^text\/html/)
      return { response, html: parse(response.body) }
    }
    let post = 0
    let draftPost = 0
    let question = 0
    let draftQuestion = 0

    const expert = (key: string, firstname: string, flags: { is_published: number; is_private: number }) => ({
      key,
      firstname,
      lastname: 'Lovelace',
      job_title: `Professor of ${firstname} studies`,
      email: `${key}@uni.example`,
      company: 'Main University',
      location_country: 'CA',
      ...flags,
      sections: {
        topic: [{ name: `Topic of ${firstname}` }, { name: 'Shared topic' }],
        tagline: [{ tagline: `Tagline of ${firstname}` }],
        biography: [{ biography: `<p>Biography of ${firstname} <script>alert(1)</script></p>` }],
        social: [{ linkedin: `https://www.linkedin.com/in/${key}` }],
      },
    })

    before(async () => {
      const enable = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}`,
        headers: ctx.tenant.auth,
        payload: {
          public_directory: 1,
          brand_color: '#0b3d6b',
          accent_color: '#fde047',
          website: 'https://main.example',
        },
      })
      assert.equal(enable.statusCode, 200, enable.body)
      const result = await importDocument(ctx, org(), {
        experts: [
          expert('ada', 'Ada', { is_published: 1, is_private: 0 }),
          expert('draft', 'Dora', { is_published: 0, is_private: 0 }),
          expert('private', 'Priv', { is_published: 1, is_private: 1 }),
          ...Array.from({ length: 11 }, (_, i) =>
            expert(`many-${i}`, `Many${String.fromCharCode(97 + i)}`, { is_published: 1, is_private: 0 }),
          ),
        ],
        spotlights: [
          {
            key: 'post',
            title: 'Heat waves & <health>',
            html: '<p>Shown text</p>',
            published: 1,
            experts: ['ada', 'draft', 'private'],
            tags: ['Climate'],
          },
          { key: 'draft-post', title: 'Draft post', html: '<p>Hidden</p>', published: 0, experts: ['ada'] },
        ],
        questions: [
          {
            key: 'question',
            question: 'Why is the sky blue?',
            published: 1,
            answers: [
              { key: 'a1', expert: 'ada', answer: '<p>Rayleigh scattering.</p>' },
              { key: 'a2', expert: 'private', answer: '<p>Private answer.</p>' },
            ],
          },
          { key: 'draft-question', question: 'Draft question?', published: 0 },
        ],
      })
      ;[post, draftPost] = [present(result.ids.spotlights[0]), present(result.ids.spotlights[1])]
      ;[question, draftQuestion] = [present(result.ids.questions[0]), present(result.ids.questions[1])]
    })

    test('on PostgreSQL a page view is one statement: the directory with what the page shows', async (t) => {
      const pool = postgresPoolOf(ctx.testDatabase.database.db)
      if (!pool) return t.skip('PostgreSQL only: on SQLite a kept page view runs no statement')
      const pages = [
        `${root()}/ada-lovelace`,
        `${root()}/spotlight/${post}`,
        `${root()}/qanda/${question}`,
        `${root()}/`,
      ]
      for (const url of pages) await page(url)
      // Every statement out of the pool takes a connection: named ones (pool.query) and Kysely's alike.
      const connect = pool.connect
      let statements = 0
      pool.connect = ((...args: Parameters<typeof connect>) => {
        statements++
        return Reflect.apply(connect, pool, args)
      }) as typeof connect
      try {
        for (const url of pages) {
          statements = 0
          await page(url)
          assert.equal(statements, 1, url)
        }
        statements = 0
        await page(`/directory/${org() + 1000}/ada-lovelace`, 404)
        assert.equal(statements, 1, 'an unknown directory')
      } finally {
        pool.connect = connect
      }
    })

    test('the expert page: title, canonical URL, Open Graph, Twitter card and ProfilePage JSON-LD', async () => {
      const { response, html } = await page(`${root()}/ada-lovelace`)
      const url = `${PUBLIC_URL}/directory/${org()}/ada-lovelace`
      assert.equal(
        html.querySelector('title')?.textContent,
        'Ada Lovelace – Professor of Ada studies | Main University experts',
      )
      assert.equal(html.querySelector('link[rel="canonical"]')?.getAttribute('href'), url)
      assert.equal(meta(html, 'property', 'og:type'), 'profile')
      assert.equal(meta(html, 'property', 'og:url'), url)
      assert.equal(meta(html, 'property', 'og:description'), 'Tagline of Ada')
      assert.equal(meta(html, 'name', 'twitter:card'), 'summary')
      const [ld] = jsonLd(html)
      assert.equal(ld?.['@type'], 'ProfilePage')
      assert.deepEqual(ld?.mainEntity, {
        '@type': 'Person',
        name: 'Ada Lovelace',
        givenName: 'Ada',
        familyName: 'Lovelace',
        jobTitle: 'Professor of Ada studies',
        worksFor: { '@type': 'Organization', name: 'Main University' },
        affiliation: { '@type': 'Organization', name: 'Main University', url: 'https://main.example' },
        description: 'Tagline of Ada',
        url,
        sameAs: ['https://www.linkedin.com/in/ada'],
        knowsAbout: ['Topic of Ada', 'Shared topic'],
      })
      assert.equal(html.querySelector('h1')?.textContent, 'Ada Lovelace')
      assert.equal(
        html.querySelectorAll('script:not([type="application/ld+json"]):not([src])').length,
        0,
        'the stored HTML was sanitized',
      )
      assert.ok(!response.body.includes('ada@uni.example'), 'the email address is not shown')
      assert.match(
        String(response.headers['content-security-policy']),
        /default-src 'none'; script-src 'self'/,
      )
      assert.match(
        String(response.headers['content-security-policy']),
        /form-action 'self' https:\/\/experts\.example\.org/,
      )
      const theme = await get(`${root()}/theme.css?v=1`)
      assert.match(theme.body, /--brand:#0b3d6b;--brand-text:#fff;--accent:#fde047;--accent-text:#000/)
      assert.ok(!theme.body.includes('--link'), 'a pale accent is not used for links on white')
    })

    test('post and Q&A pages: canonical URLs, Open Graph, BlogPosting and QAPage JSON-LD', async () => {
      const postPage = await page(`${root()}/spotlight/${post}`)
      assert.equal(postPage.html.querySelector('h1')?.textContent, 'Heat waves & <health>')
      assert.equal(
        postPage.html.querySelector('link[rel="canonical"]')?.getAttribute('href'),
        `${PUBLIC_URL}/directory/${org()}/spotlight/${post}`,
      )
      assert.equal(meta(postPage.html, 'property', 'og:type'), 'article')
      assert.equal(meta(postPage.html, 'property', 'article:tag'), 'Climate')
      const [posting] = jsonLd(postPage.html)
      assert.equal(posting?.['@type'], 'BlogPosting')
      assert.equal(posting?.headline, 'Heat waves & <health>')
      assert.deepEqual(posting?.author, [
        { '@type': 'Person', name: 'Ada Lovelace', jobTitle: 'Professor of Ada studies' },
      ])

      const qa = await page(`${root()}/qanda/${question}`)
      assert.equal(qa.html.querySelector('title')?.textContent, 'Why is the sky blue?')
      const [qaPage] = jsonLd(qa.html)
      assert.equal(qaPage?.['@type'], 'QAPage')
      const entity = qaPage?.mainEntity as Record<string, unknown>
      assert.equal(entity['@type'], 'Question')
      assert.equal(entity.answerCount, 1)
      assert.equal((entity.suggestedAnswer as { text: string }[])[0]?.text, 'Rayleigh scattering.')
    })

    test('nothing unpublished or private: 404 pages, and absent from lists, posts, answers, sitemap and widget data', async () => {
      for (const url of [
        `${root()}/dora-lovelace`,
        `${root()}/priv-lovelace`,
        `${root()}/spotlight/${draftPost}`,
        `${root()}/qanda/${draftQuestion}`,
        `${root()}/dora-lovelace/contact`,
      ]) {
        const { html } = await page(url, 404)
        assert.equal(html.querySelector('h1')?.textContent, 'Page not found')
      }
      const bodies = [
        (await get(`${root()}/?q=lovelace`)).body,
        (await get(`${root()}/?q=lovelace&page=2`)).body,
        (await get(`${root()}/spotlight/${post}`)).body,
        (await get(`${root()}/qanda/${question}`)).body,
        (await get(`${root()}/ada-lovelace`)).body,
        (await get(`${root()}/sitemap.xml`)).body,
        (await get(`${root()}/sitemap.xml?page=1`)).body,
        (await get(`${root()}/sitemap.xml?page=2`)).body,
        (await get(`${root()}/sitemap.xml?page=3`)).body,
        (await get(`${root()}/sitemap.xml?page=4`)).body,
        (await get(`${root()}/sitemap.xml?page=5`)).body,
        (await get(`${root()}/sitemap.xml?page=6`)).body,
        (await get(`${root()}/api/experts?q=lovelace&page_size=20`)).body,
      ]
      for (const body of bodies) {
        for (const hidden of [
          'Dora',
          'dora-lovelace',
          'Priv',
          'priv-lovelace',
          'Draft post',
          'Draft question',
          'Private answer',
        ])
          assert.ok(!body.includes(hidden), `"${hidden}" must not appear in ${body.slice(0, 120)}`)
      }
      const widget = (await get(`${root()}/api/experts?q=lovelace&page_size=20`)).json().data
      assert.equal(widget.total, 12)
      assert.equal((await get(`${root()}/api/experts/dora-lovelace`)).statusCode, 404)
      assert.equal((await get(`${root()}/api/experts/priv-lovelace`)).statusCode, 404)
    })

    test('the find-an-expert page: search box, facets as links, pages; without JavaScript', async () => {
      const first = await page(`${root()}/`)
      assert.equal(first.html.querySelector('form.search')?.getAttribute('method'), 'get')
      assert.ok(first.html.querySelector('label[for="q"]'))
      assert.equal(first.html.querySelector('#results-heading')?.textContent, '12 experts, 1 to 10 shown')
      assert.equal(first.html.querySelectorAll('.expert-card').length, 10)
      const next = first.html.querySelector('a[rel="next"]')?.getAttribute('href')
      assert.equal(next, `${PUBLIC_URL}/directory/${org()}/?page=2`)
      const second = await page(`${root()}/?page=2`)
      assert.equal(second.html.querySelectorAll('.expert-card').length, 2)
      assert.equal(meta(second.html, 'name', 'robots'), 'noindex, follow')

      const topic = first.html
        .querySelectorAll('nav.facets a')
        .find((link) => link.textContent.startsWith('Topic of Ada'))
      assert.equal(topic?.getAttribute('href'), `${PUBLIC_URL}/directory/${org()}/?topics=Topic+of+Ada`)
      const filtered = await page(`${root()}/?topics=Topic+of+Ada`)
      assert.deepEqual(
        filtered.html.querySelectorAll('.expert-card h3 a').map((a) => a.textContent),
        ['Ada Lovelace'],
      )
      const searched = await page(`${root()}/?q=ada&utm_source=newsletter`)
      assert.equal(searched.html.querySelector('#q')?.getAttribute('value'), 'ada')
      assert.equal(searched.html.querySelectorAll('.expert-card').length, 1)
      const [collection] = jsonLd(first.html)
      assert.equal(collection?.['@type'], 'CollectionPage')

      const bad = await page(`${root()}/?page=0`, 400)
      assert.match(bad.html.querySelector('main p')?.textContent ?? '', /page number/)
    })

    test('a write shows on the page at once', async () => {
      const before = await page(`${root()}/manya-lovelace`)
      assert.equal(
        before.html.querySelector('.role')?.textContent,
        'Professor of Manya studies, Main University',
      )
      const write = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/manya-lovelace`,
        headers: ctx.tenant.auth,
        payload: { job_title: 'Dean of Everything' },
      })
      assert.equal(write.statusCode, 200, write.body)
      const after = await page(`${root()}/manya-lovelace`)
      assert.equal(after.html.querySelector('.role')?.textContent, 'Dean of Everything, Main University')
      const search = await page(`${root()}/?q=manya`)
      assert.match(search.html.querySelector('.expert-card .role')?.textContent ?? '', /Dean of Everything/)

      await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/manya-lovelace`,
        headers: ctx.tenant.auth,
        payload: { is_published: 0 },
      })
      await page(`${root()}/manya-lovelace`, 404)
      await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/manya-lovelace`,
        headers: ctx.tenant.auth,
        payload: { is_published: 1 },
      })
      await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}`,
        headers: ctx.tenant.auth,
        payload: { name: 'Renamed University' },
      })
      const renamed = await page(`${root()}/manya-lovelace`)
      assert.match(
        renamed.html.querySelector('.site-header')?.textContent ?? '',
        /Renamed University experts/,
      )
      await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}`,
        headers: ctx.tenant.auth,
        payload: { name: 'Main University' },
      })
    })

    test('a renamed username redirects (308) to the page under the new one', async () => {
      const rename = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}/expert/manyb-lovelace`,
        headers: ctx.tenant.auth,
        payload: { username: 'b-lovelace' },
      })
      assert.equal(rename.statusCode, 200, rename.body)
      const response = await get(`${root()}/manyb-lovelace`)
      assert.equal(response.statusCode, 308)
      assert.equal(response.headers.location, `${PUBLIC_URL}/directory/${org()}/b-lovelace`)
    })

    test('a disabled directory, an unknown organization or a malformed address: a 404 page', async () => {
      for (const url of [
        `/directory/${ctx.other.orgId}/`,
        '/directory/999999/',
        '/directory/01/',
        '/directory/abc/x',
        `${root()}/spotlight/abc`,
        `${root()}/a/b/c/d`,
      ]) {
        const response = await get(url)
        assert.equal(response.statusCode, 404, url)
        assert.match(String(response.headers['content-type']), /^text\/html/, url)
        assert.ok(!response.body.includes('Other Hospital'))
      }
      const wrongMethod = await ctx.inject({ method: 'DELETE', url: `${root()}/ada-lovelace` })
      assert.equal(wrongMethod.statusCode, 405)
      assert.equal(wrongMethod.headers.allow, 'GET, HEAD')
      assert.equal(parse(wrongMethod.body).querySelector('h1')?.textContent, 'Not allowed', wrongMethod.body)
      const redirect = await get(root())
      assert.equal(redirect.statusCode, 301)
      assert.equal(redirect.headers.location, `${PUBLIC_URL}/directory/${org()}/`)
    })

    test('a 404 inside a directory is its page, with the search box and the way back; an unknown directory says so', async () => {
      for (const url of [
        `${root()}/no-such-expert`,
        `${root()}/spotlight/${draftPost}`,
        `${root()}/a/b/c/d`,
      ]) {
        const { html } = await page(url, 404)
        assert.equal(html.querySelector('h1')?.textContent, 'Page not found', url)
        assert.ok(html.querySelector('.site-header')?.textContent?.includes('Main University experts'), url)
        assert.equal(
          html.querySelector('.error-page form[role="search"]')?.getAttribute('action'),
          `${PUBLIC_URL}${root()}/`,
        )
        assert.equal(
          html.querySelector('.error-page a[href]')?.getAttribute('href'),
          `${PUBLIC_URL}${root()}/`,
          'a way back to the list of experts',
        )
        assert.equal(html.querySelector('meta[name="robots"]')?.getAttribute('content'), 'noindex, follow')
      }
      assert.match(
        (await page(`${root()}/no-such-expert`, 404)).html.querySelector('.error-page p')?.textContent ?? '',
        /^No expert “no-such-expert” is listed in this directory/,
      )
      for (const url of ['/directory/999999/', `/directory/${ctx.other.orgId}/x`]) {
        const { html } = await page(url, 404)
        assert.equal(
          html.querySelector('main p')?.textContent,
          'There is no expert directory at this address. Please check the address.',
        )
        assert.doesNotMatch(html.toString(), /is not in the directory/)
      }
    })

    test('an empty search says what to try, with the topics to browse; filters offer "More"; countries by name', async () => {
      const { html } = await page(`${root()}/?q=zzzyx`)
      assert.equal(html.querySelector('#results-heading')?.textContent, 'No experts found')
      const empty = html.querySelector('.empty')
      assert.ok(empty, 'guidance on an empty search')
      assert.match(empty.textContent, /Check the spelling of “zzzyx”/)
      assert.match(empty.textContent, /Use fewer words/)
      const topics = empty.querySelectorAll('.chips a').map((link) => link.textContent)
      assert.ok(topics.includes('Shared topic'), topics.join())
      assert.equal(
        empty.querySelector('.chips a')?.getAttribute('href'),
        `${PUBLIC_URL}${root()}/?topics=Shared+topic`,
      )

      const home = (await page(`${root()}/`)).html
      const facets = home.querySelector('nav.facets')
      assert.ok(facets)
      const topicList = facets.querySelectorAll('ul')[0]
      assert.equal(topicList?.querySelectorAll('li').length, 5, 'the five most frequent topics shown')
      const more = facets.querySelector('details.more')
      assert.match(more?.querySelector('summary')?.textContent ?? '', /^More topics/)
      assert.ok((more?.querySelectorAll('li').length ?? 0) > 0, 'the others under More, without script')
      assert.ok(
        facets.querySelectorAll('a').some((link) => link.textContent.startsWith('Canada (')),
        'a country by its name',
      )
      assert.ok(!facets.querySelectorAll('a').some((link) => link.textContent.startsWith('CA (')))
      const chosen = (await page(`${root()}/?countries=CA`)).html
      assert.equal(
        chosen.querySelector('nav.facets a[aria-current]')?.textContent.replace(/\s*\(.*$/, ''),
        'Canada',
      )
      assert.equal(
        (await page(`${root()}/ada-lovelace`)).html.querySelector('.location')?.textContent,
        'Canada',
      )
    })

    test('the header links to the experts, the posts and the Q&A items, each a list of what the public may see', async () => {
      const { html } = await page(`${root()}/ada-lovelace`)
      const nav = html
        .querySelectorAll('.site-nav a')
        .map((link) => [link.textContent, link.getAttribute('href')])
      assert.deepEqual(nav, [
        ['Experts', `${PUBLIC_URL}${root()}/`],
        ['Your story', `${PUBLIC_URL}${root()}/story/`],
        ['Posts', `${PUBLIC_URL}${root()}/spotlight/`],
        ['Q&A', `${PUBLIC_URL}${root()}/qanda/`],
      ])
      const posts = (await page(`${root()}/spotlight/`)).html
      assert.equal(posts.querySelector('.site-nav a[aria-current="page"]')?.textContent, 'Posts')
      assert.deepEqual(
        posts.querySelectorAll('.item h3 a').map((link) => [link.textContent, link.getAttribute('href')]),
        [['Heat waves & <health>', `${PUBLIC_URL}${root()}/spotlight/${post}`]],
      )
      assert.equal(
        posts.querySelector('.item .detail')?.textContent,
        'Experts: Ada Lovelace',
        'visible experts only',
      )
      assert.equal(
        (await page(`${root()}/spotlight/?q=climate`)).html.querySelectorAll('.item').length,
        1,
        'tags match',
      )
      assert.equal(
        (await page(`${root()}/spotlight/?q=nothing`)).html.querySelector('#results-heading')?.textContent,
        'No posts found',
      )
      const questions = (await page(`${root()}/qanda/`)).html
      assert.deepEqual(
        questions.querySelectorAll('.item h3 a').map((link) => link.textContent),
        ['Why is the sky blue?'],
      )
      assert.equal(questions.querySelector('.item .detail')?.textContent, 'Answered by: Ada Lovelace')
      await page(`/directory/${ctx.other.orgId}/spotlight/`, 404)
    })

    test('sitemap.xml (an index when large) and robots.txt naming every enabled directory', async () => {
      const index = parse((await get(`${root()}/sitemap.xml`)).body)
      const files = index.querySelectorAll('sitemap loc').map((loc) => loc.textContent)
      // 1 search page + 12 experts + 1 post + 1 question, 3 URLs per file (the test config).
      assert.equal(files.length, 5)
      assert.equal(files[0], `${PUBLIC_URL}/directory/${org()}/sitemap.xml?page=1`)
      const locs: string[] = []
      for (let n = 1; n <= files.length; n += 1)
        locs.push(
          ...parse((await get(`${root()}/sitemap.xml?page=${n}`)).body)
            .querySelectorAll('url loc')
            .map((l) => l.textContent),
        )
      assert.equal(locs.length, 15)
      assert.ok(locs.includes(`${PUBLIC_URL}/directory/${org()}/ada-lovelace`))
      assert.ok(locs.includes(`${PUBLIC_URL}/directory/${org()}/spotlight/${post}`))
      assert.ok(locs.includes(`${PUBLIC_URL}/directory/${org()}/qanda/${question}`))
      assert.equal((await get(`${root()}/sitemap.xml?page=6`)).statusCode, 404)

      const robots = await get('/robots.txt')
      assert.equal(robots.statusCode, 200)
      assert.match(robots.body, new RegExp(`Sitemap: ${PUBLIC_URL}/directory/${org()}/sitemap.xml`))
      assert.ok(!robots.body.includes(`/directory/${ctx.other.orgId}/`), 'a disabled directory is not named')
    })

    test('the widget: its script and public JSON for any origin, without credentials', async () => {
      const script = await ctx.inject({
        method: 'GET',
        url: '/directory/widget.js',
        headers: { origin: 'https://news.example' },
      })
      assert.equal(script.statusCode, 200)
      assert.match(String(script.headers['content-type']), /^text\/javascript/)
      assert.equal(script.headers['access-control-allow-origin'], '*')
      assert.equal(script.headers['access-control-allow-credentials'], undefined)
      assert.equal(script.headers['cross-origin-resource-policy'], 'cross-origin')
      assert.match(script.body, /customElements\.define\("expert-directory"/)
      const search = await ctx.inject({
        method: 'GET',
        url: `${root()}/api/experts?topics=Topic%20of%20Ada`,
        headers: { origin: 'https://news.example' },
      })
      assert.equal(search.headers['access-control-allow-origin'], '*')
      assert.deepEqual(
        search.json().data.experts.map((e: { username: string }) => e.username),
        ['ada-lovelace'],
      )
      const profile = (await get(`${root()}/api/experts/ada-lovelace`)).json().data
      assert.match(profile.biography, /^<p>Biography of Ada\s*<\/p>$/, 'its structure kept, its script not')
      assert.deepEqual(Object.keys(profile).sort(), [
        'avatar',
        'biography',
        'company',
        'department',
        'job_title',
        'name',
        'tagline',
        'topics',
        'url',
        'username',
      ])
      const bad = await get(`${root()}/api/experts?page_size=500`)
      assert.equal(bad.statusCode, 400)
      assert.equal(bad.json().error.code, 'validation_failed')
    })

    test('the organization settings: public_directory, colours and inquiry kinds are read back and validated', async () => {
      const read = (
        await ctx.inject({ method: 'GET', url: `/v2/organization/${org()}`, headers: ctx.tenant.auth })
      ).json().data
      assert.equal(read.public_directory, 1)
      assert.equal(read.brand_color, '#0b3d6b')
      assert.deepEqual(read.directory_inquiry_kinds, ['general', 'media'])
      const bad = await ctx.inject({
        method: 'PUT',
        url: `/v2/organization/${org()}`,
        headers: ctx.tenant.auth,
        payload: { brand_color: 'red', directory_inquiry_kinds: ['gossip'], public_directory: 2 },
      })
      assert.equal(bad.statusCode, 400)
      const fields = bad.json().error.details.map((d: { field: string }) => d.field)
      for (const field of ['brand_color', 'directory_inquiry_kinds', 'public_directory'])
        assert.ok(
          fields.some((f: string) => f.startsWith(field)),
          field,
        )
    })

    const inquiryCount = async () =>
      Number(
        (
          await ctx.testDatabase.database.db
            .selectFrom('inquiries')
            .select((eb) => eb.fn.countAll().as('count'))
            .where('org_id', '=', org())
            .executeTakeFirstOrThrow()
        ).count,
      )

    /** Opens the expert page from `address` and returns its form, filled in by a person. */
    async function openForm(
      address: string,
      username = 'ada-lovelace',
      inject: TestContext['inject'] = ctx.inject,
    ) {
      const response = await inject({
        method: 'GET',
        url: `${root()}/${username}`,
        remoteAddress: address,
      })
      const { action, fields } = formFields(parse(response.body))
      const filled = {
        ...fields,
        firstname: 'Jo',
        lastname: 'Reporter',
        email: 'jo@news.example',
        message: 'May I interview you?',
      }
      const send = (body: Record<string, string>, from = address) =>
        inject({
          method: 'POST',
          url: new URL(action).pathname,
          remoteAddress: from,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams(body).toString(),
        })
      const recipients = parse(response.body).querySelector('.contact-form .recipients')?.textContent ?? ''
      return { fields, filled, send, recipients }
    }

    test('the contact form stores one inquiry, and a resubmission of the same form no second one', async () => {
      const { fields, filled, send } = await openForm('10.0.0.1')
      assert.equal(fields.kind, 'general')
      assert.equal(fields.nickname, '')
      const before = await inquiryCount()
      ctx.clock.advance(5_000)
      const sent = await send(filled)
      assert.equal(sent.statusCode, 200, sent.body.slice(0, 500))
      assert.equal(parse(sent.body).querySelector('h1')?.textContent, 'Thank you: your message was sent')
      const again = await send(filled)
      assert.equal(again.statusCode, 200)
      assert.equal(await inquiryCount(), before + 1)
      const inbox = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${org()}/inquiry?page_size=1`,
        headers: ctx.tenant.auth,
      })
      const [stored] = inbox.json().data.inquiries
      assert.equal(stored.kind, 'general')
      assert.equal(stored.username, 'ada-lovelace')
      assert.equal(stored.fields.message, 'May I interview you?')
    })

    test('without SMTP the contact form names the inquiry inbox and promises no confirmation', async () => {
      const { filled, send, recipients } = await openForm('10.0.0.5')
      assert.equal(
        recipients,
        'Who receives it: Main University’s staff, in their inquiry inbox. No confirmation email is sent, so keep a copy of your message if you need one.',
      )
      ctx.clock.advance(5_000)
      const sent = await send(filled)
      assert.equal(sent.statusCode, 200)
      assert.match(
        parse(sent.body).querySelector('.notice')?.textContent ?? '',
        /No confirmation email is sent/,
      )
    })

    test('with SMTP the contact form names who the notification settings email, and the sender gets a confirmation', async () => {
      const smtp = new SmtpReceiver()
      await smtp.start()
      const second = await openSecondApp(ctx, { smtpUrl: smtp.url })
      const outbox = (publicUrl?: string) =>
        createOutbox({
          database: ctx.testDatabase.database,
          now: ctx.clock.now,
          config: {
            smtpUrl: smtp.url,
            mailFrom: 'Experts <no-reply@uni.example>',
            deliveryMaxAttempts: 3,
            deliveryBackoffMs: 1000,
            deliveryPollMs: 1000,
            ...(publicUrl ? { publicUrl } : {}),
          },
        })
      const inject: TestContext['inject'] = (options) => second.app.inject(options)
      // The earlier tests' inquiries are not this test's to deliver.
      await ctx.testDatabase.database.db
        .updateTable('inquiry_deliveries')
        .set({ status: 'failed', next_attempt_at: null })
        .where('status', '=', 'pending')
        .execute()
      const notify = async (general: Record<string, unknown>) => {
        const response = await ctx.inject({
          method: 'PUT',
          url: `/v2/organization/${org()}/notifications`,
          headers: ctx.tenant.auth,
          payload: { general },
        })
        assert.equal(response.statusCode, 200, response.body)
      }
      try {
        assert.equal(
          (await openForm('10.0.0.6', 'ada-lovelace', inject)).recipients,
          'Who receives it: Ada Lovelace by email, and Main University’s staff in their inquiry inbox. You will get an email confirming that it arrived.',
        )
        const assistant = await ctx.inject({
          method: 'PUT',
          url: `/v2/organization/${org()}/expert/ada-lovelace`,
          headers: ctx.tenant.auth,
          payload: { assistant_email: 'aide@uni.example' },
        })
        assert.equal(assistant.statusCode, 200, assistant.body)
        await notify({ expert: 0, assistant: 1, desk: 1, recipients: ['press@uni.example'] })
        const { filled, send, recipients } = await openForm('10.0.0.6', 'ada-lovelace', inject)
        assert.equal(
          recipients,
          'Who receives it: Ada Lovelace’s assistant and Main University’s inquiry desk by email, and Main University’s staff in their inquiry inbox. You will get an email confirming that it arrived.',
          'a change of the settings shows on the kept page at once',
        )
        ctx.clock.advance(5_000)
        const sent = await send({ ...filled, message: 'Please call me back about the heat wave.' })
        assert.equal(sent.statusCode, 200, sent.body.slice(0, 500))
        assert.equal(
          parse(sent.body).querySelector('.notice')?.textContent,
          'Ada Lovelace’s assistant and Main University’s inquiry desk receive it by email, and Main University’s staff in their inquiry inbox. A confirmation is on its way to your email address.',
        )
        assert.equal(
          (await send({ ...filled, message: 'Please call me back about the heat wave.' })).statusCode,
          200,
        )

        const before = smtp.messages.length
        await outbox(PUBLIC_URL).processOnce()
        const mail = smtp.messages.slice(before)
        assert.deepEqual(mail.map((message) => message.to).sort(), [
          ['aide@uni.example', 'press@uni.example'],
          ['jo@news.example'],
        ])
        const confirmation = unquoted(mail.find((message) => message.to[0] === 'jo@news.example')?.raw ?? '')
        assert.match(confirmation, /Subject: Your message to Ada Lovelace at Main University was\s+received/)
        assert.ok(confirmation.includes(`${PUBLIC_URL}/directory/${org()}/ada-lovelace`), confirmation)
        for (const written of ['heat wave', 'Reporter'])
          assert.ok(!confirmation.includes(written), `nothing the sender wrote: ${written}`)
        await outbox(PUBLIC_URL).processOnce()
        assert.equal(smtp.messages.length, before + 2, 'a resent form is confirmed once')

        // Without a configured public address the confirmation has no link at all.
        const other = await openForm('10.0.0.8', 'ada-lovelace', inject)
        ctx.clock.advance(5_000)
        assert.equal((await other.send({ ...other.filled, email: 'kim@news.example' })).statusCode, 200)
        await outbox().processOnce()
        const unlinked = unquoted(
          smtp.messages.find((message) => message.to[0] === 'kim@news.example')?.raw ?? '',
        )
        assert.match(unlinked, /Your message to Ada Lovelace at Main University was received/)
        assert.doesNotMatch(unlinked, /https?:\/\//)
      } finally {
        await notify({ expert: 1, assistant: 0, desk: 0, recipients: [] })
        await second.close()
        await smtp.stop()
      }
    })

    test('the contact form refuses a filled honeypot, a missing, forged, hasty or stale token, and bad fields, with the form again', async () => {
      const { filled, send } = await openForm('10.0.0.2')
      const before = await inquiryCount()
      let sender = 0
      const refused = async (body: Record<string, string>, pattern: RegExp, status = 400) => {
        // Each from an address of its own: the per-address limit is another test's.
        sender += 1
        const response = await send(body, `10.0.2.${sender}`)
        assert.equal(response.statusCode, status, response.body.slice(0, 300))
        const html = parse(response.body)
        assert.match(html.querySelector('.form-problem')?.textContent ?? '', pattern)
        assert.equal(html.querySelector('#f-message')?.textContent, body.message ?? '', 'the text is kept')
        return html
      }
      await refused(filled, /sooner than a person/)
      ctx.clock.advance(5_000)
      await refused({ ...filled, nickname: 'bot' }, /Leave this field empty/)
      await refused({ ...filled, token: '' }, /without its security token/)
      await refused({ ...filled, token: `${ctx.clock.now() - 10_000}.${'A'.repeat(43)}` }, /not valid/)
      const errors = await refused(
        { ...filled, email: 'not-an-address', firstname: '' },
        /need your attention/,
      )
      assert.equal(errors.querySelector('#f-email')?.getAttribute('aria-invalid'), 'true')
      assert.ok(errors.querySelector('#e-firstname'))
      ctx.clock.advance(3 * 60 * 60 * 1000)
      await refused(filled, /more than 2 hours ago/)
      assert.equal(await inquiryCount(), before)
    })

    test('the contact form offers the kinds the organization allows, and refuses floods from one address', async () => {
      const media = await page(`${root()}/ada-lovelace/contact?kind=media`)
      const { fields } = formFields(media.html)
      assert.equal(fields.kind, 'media')
      assert.ok(media.html.querySelector('select#f-media_type'))
      await page(`${root()}/ada-lovelace/contact?kind=donor`, 400)

      const { filled, send } = await openForm('10.0.0.3')
      ctx.clock.advance(5_000)
      const before = await inquiryCount()
      // The test config allows 4 submissions per address and hour.
      for (let i = 0; i < 4; i += 1)
        assert.notEqual((await send({ ...filled, message: `Message ${i}` })).statusCode, 429)
      const flood = await send(filled)
      assert.equal(flood.statusCode, 429)
      assert.ok(Number(flood.headers['retry-after']) > 0)
      assert.match(parse(flood.body).querySelector('.notice')?.textContent ?? '', /try again in \d+ minutes?/)
      assert.equal(await inquiryCount(), before + 1, 'one form, one inquiry; the rest were refused')
    })
  },
  { config: { publicUrl: PUBLIC_URL, directorySitemapUrls: 3, directoryContactLimit: 4 } },
)
