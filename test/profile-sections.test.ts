import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { components } from '../packages/client/src/schema.js'
import { PROFILE_KEYS, readProfile } from '../src/profiles/read.js'
import { SECTION_FIELDS, STORED_SECTIONS, type StoredSection } from '../src/profiles/section-fields.js'
import { api, expectOk } from './helpers/api.js'
import { type JsonRecord as Element, present, records } from './helpers/checked.js'
import { exampleFile, importDocument, queryCounter } from './helpers/content.js'
import { describeEachDialect, type Tenant } from './helpers/harness.js'

const SINGLE = ['biography', 'tagline', 'availability', 'fee', 'social', 'seo', 'cv']

/** What the read must serve for an imported element: `id`, every field, unset ones null, no `key`. */
function expected(section: StoredSection, element: Element, id: unknown): Element {
  const out: Element = { id }
  for (const field of Object.keys(SECTION_FIELDS[section])) {
    out[field] = element[field] ?? null
  }
  return out
}

describeEachDialect('profile sections', (ctx) => {
  const file = exampleFile()
  const full = present(file.experts[0], 'the example file has an expert')
  let profile: components['schemas']['Profile']
  const readExpert = (tenant: Tenant, username: string) =>
    api(ctx.app, tenant).get('/v2/organization/{corporation}/expert/{username}', {
      params: { corporation: tenant.orgId, username },
    })

  test('a fully imported expert has all 46 keys and none of them empty', async () => {
    const result = await importDocument(ctx, ctx.tenant.orgId, file)
    assert.deepEqual(result.experts, { created: 2, updated: 0, unchanged: 0 })
    profile = expectOk(await readExpert(ctx.tenant, 'amara-nwosu'))
    assert.deepEqual(Object.keys(profile).sort(), [...PROFILE_KEYS].sort())
    const empty = PROFILE_KEYS.filter((key) => {
      const value = profile[key]
      return Array.isArray(value) && value.length === 0
    })
    assert.deepEqual(empty, [])
  })

  test('every stored section round-trips from the import file with its exact element shape', () => {
    const sections = full.sections
    for (const section of STORED_SECTIONS) {
      const given = sections[section]
      assert.ok(given, `the example fills ${section}`)
      const input = records(SINGLE.includes(section) && !Array.isArray(given) ? [given] : given, section)
      const served: readonly Element[] = profile[section]
      assert.equal(served.length, input.length, section)
      served.forEach((element, i) => {
        assert.equal(typeof element.id, 'number', `${section} id`)
        const want = expected(section, present(input[i], `${section}[${i}]`), element.id)
        if (section === 'tag') {
          assert.equal(typeof element.content_tag_id, 'number')
          want.content_tag_id = element.content_tag_id
        }
        assert.deepEqual(element, want, section)
      })
    }
  })

  test('sections keep their literal shapes: fee, tag, cv, accomplishment and the avatar', () => {
    const [fee] = profile.fee
    assert.deepEqual(fee, { id: fee?.id, fee_min: 2500, fee_max: 7500, currency: 'CAD' })
    const tags = profile.tag
    assert.deepEqual(
      tags.map(({ tag }) => tag),
      ['Climate', 'Extreme weather'],
    )
    assert.deepEqual(Object.keys(tags[0] ?? {}), ['id', 'content_tag_id', 'tag'])
    assert.deepEqual(profile.cv[0], {
      id: profile.cv[0]?.id,
      url: 'https://experts.northlake.example/amara-nwosu/cv',
      document_url: 'https://cdn.northlake.example/cv/nwosu.pdf',
    })
    const [award] = profile.accomplishment
    assert.deepEqual(award, {
      id: award?.id,
      title: 'NSERC Early Career Award',
      description: 'For work on monsoon prediction.',
      type: 71,
      start: 1609459200,
      end: 1640995200,
    })
    assert.deepEqual(profile.avatar, full.sections.avatar)
  })

  test('audios_all, videos_all and documents_all are derived with a source', () => {
    const sourced = (key: 'audios_all' | 'videos_all' | 'documents_all') =>
      profile[key].map((element) => element.source)
    assert.deepEqual(sourced('audios_all'), ['audio', 'podchaser'])
    assert.deepEqual(sourced('videos_all'), ['video', 'youtube', 'vimeo'])
    assert.deepEqual(sourced('documents_all'), ['document', 'cv', 'slideshare'])
    const [audio] = profile.audio
    assert.deepEqual(profile.audios_all[0], { ...audio, source: 'audio' })
    const [cv] = profile.cv
    assert.deepEqual(profile.documents_all[1], { ...cv, source: 'cv' })
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
    const posts = profile.spotlight
    assert.equal(posts.length, 1, 'the draft post is not listed')
    assert.deepEqual(posts[0], {
      id: posts[0]?.id,
      title: 'Why heat waves are getting longer',
      published_date: 1717200000,
      featured_image: 'https://cdn.northlake.example/posts/heat.jpg',
    })
    const questions = profile.qanda
    assert.deepEqual(questions, [
      {
        id: questions[0]?.id,
        question: 'Will flood insurance get more expensive?',
        published_date: 1719792000,
      },
    ])
  })

  test('an expert with few sections serves the others as empty arrays and four empty avatar renditions', async () => {
    const data = expectOk(await readExpert(ctx.tenant, 'daniel-okonkwo-reyes'))
    assert.deepEqual(data.avatar, { s: {}, m: {}, o: {}, l: {} })
    assert.deepEqual(data.article, [])
    assert.deepEqual(data.qanda, [])
    assert.equal(data.spotlight.length, 1)
    assert.deepEqual(data.account[0]?.location_state, 'ON')
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
    expectOk(
      await api(ctx.app, ctx.other).delete('/v2/organization/{corporation}/expert/{username}', {
        params: { corporation: ctx.other.orgId, username: expert.username },
      }),
    )
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
