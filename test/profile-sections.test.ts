import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROFILE_KEYS, readProfile } from '../src/profiles/read.js'
import { SECTION_FIELDS, STORED_SECTIONS } from '../src/profiles/section-fields.js'
import { exampleFile, importDocument, queryCounter } from './helpers/content.js'
import { describeEachDialect, envelope } from './helpers/harness.js'

type Element = Record<string, unknown>

const SINGLE = ['biography', 'tagline', 'availability', 'fee', 'social', 'seo', 'cv']

/** What the read must serve for an imported element: `id`, every field, unset ones null, no `key`. */
function expected(section: string, element: Element, id: unknown): Element {
  const out: Element = { id }
  for (const field of Object.keys(SECTION_FIELDS[section as keyof typeof SECTION_FIELDS])) {
    out[field] = element[field] ?? null
  }
  return out
}

describeEachDialect('profile sections', (ctx) => {
  const file = exampleFile()
  const full = file.experts[0] as (typeof file.experts)[number]
  let profile: Record<string, unknown>

  test('a fully imported expert has all 46 keys and none of them empty', async () => {
    const result = await importDocument(ctx, ctx.tenant.orgId, file)
    assert.deepEqual(result.experts, { created: 2, updated: 0, unchanged: 0 })
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/amara-nwosu`,
      headers: ctx.tenant.auth,
    })
    assert.equal(response.statusCode, 200)
    const body = envelope(response)
    assert.equal(body.success, true)
    profile = body.data as Record<string, unknown>
    assert.deepEqual(Object.keys(profile).sort(), [...PROFILE_KEYS].sort())
    const empty = PROFILE_KEYS.filter(
      (key) => Array.isArray(profile[key]) && (profile[key] as unknown[]).length === 0,
    )
    assert.deepEqual(empty, [])
  })

  test('every stored section round-trips from the import file with its exact element shape', () => {
    const sections = full.sections
    for (const section of STORED_SECTIONS) {
      const given = sections[section]
      assert.ok(given, `the example fills ${section}`)
      const input = (SINGLE.includes(section) && !Array.isArray(given) ? [given] : given) as Element[]
      const served = profile[section] as Element[]
      assert.equal(served.length, input.length, section)
      served.forEach((element, i) => {
        assert.equal(typeof element.id, 'number', `${section} id`)
        const want = expected(section, input[i] as Element, element.id)
        if (section === 'tag') {
          assert.equal(typeof element.content_tag_id, 'number')
          want.content_tag_id = element.content_tag_id
        }
        assert.deepEqual(element, want, section)
      })
    }
  })

  test('sections keep their literal shapes: fee, tag, cv, accomplishment and the avatar', () => {
    const [fee] = profile.fee as Element[]
    assert.deepEqual(fee, { id: fee?.id, fee_min: 2500, fee_max: 7500, currency: 'CAD' })
    const tags = profile.tag as Element[]
    assert.deepEqual(
      tags.map(({ tag }) => tag),
      ['Climate', 'Extreme weather'],
    )
    assert.deepEqual(Object.keys(tags[0] ?? {}), ['id', 'content_tag_id', 'tag'])
    assert.deepEqual((profile.cv as Element[])[0], {
      id: (profile.cv as Element[])[0]?.id,
      url: 'https://experts.northlake.example/amara-nwosu/cv',
      document_url: 'https://cdn.northlake.example/cv/nwosu.pdf',
    })
    const [award] = profile.accomplishment as Element[]
    assert.deepEqual(award, {
      id: award?.id,
      title: 'NSERC Early Career Award',
      description: 'For work on monsoon prediction.',
      type: 71,
      start: 1609459200,
      end: 1640995200,
    })
    assert.deepEqual(profile.avatar, (full.sections as Record<string, unknown>).avatar)
  })

  test('audios_all, videos_all and documents_all are derived with a source', () => {
    const sourced = (key: string) => (profile[key] as Element[]).map((element) => element.source)
    assert.deepEqual(sourced('audios_all'), ['audio', 'podchaser'])
    assert.deepEqual(sourced('videos_all'), ['video', 'youtube', 'vimeo'])
    assert.deepEqual(sourced('documents_all'), ['document', 'cv', 'slideshare'])
    const [audio] = profile.audio as Element[]
    assert.deepEqual((profile.audios_all as Element[])[0], { ...audio, source: 'audio' })
    const [cv] = profile.cv as Element[]
    assert.deepEqual((profile.documents_all as Element[])[1], { ...cv, source: 'cv' })
  })

  test('corporationprofile and corporationsocial come from the organization', () => {
    const org = file.organization
    assert.deepEqual(profile.corporationprofile, [
      {
        id: ctx.tenant.orgId,
        name: 'Main University',
        description: org.description,
        website: org.website,
        location_city: 'Toronto',
        location_state: 'ON',
        location_country: 'CA',
        location_postal: org.location_postal,
        location_address: org.location_address,
        location_building: null,
        location_room: null,
      },
    ])
    assert.deepEqual(profile.corporationsocial, [
      {
        id: ctx.tenant.orgId,
        twitter: org.twitter,
        facebook: org.facebook,
        linkedin: org.linkedin,
        instagram: org.instagram,
        youtube: org.youtube,
      },
    ])
  })

  test('spotlight and qanda list the published posts tagging the expert and the questions answered', () => {
    const posts = profile.spotlight as Element[]
    assert.equal(posts.length, 1, 'the draft post is not listed')
    assert.deepEqual(posts[0], {
      id: posts[0]?.id,
      title: 'Why heat waves are getting longer',
      published_date: 1717200000,
      featured_image: 'https://cdn.northlake.example/posts/heat.jpg',
    })
    const questions = profile.qanda as Element[]
    assert.deepEqual(questions, [
      {
        id: questions[0]?.id,
        question: 'Will flood insurance get more expensive?',
        published_date: 1719792000,
      },
    ])
  })

  test('an expert with few sections serves the others as empty arrays and four empty avatar renditions', async () => {
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/daniel-okonkwo-reyes`,
      headers: ctx.tenant.auth,
    })
    assert.equal(response.statusCode, 200)
    const data = envelope(response).data as Record<string, unknown>
    assert.deepEqual(data.avatar, { s: {}, m: {}, o: {}, l: {} })
    assert.deepEqual(data.article, [])
    assert.deepEqual(data.qanda, [])
    assert.equal((data.spotlight as Element[]).length, 1)
    assert.deepEqual((data.account as Element[])[0]?.location_state, 'ON')
  })

  test('a profile read costs four queries however many sections are filled', async () => {
    const counter = queryCounter()
    const db = ctx.testDatabase.database.db.withPlugin(counter)
    const filled = await readProfile(db, ctx.tenant.orgId, 'amara-nwosu', 'expert', 'all')
    const fullCount = counter.count
    counter.count = 0
    await readProfile(db, ctx.tenant.orgId, 'daniel-okonkwo-reyes', 'expert', 'all')
    const sparseCount = counter.count
    assert.equal(Object.keys(filled).length, 46)
    assert.equal(fullCount, 4)
    assert.equal(sparseCount, fullCount)
  })

  test('deleting an expert removes its sections and its place in posts and answers', async () => {
    await importDocument(ctx, ctx.other.orgId, file)
    const { db } = ctx.testDatabase.database
    const expert = await db
      .selectFrom('experts')
      .select(['id', 'username'])
      .where('org_id', '=', ctx.other.orgId)
      .where('email_key', '=', full.email)
      .executeTakeFirstOrThrow()
    const before = await db.selectFrom('answers').select('id').where('expert_id', '=', expert.id).execute()
    assert.equal(before.length, 1)
    const response = await ctx.inject({
      method: 'DELETE',
      url: `/v2/organization/${ctx.other.orgId}/expert/${expert.username}`,
      headers: ctx.other.auth,
    })
    assert.equal(response.statusCode, 200)
    const left = await db
      .selectFrom('profile_items')
      .select('id')
      .where('expert_id', '=', expert.id)
      .execute()
    assert.deepEqual(left, [])
    const tagged = await db
      .selectFrom('spotlight_experts')
      .select('spotlight_id')
      .where('expert_id', '=', expert.id)
      .execute()
    assert.deepEqual(tagged, [])
    const answers = await db.selectFrom('answers').select('id').where('expert_id', '=', expert.id).execute()
    assert.deepEqual(answers, [])
  })
})
