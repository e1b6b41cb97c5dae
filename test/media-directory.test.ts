import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { unzipSync } from 'fflate'
import { parse } from 'node-html-parser'
import ical, { type VEvent } from 'node-ical'
import { present } from './helpers/checked.js'
import { importDocument } from './helpers/content.js'
import { describeEachDialect, type TestContext } from './helpers/harness.js'
import { testImage } from './helpers/images.js'

/** The events of an ICS text, as an independent parser reads them. */
const eventsOf = (text: string): VEvent[] =>
  Object.values(ical.sync.parseICS(text)).flatMap((item) => (item?.type === 'VEVENT' ? [item] : []))

/** A property's text: node-ical gives a value with parameters as `{params, val}`. */
const textOf = (value: unknown): string =>
  typeof value === 'object' && value !== null && 'val' in value ? String(value.val) : String(value ?? '')

/**
 * The media desk on the public directory (CONTRACT §22, §18): the expert page's "Media availability",
 * the search filter and its count, the widget's JSON, the ICS calendars read back by an independent
 * parser (`node-ical`), and the media kit page and its ZIP.
 */
describeEachDialect('media desk pages', (ctx: TestContext) => {
  const org = () => ctx.tenant.orgId
  const root = () => `/directory/${org()}`
  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx.inject({ method: 'GET', url, headers })
  const inHours = (hours: number) => Math.floor(ctx.clock.now() / 1000) + hours * 3600
  const until = () => inHours(48)
  const usernames = new Map<string, string>()
  const user = (key: string) => present(usernames.get(key), key)

  const expert = (key: string, firstname: string, fields: Record<string, unknown>) => ({
    key,
    firstname,
    lastname: 'Reyes',
    job_title: 'Seismologist',
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
      experts: [
        expert('ana', 'Ana', {
          media_available: 1,
          media_available_until: until(),
          interview_languages: ['es', 'fr-CA'],
          remote_ready: 1,
          studio_ready: 1,
          time_zone: 'America/Mexico_City',
          pronunciation: 'AH-nah RAY-es',
          pronouns: 'she/her',
          sections: {
            tagline: [{ tagline: 'Earthquakes, explained' }],
            biography: [{ biography: '<p>Ana studies faults.</p><p>She leads the <em>quake</em> lab.</p>' }],
            mediaappearance: [
              {
                title: 'Why the ground shook',
                organization: 'Radio Uno',
                type: 'radio',
                url: 'https://radio.example/shook',
                date: 1_767_225_600,
              },
            ],
          },
        }),
        expert('bea', 'Bea', { media_available: 1, interview_languages: ['en'] }),
        expert('cruz', 'Cruz', {}),
        expert('hidden', 'Hidden', { media_available: 1, is_published: 0 }),
        expert('private', 'Priv', { media_available: 1, is_private: 1 }),
      ],
    })
    const found = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${org()}/expert?access=all&page_size=20`,
      headers: ctx.tenant.auth,
    })
    const listed: { username: string; firstname: string }[] = found.json().data.experts
    for (const one of listed) usernames.set(one.firstname.toLowerCase(), one.username)
    await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${ctx.other.orgId}`,
      headers: ctx.other.auth,
      payload: { public_directory: 1 },
    })
    const photo = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${org()}/expert/${user('ana')}/avatar`,
      headers: { ...ctx.tenant.auth, 'content-type': 'image/jpeg' },
      payload: await testImage('jpeg', 900, 600),
    })
    assert.equal(photo.statusCode, 200, photo.body)
  })

  test('the expert page shows the media availability: until when, languages by name, how, the local zone', async () => {
    const response = await get(`${root()}/${user('ana')}`)
    assert.equal(response.statusCode, 200)
    const page = parse(response.body)
    const block = page.querySelector('section.media-availability')
    assert.ok(block, 'the page has the block')
    assert.equal(block.querySelector('h2')?.textContent, 'Media availability')
    const text = block.textContent.replace(/\s+/g, ' ')
    assert.match(text, /Available for media interviews until/)
    assert.equal(
      block.querySelector('time')?.getAttribute('datetime'),
      new Date(until() * 1000).toISOString(),
    )
    assert.match(text, /Spanish, Canadian French|Spanish, French \(Canada\)/)
    assert.match(text, /Remote interviews \(video or phone\); Studio interviews/)
    assert.match(text, /Central Time.*\(America\/Mexico_City\)|America\/Mexico_City/)
    const links = block.querySelectorAll('a').map((a) => a.getAttribute('href') ?? '')
    assert.ok(links.some((href) => href.endsWith(`/${user('ana')}/media-kit`)))
    assert.ok(links.some((href) => href.endsWith(`/${user('ana')}/calendar.ics`)))

    const unavailable = parse((await get(`${root()}/${user('cruz')}`)).body)
    assert.equal(unavailable.querySelector('section.media-availability'), null)
    assert.ok(unavailable.querySelector('p.media-kit-link a'), 'a media kit link still')
  })

  test('the search page filters by availability, with its count, and marks the available experts', async () => {
    const all = parse((await get(`${root()}/`)).body)
    const facet = all
      .querySelectorAll('nav.facets a')
      .find((a) => a.textContent.startsWith('Available for media'))
    assert.ok(facet, 'the filter is offered')
    assert.match(facet.textContent, /\(2\)/)
    assert.equal(all.querySelectorAll('.media-badge').length, 2)

    const href = new URL(facet.getAttribute('href') ?? '', 'http://x')
    const filtered = parse((await get(`${root()}/${href.search}`)).body)
    const names = filtered.querySelectorAll('.expert-card h3').map((h) => h.textContent.trim())
    assert.deepEqual(names.sort(), ['Ana Reyes', 'Bea Reyes'])

    const french = parse((await get(`${root()}/?interview_languages=fr`)).body)
    assert.deepEqual(
      french.querySelectorAll('.expert-card h3').map((h) => h.textContent.trim()),
      ['Ana Reyes'],
    )
  })

  test("the widget's JSON takes the filter and says who is available", async () => {
    const response = await get(`${root()}/api/experts?media_available=1`)
    assert.equal(response.statusCode, 200, response.body)
    const data: { experts: { username: string; media_available: number }[]; total: number } =
      response.json().data
    assert.equal(data.total, 2)
    assert.ok(data.experts.every((listed) => listed.media_available === 1))
  })

  test("an expert's calendar: the availability window and the appearances, parsed back, with an ETag", async () => {
    const url = `${root()}/${user('ana')}/calendar.ics`
    const response = await get(url)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.headers['content-type'], 'text/calendar; charset=utf-8')
    const etag = String(response.headers.etag)
    assert.match(etag, /^"/)
    assert.equal((await get(url, { 'if-none-match': etag })).statusCode, 304)
    assert.equal((await get(url)).body, response.body, 'the same data gives the same bytes')

    const events = eventsOf(response.body)
    assert.equal(events.length, 2)
    const window = events.find((event) => textOf(event.summary).includes('available'))
    assert.ok(window)
    assert.equal(textOf(window.summary), 'Ana Reyes: available for media')
    assert.equal(window.end?.getTime(), until() * 1000)
    assert.ok(window.start.getTime() <= ctx.clock.now())
    assert.match(String(window.description), /Interview languages: Spanish/)
    const appearance = events.find((event) => textOf(event.summary).includes('Radio Uno'))
    assert.ok(appearance)
    assert.equal(textOf(appearance.summary), 'Ana Reyes: Why the ground shook, Radio Uno')
    assert.equal(appearance.datetype, 'date')
    assert.equal(appearance.start.toISOString().slice(0, 10), '2026-01-01')
    assert.equal(textOf(appearance.url), 'https://radio.example/shook')

    // A change to the profile changes the calendar and its ETag.
    const changed = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${org()}/expert/${user('ana')}`,
      headers: ctx.tenant.auth,
      payload: { media_available_until: inHours(72) },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    const after = await get(url, { 'if-none-match': etag })
    assert.equal(after.statusCode, 200)
    assert.notEqual(after.headers.etag, etag)
  })

  test("the organization's calendar lists the public available experts only; an open window repeats daily", async () => {
    const response = await get(`${root()}/calendar.ics`)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.headers['content-type'], 'text/calendar; charset=utf-8')
    const events = eventsOf(response.body)
    assert.deepEqual(events.map((event) => textOf(event.summary)).sort(), [
      'Ana Reyes: available for media',
      'Bea Reyes: available for media',
    ])
    const open = events.find((event) => textOf(event.summary).startsWith('Bea'))
    assert.equal(open?.datetype, 'date')
    assert.match(String(open?.rrule?.toString()), /FREQ=DAILY/)

    const other = await get(`/directory/${ctx.other.orgId}/calendar.ics`)
    assert.equal(other.statusCode, 200)
    assert.equal(eventsOf(other.body).length, 0)
    for (const hidden of ['hidden', 'priv'])
      assert.equal((await get(`${root()}/${user(hidden)}/calendar.ics`)).statusCode, 404)
    assert.equal((await get(`/directory/${ctx.other.orgId}/${user('ana')}/calendar.ics`)).statusCode, 404)
  })

  test('the media kit page: the print photo, pronunciation, pronouns and both biographies', async () => {
    const response = await get(`${root()}/${user('ana')}/media-kit`)
    assert.equal(response.statusCode, 200, response.body)
    const page = parse(response.body)
    assert.equal(page.querySelector('h1')?.textContent, 'Media kit: Ana Reyes')
    const text = page.textContent.replace(/\s+/g, ' ')
    assert.match(text, /Pronunciation\s*AH-nah RAY-es/)
    assert.match(text, /Pronouns\s*she\/her/)
    assert.match(text, /Short biography Earthquakes, explained/)
    assert.match(text, /Ana studies faults/)
    const photo = page.querySelectorAll('a').find((a) => a.textContent.startsWith('Photo in print size'))
    assert.ok(photo, 'the print photo is linked')
    assert.match(photo.textContent, /900 × 600 pixels/)
    const download = page.querySelector('a[download]')
    assert.ok(download?.getAttribute('href')?.endsWith(`/${user('ana')}/media-kit.zip`))
    assert.equal((await get(`${root()}/${user('hidden')}/media-kit`)).statusCode, 404)
  })

  test('the media kit download: a ZIP with the photo in its largest size and the biographies in Markdown', async () => {
    const response = await get(`${root()}/${user('ana')}/media-kit.zip`)
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'application/zip')
    assert.match(String(response.headers['content-disposition']), /attachment; filename=".+-media-kit\.zip"/)
    const files = unzipSync(new Uint8Array(response.rawPayload))
    const markdown = Buffer.from(present(files[`${user('ana')}.md`], 'the text file')).toString('utf8')
    assert.match(markdown, /^# Ana Reyes\n/)
    assert.match(markdown, /- Pronunciation: AH-nah RAY-es/)
    assert.match(markdown, /## Short biography\n\nEarthquakes, explained/)
    assert.match(markdown, /## Biography\n\nAna studies faults\.\n\nShe leads the quake lab\./)
    const photo = present(files[`${user('ana')}.jpg`], 'the photo')
    // The original as stored: what /media serves as JPEG for the profile's largest rendition.
    const profile = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${org()}/expert/${user('ana')}`,
      headers: ctx.tenant.auth,
    })
    const original = new URL(profile.json().data.avatar.o.url)
    const served = await get(original.pathname, { accept: 'image/jpeg' })
    assert.equal(served.statusCode, 200)
    assert.deepEqual(Buffer.from(photo), served.rawPayload)
  })
})
