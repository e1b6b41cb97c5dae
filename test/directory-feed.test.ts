import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { XMLParser } from 'fast-xml-parser'
import { present } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect, type TestContext } from './helpers/harness.js'

/** An Atom document as an independent parser reads it: its entries always a list. */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => ['entry', 'author', 'category', 'link'].includes(name),
})

type AtomText = string | { '#text'?: string; '@type'?: string }

interface AtomEntry {
  id: string
  title: AtomText
  updated: string
  link: { '@href': string }[]
  author?: { name: string; uri?: string }[]
  category?: { '@term': string }[]
}

function atomOf(xml: string): { title: string; id: string; entries: AtomEntry[] } {
  const document: { feed?: { title: AtomText; id: string; entry?: AtomEntry[]; '@xmlns'?: string } } =
    parser.parse(xml)
  const feed = present(document.feed, 'an Atom <feed>')
  assert.equal(feed['@xmlns'], 'http://www.w3.org/2005/Atom')
  return { title: textOf(feed.title), id: feed.id, entries: feed.entry ?? [] }
}

/** An Atom text construct as a reader shows it: `type="html"` is HTML, so its entities are decoded. */
function textOf(value: AtomText): string {
  if (typeof value === 'string') return value
  const text = value['#text'] ?? ''
  if (value['@type'] !== 'html') return text
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
}

const titles = (entries: AtomEntry[]) => entries.map((entry) => textOf(entry.title))

/**
 * The directory's Atom feed (CONTRACT §22): the newest public posts and Q&A items together, narrowed to a
 * topic (a tag) or an expert (tagged in a post or answering a question), read back by an independent
 * parser (`fast-xml-parser`); what the public may not see is never in it; an ETag makes a reader's poll of
 * an unchanged feed a 304; a bad address is a 400, an unknown expert a 404.
 */
describeEachDialect('the directory feed', (ctx: TestContext) => {
  const org = () => ctx.tenant.orgId
  const feedUrl = (query = '') => `/directory/${org()}/feed.atom${query}`
  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx.inject({ method: 'GET', url, headers })
  const day = (n: number) => 1_767_225_600 + n * 86_400

  const expert = (key: string, firstname: string, fields: Record<string, unknown> = {}) => ({
    key,
    firstname,
    lastname: 'Okafor',
    job_title: 'Climatologist',
    email: `${key}@uni.example`,
    company: 'Main University',
    is_published: 1,
    is_private: 0,
    ...fields,
  })

  before(async () => {
    const enable = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${org()}`,
      headers: ctx.tenant.auth,
      payload: { public_directory: 1 },
    })
    assert.equal(enable.statusCode, 200, enable.body)
    await importDocument(ctx, org(), {
      experts: [expert('ada', 'Ada'), expert('ben', 'Ben'), expert('hid', 'Hidden', { is_private: 1 })],
      spotlights: [
        {
          key: 'heat',
          title: 'Heat waves and older people',
          html: '<p>What the summer means for the old.</p>',
          published: 1,
          published_date: day(3),
          experts: ['ada'],
          tags: ['Climate'],
        },
        {
          key: 'floods',
          title: 'Floods & the <city>',
          html: '<p>Rivers rise.</p>',
          published: 1,
          published_date: day(1),
          experts: ['ben'],
          tags: ['Water'],
        },
        { key: 'draft', title: 'Not yet', html: '<p>Draft.</p>', published: 0, tags: ['Climate'] },
        {
          key: 'secret',
          title: 'With a private expert',
          html: '<p>x</p>',
          published: 1,
          published_date: day(4),
          experts: ['hid'],
          tags: ['Secret'],
        },
      ],
      questions: [
        {
          key: 'q1',
          question: 'Will this winter be warm?',
          published: 1,
          published_date: day(2),
          tags: ['Climate'],
          answers: [{ expert: 'ada', answer: '<p>Probably.</p>' }],
        },
      ],
    })
  })

  test('the newest public posts and Q&A items together, newest first, each linking to its page', async () => {
    const response = await get(feedUrl())
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.headers['content-type'], 'application/atom+xml; charset=utf-8')
    const feed = atomOf(response.body)
    assert.match(feed.title, /: posts and answers$/)
    assert.ok(feed.id.endsWith(`/directory/${org()}/feed.atom`), feed.id)
    const entries = feed.entries
    // The post tagging a private expert is public; the private expert is not named in it.
    assert.deepEqual(titles(entries), [
      'With a private expert',
      'Heat waves and older people',
      'Will this winter be warm?',
      'Floods & the <city>',
    ])
    const secret = present(entries[0])
    assert.ok(!JSON.stringify(secret).includes('Hidden'), 'a private expert is never named')
    const heat = present(entries[1])
    assert.equal(heat.updated, new Date(day(3) * 1000).toISOString())
    assert.match(present(heat.link[0])['@href'], new RegExp(`/directory/${org()}/spotlight/\\d+$`))
    assert.deepEqual(
      heat.author?.map((author) => author.name),
      ['Ada Okafor'],
    )
    assert.deepEqual(
      heat.category?.map((category) => category['@term']),
      ['Climate'],
    )
    assert.match(present(present(entries[2]).link[0])['@href'], /\/qanda\/\d+$/)
    assert.equal(new Set(entries.map((entry) => entry.id)).size, entries.length, 'ids are unique')

    // Every page names the feed for readers that discover it, and links it for people.
    const home = (await get(`/directory/${org()}/`)).body
    assert.match(home, /<link rel="alternate" type="application\/atom\+xml" [^>]*href="[^"]*\/feed\.atom">/)
    assert.match(home, /<a href="[^"]*\/feed\.atom">Feed of posts and answers<\/a>/)
  })

  test('?topic= keeps what is tagged with it, ?expert= what tags the expert or that it answered', async () => {
    const climate = atomOf((await get(feedUrl('?topic=Climate'))).body)
    assert.match(climate.title, /on Climate$/)
    assert.deepEqual(titles(climate.entries), ['Heat waves and older people', 'Will this winter be warm?'])
    const ada = await ctx.testDatabase.database.db
      .selectFrom('experts')
      .select('username')
      .where('org_id', '=', org())
      .where('firstname', '=', 'Ada')
      .executeTakeFirstOrThrow()
    const hers = atomOf((await get(feedUrl(`?expert=${ada.username}`))).body)
    assert.match(hers.title, /with Ada Okafor$/)
    assert.deepEqual(titles(hers.entries), ['Heat waves and older people', 'Will this winter be warm?'])
    const nothing = atomOf((await get(feedUrl('?topic=Volcanoes'))).body)
    assert.deepEqual(nothing.entries, [], 'a topic nobody wrote on is an empty feed')
  })

  test('an ETag of its bytes: an unchanged feed is a 304, a new post changes it', async () => {
    const first = await get(feedUrl())
    const etag = String(first.headers.etag)
    assert.equal((await get(feedUrl(), { 'if-none-match': etag })).statusCode, 304)
    assert.equal((await get(feedUrl())).body, first.body, 'the same items give the same bytes')
    const head = await ctx.inject({ method: 'HEAD', url: feedUrl() })
    assert.equal(head.statusCode, 200)
    await importDocument(ctx, org(), {
      spotlights: [
        { key: 'new', title: 'Drought ahead', html: '<p>Dry.</p>', published: 1, published_date: day(5) },
      ],
    })
    const after = await get(feedUrl(), { 'if-none-match': etag })
    assert.equal(after.statusCode, 200)
    assert.equal(titles(atomOf(after.body).entries)[0], 'Drought ahead')
  })

  test('a bad address is a 400 page, an unknown or private expert a 404, another method a 405', async () => {
    for (const query of [
      '?expert=Not%20A%20Name',
      `?topic=${'x'.repeat(101)}`,
      '?topic=a&topic=b',
      '?topic=a&expert=b',
    ]) {
      const response = await get(feedUrl(query))
      assert.equal(response.statusCode, 400, `${query}: ${response.body.slice(0, 200)}`)
    }
    assert.equal((await get(feedUrl('?expert=nobody-here'))).statusCode, 404)
    const hidden = await ctx.testDatabase.database.db
      .selectFrom('experts')
      .select('username')
      .where('org_id', '=', org())
      .where('firstname', '=', 'Hidden')
      .executeTakeFirstOrThrow()
    assert.equal((await get(feedUrl(`?expert=${hidden.username}`))).statusCode, 404)
    assert.equal((await ctx.inject({ method: 'POST', url: feedUrl() })).statusCode, 405)
    assert.equal((await get('/directory/999999/feed.atom')).statusCode, 404)
  })
})
