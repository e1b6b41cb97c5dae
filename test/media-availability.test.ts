import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import { createClient } from '../src/auth/clients.js'
import { endPastMediaAvailability } from '../src/experts/media-expiry.js'
import {
  createExpert,
  describeEachDialect,
  detailsOf,
  envelope,
  expertBody,
  type TestContext,
} from './helpers/harness.js'
import { scopedToken } from './helpers/oauth.js'

/**
 * Media availability on the expert's account (CONTRACT §22): the fields through the account's write
 * path, their checks, the public read, the `media_available=1` and `interview_languages` search filters
 * with their counts, and the end of a window as a write.
 */
describeEachDialect('media availability', (ctx: TestContext) => {
  let publicAuth: Record<string, string>
  const org = () => ctx.tenant.orgId
  const nowSeconds = () => Math.floor(ctx.clock.now() / 1000)
  const expertUrl = (username: string) => `/v2/organization/${org()}/expert/${username}`
  const put = (username: string, payload: Record<string, unknown>) =>
    ctx.inject({ method: 'PUT', url: expertUrl(username), headers: ctx.tenant.auth, payload })
  const account = async (username: string, headers = ctx.tenant.auth) => {
    const response = await ctx.inject({ method: 'GET', url: expertUrl(username), headers })
    assert.equal(response.statusCode, 200, response.body)
    return response.json().data.account[0]
  }
  const search = async (query: string, headers = ctx.tenant.auth, orgId = org()) => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${orgId}/expert?${query}`,
      headers,
    })
    assert.equal(response.statusCode, 200, response.body)
    const data: {
      experts: { username: string }[]
      total: number
      aggregations: Record<string, { key: string; count: number }[]>
    } = response.json().data
    return data
  }
  const published = { is_published: 1 }

  before(async () => {
    const website = await createClient(ctx.testDatabase.database.db, org(), 'website', ctx.clock.now(), [
      'read:public',
    ])
    publicAuth = { authorization: `Bearer ${await scopedToken(ctx.app, website)}` }
  })

  test('a new expert is not available, speaks no interview language and has no time zone', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const read = await account(username)
    assert.equal(read.media_available, 0)
    assert.equal(read.media_available_until, null)
    assert.deepEqual(read.interview_languages, [])
    assert.equal(read.remote_ready, 0)
    assert.equal(read.studio_ready, 0)
    assert.equal(read.time_zone, null)
    assert.equal(read.pronunciation, null)
    assert.equal(read.pronouns, null)
  })

  test('create and update store availability with canonical tags and zone names', async () => {
    const until = nowSeconds() + 86_400
    const username = await createExpert(ctx, ctx.tenant, {
      media_available: 1,
      media_available_until: until,
      interview_languages: ['EN-us', 'fr-ca', 'en-US'],
      remote_ready: 1,
      time_zone: 'europe/paris',
      pronunciation: 'GRACE HOP-er',
      pronouns: 'she/her',
    })
    const read = await account(username)
    assert.equal(read.media_available, 1)
    assert.equal(read.media_available_until, until)
    assert.deepEqual(read.interview_languages, ['en-US', 'fr-CA'])
    assert.equal(read.remote_ready, 1)
    assert.equal(read.studio_ready, 0)
    assert.equal(read.time_zone, 'Europe/Paris')
    assert.equal(read.pronunciation, 'GRACE HOP-er')
    assert.equal(read.pronouns, 'she/her')

    const changed = await put(username, { studio_ready: 1, time_zone: 'US/Eastern', interview_languages: [] })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.equal(changed.json().data.updated, true)
    const after = await account(username)
    assert.equal(after.studio_ready, 1)
    assert.equal(after.time_zone, 'America/New_York')
    assert.deepEqual(after.interview_languages, [])

    const same = await put(username, { time_zone: 'America/New_York', media_available: 1 })
    assert.equal(same.json().data.updated, false)

    const cleared = await put(username, { media_available_until: null, time_zone: '', pronouns: '' })
    assert.equal(cleared.json().data.updated, true)
    const open = await account(username)
    assert.equal(open.media_available_until, null)
    assert.equal(open.time_zone, null)
    assert.equal(open.pronouns, null)
  })

  test('a bad tag, zone, flag or end is a 400 naming the field, and nothing is written', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const cases: [Record<string, unknown>, string][] = [
      [{ interview_languages: ['english!'] }, 'interview_languages.0'],
      [{ interview_languages: ['en', 'x'] }, 'interview_languages.1'],
      [{ interview_languages: 'en' }, 'interview_languages'],
      [{ time_zone: 'Mars/Olympus_Mons' }, 'time_zone'],
      [{ time_zone: '+01:00' }, 'time_zone'],
      [{ media_available: 2 }, 'media_available'],
      [{ remote_ready: 'yes' }, 'remote_ready'],
      [{ media_available_until: 1_767_225_600_000 }, 'media_available_until'],
      [{ media_available: 1, media_available_until: nowSeconds() - 60 }, 'media_available_until'],
      [{ pronouns: 'x'.repeat(65) }, 'pronouns'],
    ]
    for (const [payload, field] of cases) {
      const response = await put(username, payload)
      assert.ok(detailsOf(response)[field], `${JSON.stringify(payload)}: ${response.body}`)
    }
    const created = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${org()}/expert`,
      headers: ctx.tenant.auth,
      payload: expertBody({ time_zone: 'Nowhere/Town' }),
    })
    assert.ok(detailsOf(created).time_zone)
    const read = await account(username)
    assert.equal(read.media_available, 0)
    assert.deepEqual(read.interview_languages, [])
  })

  test('read:public sees the availability, languages, zone, pronunciation and pronouns', async () => {
    const username = await createExpert(ctx, ctx.tenant, {
      media_available: 1,
      interview_languages: ['de'],
      time_zone: 'Europe/Berlin',
      pronouns: 'he/him',
    })
    await put(username, published)
    const read = await account(username, publicAuth)
    assert.equal(read.media_available, 1)
    assert.deepEqual(read.interview_languages, ['de'])
    assert.equal(read.time_zone, 'Europe/Berlin')
    assert.equal(read.pronouns, 'he/him')
  })

  test('media_available=1 finds the available experts; interview_languages finds a language and its regions', async () => {
    const tenant = await ctx.addTenant('Media Search University')
    const create = (overrides: Record<string, unknown>) => createExpert(ctx, tenant, overrides)
    const available = await create({ lastname: 'Able', media_available: 1, interview_languages: ['fr-CA'] })
    const french = await create({ lastname: 'Baker', interview_languages: ['fr'] })
    const spanish = await create({ lastname: 'Cole', media_available: 1, interview_languages: ['es'] })
    await create({ lastname: 'Dunn' })
    const names = (result: { experts: { username: string }[] }) =>
      result.experts.map((expert) => expert.username).sort()

    const onlyAvailable = await search('media_available=1', tenant.auth, tenant.orgId)
    assert.deepEqual(names(onlyAvailable), [available, spanish].sort())
    assert.equal(onlyAvailable.total, 2)
    // The facet's own count ignores its filter; the other facets follow it.
    assert.deepEqual(onlyAvailable.aggregations.media_available, [{ key: '1', count: 2 }])
    assert.deepEqual(onlyAvailable.aggregations.interview_languages?.map((bucket) => bucket.key).sort(), [
      'es',
      'fr',
      'fr-CA',
    ])
    const everyone = await search('', tenant.auth, tenant.orgId)
    assert.deepEqual(everyone.aggregations.media_available, [{ key: '1', count: 2 }])
    assert.deepEqual(
      everyone.aggregations.interview_languages?.find((bucket) => bucket.key === 'fr'),
      { key: 'fr', count: 2 },
    )

    const speakFrench = await search('interview_languages=FR', tenant.auth, tenant.orgId)
    assert.deepEqual(names(speakFrench), [available, french].sort())
    const canadianFrench = await search('interview_languages=fr-ca', tenant.auth, tenant.orgId)
    assert.deepEqual(names(canadianFrench), [available])
    const both = await search('interview_languages=fr&media_available=1', tenant.auth, tenant.orgId)
    assert.deepEqual(names(both), [available])
    assert.deepEqual(both.aggregations.media_available, [{ key: '1', count: 1 }])

    for (const query of ['media_available=0', 'media_available=yes', 'interview_languages=not!a!tag']) {
      const response = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${tenant.orgId}/expert?${query}`,
        headers: tenant.auth,
      })
      const name = query.split('=')[0] ?? ''
      assert.ok(
        Object.keys(detailsOf(response)).some((field) => field.split('.')[0] === name),
        response.body,
      )
    }

    // Another organization's experts never count.
    const other = await search('media_available=1', ctx.other.auth, ctx.other.orgId)
    assert.equal(other.total, 0)
    assert.deepEqual(other.aggregations.media_available, [])
  })

  test('once the end has passed, the expiry pass makes the expert unavailable, as a write', async () => {
    const tenant = await ctx.addTenant('Expiry University')
    const until = nowSeconds() + 3600
    const username = await createExpert(ctx, tenant, { media_available: 1, media_available_until: until })
    const later = await createExpert(ctx, tenant, {
      media_available: 1,
      media_available_until: until + 86_400,
    })
    const read = async () => {
      const response = await ctx.inject({
        method: 'GET',
        url: `/v2/organization/${tenant.orgId}/expert/${username}`,
        headers: tenant.auth,
      })
      return { account: response.json().data.account[0], etag: response.headers.etag }
    }
    const before = await read()
    const availableBefore = await search('media_available=1', tenant.auth, tenant.orgId)
    assert.equal(availableBefore.total, 2)

    const { db } = ctx.testDatabase.database
    assert.equal(await endPastMediaAvailability(db, (until - 1) * 1000), 0)
    assert.equal(await endPastMediaAvailability(db, until * 1000), 1)
    // Closed once: a second pass (another process) finds nothing to do.
    assert.equal(await endPastMediaAvailability(db, until * 1000), 0)

    const after = await read()
    assert.equal(after.account.media_available, 0)
    assert.equal(after.account.media_available_until, until, 'the end of the last window stays')
    assert.notEqual(after.etag, before.etag)
    const availableAfter = await search('media_available=1', tenant.auth, tenant.orgId)
    assert.deepEqual(
      availableAfter.experts.map((expert) => expert.username),
      [later],
    )
    const audit = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${tenant.orgId}/audit`,
      headers: tenant.auth,
    })
    const entries: { summary: string; record: { id: string | null }; actor: { kind: string } }[] =
      audit.json().data.entries
    assert.ok(
      entries.some(
        (entry) =>
          entry.summary === 'The media availability of Grace Hopper ended' &&
          entry.record.id === username &&
          entry.actor.kind === 'system',
      ),
      audit.body,
    )
  })

  test('an unrelated change never fails on a window the pass has yet to close', async () => {
    const until = nowSeconds() + 60
    const username = await createExpert(ctx, ctx.tenant, { media_available: 1, media_available_until: until })
    ctx.clock.advance(120_000)
    try {
      const response = await put(username, { job_title: 'Dean' })
      assert.equal(response.statusCode, 200, response.body)
      const renewed = await put(username, { media_available: 1 })
      assert.ok(detailsOf(renewed).media_available_until)
      const reopened = await put(username, { media_available_until: nowSeconds() + 3600 })
      assert.equal(reopened.statusCode, 200, reopened.body)
      assert.equal(envelope(reopened).success, true)
    } finally {
      ctx.clock.advance(-120_000)
    }
  })

  test('the CSV import maps the media fields: flags, a list of tags, unix seconds and a zone', async () => {
    const until = nowSeconds() + 7200
    const csv = [
      'key,firstname,lastname,job_title,email,company,media_available,media_available_until,interview_languages,studio_ready,time_zone,pronouns',
      `m-1,Ines,Okoro,Professor,ines.okoro@uni.example,Uni,1,${until},en; PT-br,1,asia/tokyo,she/her`,
    ].join('\n')
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${org()}/experts/import`,
      headers: ctx.tenant.auth,
      payload: { csv },
    })
    assert.equal(response.statusCode, 200, response.body)
    const found = await search('q=okoro')
    const username = found.experts[0]?.username ?? ''
    const read = await account(username)
    assert.equal(read.media_available, 1)
    assert.equal(read.media_available_until, until)
    assert.deepEqual(read.interview_languages, ['en', 'pt-BR'])
    assert.equal(read.studio_ready, 1)
    assert.equal(read.time_zone, 'Asia/Tokyo')
    assert.equal(read.pronouns, 'she/her')

    const bad = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${org()}/experts/import`,
      headers: ctx.tenant.auth,
      payload: {
        csv: csv.replace('asia/tokyo', 'Tokyo/Asia').replace('m-1', 'm-2').replace('ines.', 'ines2.'),
      },
    })
    assert.equal(bad.statusCode, 400, bad.body)
    assert.match(bad.body, /time_zone/)
  })
})
