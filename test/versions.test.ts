import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { createClient } from '../src/auth/clients.js'
import { api, expectError, expectOk } from './helpers/api.js'
import { importDocument } from './helpers/content.js'
import {
  createExpert,
  createStaff,
  describeEachDialect,
  requestToken,
  type Tenant,
  type TestContext,
} from './helpers/harness.js'
import { personToken } from './helpers/people.js'
import { seedCandidate } from './helpers/works.js'

/** Runs of the restore property per dialect. */
const PROPERTY_RUNS = 12

/** A token of the main organization holding only `scopes`. */
async function tokenWith(ctx: TestContext, scopes: ('read' | 'read:public' | 'write')[]): Promise<string> {
  const { db } = ctx.testDatabase.database
  const client = await createClient(db, ctx.tenant.orgId, `only ${scopes.join(' ')}`, ctx.clock.now(), scopes)
  return requestToken(ctx.app, client)
}

/**
 * Versions (CONTRACT §21): every change of a profile's account or section, a post or a Q&A item is
 * kept with who made it and the part as it was after it; a version's diff compares it with the one
 * before; a restore is a new change through the ordinary write, after which the record equals the version.
 */
describeEachDialect('versions: history, diff and restore of profiles, posts and Q&A items', (ctx) => {
  const caller = (tenant: Tenant = ctx.tenant) => api(ctx.app, tenant)
  const profile = (username: string, corporation = ctx.tenant.orgId) => ({
    params: { corporation, username },
  })
  const versionsOf = async (username: string) =>
    expectOk(
      await caller().get('/v2/organization/{corporation}/expert/{username}/versions', profile(username)),
    ).versions
  const versionOf = async (username: string, id: number) =>
    expectOk(
      await caller().get('/v2/organization/{corporation}/expert/{username}/versions/{id}', {
        params: { corporation: ctx.tenant.orgId, username, id },
      }),
    )
  const restore = (username: string, id: number, token: Tenant | string = ctx.tenant) =>
    api(ctx.app, token).post('/v2/organization/{corporation}/expert/{username}/versions/{id}/restore', {
      params: { corporation: ctx.tenant.orgId, username, id },
    })
  /** The account as read, less the schedule's times: a version keeps what was published, not what is scheduled. */
  const account = async (username: string) => {
    const read = expectOk(
      await caller().get('/v2/organization/{corporation}/expert/{username}', profile(username)),
    ).account[0]
    if (!read) return read
    const { publish_at: _publishAt, unpublish_at: _unpublishAt, ...kept } = read
    return kept
  }

  test('every change is listed newest first with its part, who and through what; pages follow the cursor', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const at = profile(username)
    expectOk(
      await caller().put('/v2/organization/{corporation}/expert/{username}', {
        ...at,
        body: { job_title: 'Hydrologist' },
      }),
    )
    const added = expectOk(
      await caller().post('/v2/organization/{corporation}/expert/{username}/education', {
        ...at,
        body: { institution: 'Delft', degree: 'MSc' },
      }),
    )
    expectOk(
      await caller().put('/v2/organization/{corporation}/expert/{username}/education/{id}', {
        params: { ...at.params, id: added.id },
        body: { degree: 'PhD' },
      }),
    )
    // A write that changes nothing keeps no version.
    expectOk(
      await caller().put('/v2/organization/{corporation}/expert/{username}', {
        ...at,
        body: { job_title: 'Hydrologist' },
      }),
    )

    const versions = await versionsOf(username)
    assert.deepEqual(
      versions.map((version) => version.part),
      ['education', 'education', 'account', 'account'],
    )
    assert.ok(versions.every((version, i) => i === 0 || (versions[i - 1]?.id ?? 0) > version.id))
    const [newest] = versions
    assert.equal(newest?.actor.kind, 'client')
    assert.equal(newest?.actor.id, ctx.tenant.client.client_id)
    assert.equal(newest?.actor.name, 'test')
    assert.equal(newest?.action, 'PUT /v2/organization/:corporation/expert/:username/education/:id')
    assert.equal(typeof newest?.created_at, 'number')

    const first = expectOk(
      await caller().get('/v2/organization/{corporation}/expert/{username}/versions', {
        ...at,
        query: { page_size: 3 },
      }),
    )
    assert.equal(first.versions.length, 3)
    assert.ok(first.next_cursor)
    const second = expectOk(
      await caller().get('/v2/organization/{corporation}/expert/{username}/versions', {
        ...at,
        query: { page_size: 3, cursor: first.next_cursor },
      }),
    )
    assert.deepEqual(
      [...first.versions, ...second.versions].map((version) => version.id),
      versions.map((version) => version.id),
    )
    assert.equal(second.next_cursor, null)
    const forged = await caller().get('/v2/organization/{corporation}/expert/{username}/versions', {
      ...at,
      query: { cursor: 'bm90LWEtY3Vyc29y' },
    })
    expectError(forged, 400, 'validation_failed')
  })

  test('the diff of an account change names each field with its value before and after', async () => {
    const username = await createExpert(ctx, ctx.tenant, { job_title: 'Oceanographer' })
    expectOk(
      await caller().put('/v2/organization/{corporation}/expert/{username}', {
        ...profile(username),
        body: { job_title: 'Chief oceanographer', department: 'Coasts' },
      }),
    )
    const [latest, created] = await versionsOf(username)
    assert.ok(latest && created)
    const version = await versionOf(username, latest.id)
    assert.equal(version.previous_id, created.id)
    assert.deepEqual(version.diff, [
      { field: 'job_title', before: 'Oceanographer', after: 'Chief oceanographer' },
      { field: 'department', before: null, after: 'Coasts' },
    ])
    assert.deepEqual(version.snapshot, await account(username))
    // The first version has nothing before it: every field it set.
    const first = await versionOf(username, created.id)
    assert.equal(first.previous_id, null)
    assert.ok(first.diff.some((change) => change.field === 'job_title' && change.after === 'Oceanographer'))
  })

  test('a rich text change also comes as a word diff of its text, without markup', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const at = profile(username)
    const post = (biography: string) =>
      caller().post('/v2/organization/{corporation}/expert/{username}/biography', {
        ...at,
        body: { biography },
      })
    const { id } = expectOk(await post('<p>She studies <strong>tides</strong> in the North Sea.</p>'))
    expectOk(await post('<p>She studies <em>storm surges</em> in the North Sea.</p>'))
    const [latest] = await versionsOf(username)
    assert.ok(latest)
    const { diff } = await versionOf(username, latest.id)
    assert.equal(diff.length, 1)
    const [change] = diff
    assert.equal(change?.field, `biography[${id}].biography`)
    assert.equal(change?.before, '<p>She studies <strong>tides</strong> in the North Sea.</p>')
    assert.equal(change?.after, '<p>She studies <em>storm surges</em> in the North Sea.</p>')
    const words = change?.words ?? []
    assert.deepEqual(
      words.filter((word) => word.op !== 'same').map((word) => [word.op, word.text.trim()]),
      [
        ['removed', 'tides'],
        ['added', 'storm surges'],
      ],
    )
    assert.equal(
      words.map((word) => (word.op === 'added' ? '' : word.text)).join(''),
      'She studies tides in the North Sea.',
    )
  })

  test('restoring makes a new version, and the live record equals the one restored', async () => {
    const username = await createExpert(ctx, ctx.tenant, { job_title: 'Geologist' })
    const at = profile(username)
    expectOk(
      await caller().put('/v2/organization/{corporation}/expert/{username}', {
        ...at,
        body: { job_title: 'Volcanologist', department: 'Fire' },
      }),
    )
    const accountVersions = await versionsOf(username)
    const original = accountVersions.at(-1)
    assert.ok(original)
    const restored = expectOk(await restore(username, original.id))
    assert.deepEqual(restored, { restored: original.id, updated: true })
    const live = await account(username)
    assert.deepEqual(live, (await versionOf(username, original.id)).snapshot)
    assert.equal(live?.department, null)
    const after = await versionsOf(username)
    assert.equal(after.length, accountVersions.length + 1)
    assert.equal(after[0]?.action, 'POST /v2/organization/:corporation/expert/:username/versions/:id/restore')
    // Restoring what is already live changes nothing.
    assert.deepEqual(expectOk(await restore(username, original.id)), {
      restored: original.id,
      updated: false,
    })
    // The audit log names the restore.
    const entries = await ctx.testDatabase.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('org_id', '=', ctx.tenant.orgId)
      .where('record_id', '=', username)
      .orderBy('id', 'desc')
      .execute()
    assert.equal(
      entries[0]?.action,
      'POST /v2/organization/:corporation/expert/:username/versions/:id/restore',
    )
  })

  test('restoring a section brings deleted elements back under their ids, in the version’s order', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const at = profile(username)
    const add = async (institution: string) =>
      expectOk(
        await caller().post('/v2/organization/{corporation}/expert/{username}/education', {
          ...at,
          body: { institution },
        }),
      ).id
    const a = await add('Leiden')
    const b = await add('Utrecht')
    const [full] = await versionsOf(username)
    assert.ok(full)
    expectOk(
      await caller().delete('/v2/organization/{corporation}/expert/{username}/education/{id}', {
        params: { ...at.params, id: a },
      }),
    )
    await add('Groningen')
    expectOk(await restore(username, full.id))
    const education = expectOk(
      await caller().get('/v2/organization/{corporation}/expert/{username}/education', at),
    )
    assert.deepEqual(education, (await versionOf(username, full.id)).snapshot)
    assert.deepEqual(
      education.education.map((element) => [element.id, element.institution]),
      [
        [a, 'Leiden'],
        [b, 'Utrecht'],
      ],
    )
    // The profile read shows the restored section too (its stored read document was made stale).
    const read = expectOk(await caller().get('/v2/organization/{corporation}/expert/{username}', at))
    assert.deepEqual(
      read.education.map((element) => element.institution),
      ['Leiden', 'Utrecht'],
    )
  })

  test('restoring a version that would publish a profile passes the publish gate like any publish', async () => {
    const tenant = await ctx.addTenant('Gated Restore College')
    const orgId = tenant.orgId
    const username = await createExpert(ctx, tenant)
    const at = { params: { corporation: orgId, username } }
    const own = api(ctx.app, tenant)
    expectOk(
      await own.put('/v2/organization/{corporation}/expert/{username}', { ...at, body: { is_published: 1 } }),
    )
    expectOk(
      await own.put('/v2/organization/{corporation}/expert/{username}', { ...at, body: { is_published: 0 } }),
    )
    const gate = { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: 1 }
    expectOk(
      await own.put('/v2/organization/{corporation}/workflow', {
        params: { corporation: orgId },
        body: { review: { roles: [], sections: null }, gate },
      }),
    )
    const { versions } = expectOk(
      await own.get('/v2/organization/{corporation}/expert/{username}/versions', at),
    )
    const published = versions[1]
    assert.ok(published)
    const refused = await own.post('/v2/organization/{corporation}/expert/{username}/versions/{id}/restore', {
      params: { ...at.params, id: published.id },
    })
    const error = expectError(refused, 409, 'conflict')
    assert.deepEqual(
      (error.details ?? []).map((detail) => detail.field),
      ['topic'],
    )
  })

  test('posts and Q&A items keep versions: diff of their HTML, restore of their fields and tags', async () => {
    const expert = await createExpert(ctx, ctx.tenant)
    const corporation = ctx.tenant.orgId
    const { id } = expectOk(
      await caller().post('/v2/spotlight/{corporation}', {
        params: { corporation },
        body: { title: 'Rising seas', html: '<p>The sea rises.</p>', tags: ['Climate'], tagged: [expert] },
      }),
    )
    expectOk(
      await caller().put('/v2/spotlight/{corporation}/{id}', {
        params: { corporation, id },
        body: {
          html: '<p>The sea rises fast.</p>',
          tags: ['Climate', 'Coasts'],
          tagged: [],
          seo: { title: 'Seas' },
        },
      }),
    )
    const { versions } = expectOk(
      await caller().get('/v2/spotlight/{corporation}/{id}/versions', { params: { corporation, id } }),
    )
    assert.equal(versions.length, 2)
    const [latest, first] = versions
    assert.ok(latest && first)
    assert.equal(latest.part, 'item')
    const detail = expectOk(
      await caller().get('/v2/spotlight/{corporation}/{id}/versions/{version}', {
        params: { corporation, id, version: latest.id },
      }),
    )
    const fields = Object.fromEntries(detail.diff.map((change) => [change.field, change]))
    assert.deepEqual(Object.keys(fields).sort(), ['html', 'seo.title', 'tagged', 'tags'])
    assert.deepEqual(fields.tags?.after, ['Climate', 'Coasts'])
    assert.deepEqual(fields.tagged?.before, [expert])
    assert.deepEqual(
      fields.html?.words?.filter((word) => word.op !== 'same').map((word) => [word.op, word.text.trim()]),
      [['added', 'fast']],
    )

    expectOk(
      await caller().post('/v2/spotlight/{corporation}/{id}/versions/{version}/restore', {
        params: { corporation, id, version: first.id },
      }),
    )
    const post = expectOk(
      await caller().get('/v2/spotlight/{corporation}/{id}', { params: { corporation, id } }),
    )
    assert.equal(post.spotlight[0]?.html, '<p>The sea rises.</p>')
    assert.deepEqual(
      post.tags.map((tag) => tag.tag),
      ['Climate'],
    )
    assert.deepEqual(
      post.spotlight[0]?.tagged_experts.map((tagged) => tagged.username),
      [expert],
    )
    const firstSnapshot = expectOk(
      await caller().get('/v2/spotlight/{corporation}/{id}/versions/{version}', {
        params: { corporation, id, version: first.id },
      }),
    ).snapshot
    const [restoredVersion] = expectOk(
      await caller().get('/v2/spotlight/{corporation}/{id}/versions', { params: { corporation, id } }),
    ).versions
    assert.ok(restoredVersion)
    assert.deepEqual(
      expectOk(
        await caller().get('/v2/spotlight/{corporation}/{id}/versions/{version}', {
          params: { corporation, id, version: restoredVersion.id },
        }),
      ).snapshot,
      firstSnapshot,
    )

    const question = expectOk(
      await caller().post('/v2/qanda/{corporation}', {
        params: { corporation },
        body: { question: 'Will the dikes hold?', details: '<p>Asked by a reader.</p>' },
      }),
    ).id
    expectOk(
      await caller().put('/v2/qanda/{corporation}/{id}', {
        params: { corporation, id: question },
        body: { details: '<p>Asked by two readers.</p>', published: 1 },
      }),
    )
    const qanda = expectOk(
      await caller().get('/v2/qanda/{corporation}/{id}/versions', { params: { corporation, id: question } }),
    ).versions
    const asked = qanda.at(-1)
    assert.ok(asked)
    expectOk(
      await caller().post('/v2/qanda/{corporation}/{id}/versions/{version}/restore', {
        params: { corporation, id: question, version: asked.id },
      }),
    )
    const item = expectOk(
      await caller().get('/v2/qanda/{corporation}/{id}', { params: { corporation, id: question } }),
    ).question[0]
    assert.equal(item?.details, '<p>Asked by a reader.</p>')
    assert.equal(item?.published, 0)
  })

  test('an import keeps the versions of what it changed, named after the import', async () => {
    const tenant = await ctx.addTenant('Imported University')
    const key = `imported-${Date.now()}`
    const file = (biography: string, job_title: string) => ({
      experts: [
        {
          key,
          firstname: 'Marie',
          lastname: 'Imported',
          job_title,
          email: `${key}@lab.example`,
          company: 'Lab',
          sections: {
            biography: [{ biography: `<p>${biography}</p>` }],
            topic: [{ name: 'Radium' }],
          },
        },
      ],
      spotlights: [{ key: `${key}-post`, title: 'Radium', html: '<p>Glows.</p>', experts: [key] }],
    })
    const first = await importDocument(ctx, tenant.orgId, file('Physicist and chemist.', 'Physicist'))
    const username = first.ids.experts[0]
    const post = first.ids.spotlights[0]
    assert.ok(username && post)
    const at = { params: { corporation: tenant.orgId, username } }
    const own = api(ctx.app, tenant)
    const listed = async () =>
      expectOk(await own.get('/v2/organization/{corporation}/expert/{username}/versions', at)).versions
    const created = await listed()
    assert.deepEqual(created.map((version) => version.part).sort(), ['account', 'biography', 'topic'])
    assert.ok(created.every((version) => version.actor.kind === 'cli' && version.action === 'cli import'))
    // The same file again changes nothing and keeps nothing; a new biography keeps that section only.
    await importDocument(ctx, tenant.orgId, file('Physicist and chemist.', 'Physicist'))
    assert.equal((await listed()).length, 3)
    await importDocument(ctx, tenant.orgId, file('Physicist, chemist, twice a laureate.', 'Physicist'))
    const after = await listed()
    assert.equal(after.length, 4)
    assert.equal(after[0]?.part, 'biography')
    const detail = expectOk(
      await own.get('/v2/organization/{corporation}/expert/{username}/versions/{id}', {
        params: { ...at.params, id: after[0]?.id ?? 0 },
      }),
    )
    // The word diff reads back as each text: kept and removed words the old one, kept and added the new.
    const words = detail.diff[0]?.words ?? []
    const text = (skip: 'added' | 'removed') =>
      words
        .filter((word) => word.op !== skip)
        .map((word) => word.text)
        .join('')
    assert.equal(text('added'), 'Physicist and chemist.')
    assert.equal(text('removed'), 'Physicist, chemist, twice a laureate.')
    assert.deepEqual(
      detail.snapshot,
      expectOk(await own.get('/v2/organization/{corporation}/expert/{username}/biography', at)),
    )
    const postVersions = expectOk(
      await own.get('/v2/spotlight/{corporation}/{id}/versions', {
        params: { corporation: tenant.orgId, id: post },
      }),
    ).versions
    assert.equal(postVersions.length, 1)
  })

  test('a work claimed into the articles keeps a version of the section, named after the claim', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const id = await seedCandidate(ctx.testDatabase.database.db, ctx.tenant.orgId, username, ctx.clock.now())
    const claimed = await ctx.inject({
      method: 'PATCH',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}/works/${id}`,
      headers: ctx.tenant.auth,
      payload: { state: 'claimed' },
    })
    assert.equal(claimed.statusCode, 200, claimed.body)
    const [latest] = await versionsOf(username)
    assert.equal(latest?.part, 'article')
    assert.match(latest?.action ?? '', /works\/:id$/)
    assert.deepEqual(
      (await versionOf(username, latest?.id ?? 0)).snapshot,
      expectOk(
        await caller().get('/v2/organization/{corporation}/expert/{username}/article', profile(username)),
      ),
    )
  })

  test('a staff member’s profile keeps versions as an expert’s, under its own paths', async () => {
    const username = await createStaff(ctx, ctx.tenant, { job_title: 'Registrar' })
    const params = { corporation: ctx.tenant.orgId, username }
    expectOk(
      await caller().put('/v2/organization/{corporation}/staff/{username}', {
        params,
        body: { job_title: 'Bursar' },
      }),
    )
    const { versions } = expectOk(
      await caller().get('/v2/organization/{corporation}/staff/{username}/versions', { params }),
    )
    assert.deepEqual(
      versions.map((version) => version.part),
      ['account', 'account'],
    )
    const first = versions.at(-1)
    assert.ok(first)
    expectOk(
      await caller().post('/v2/organization/{corporation}/staff/{username}/versions/{id}/restore', {
        params: { ...params, id: first.id },
      }),
    )
    const read = expectOk(await caller().get('/v2/organization/{corporation}/staff/{username}', { params }))
    assert.equal(read.account[0]?.job_title, 'Registrar')
    // A staff member is not an expert: its versions are not under /expert.
    expectError(
      await caller().get('/v2/organization/{corporation}/expert/{username}/versions', { params }),
      404,
      'not_found',
    )
  })

  test('another organization’s records and versions are a 404; a deleted record takes its versions', async () => {
    // Usernames are per organization: this one is nowhere in ours.
    const foreign = await createExpert(ctx, ctx.other, {
      firstname: 'Olga',
      lastname: `Elsewhere${Date.now()}`,
    })
    expectError(
      await caller().get('/v2/organization/{corporation}/expert/{username}/versions', profile(foreign)),
      404,
      'not_found',
    )
    const foreignVersion = expectOk(
      await caller(ctx.other).get(
        '/v2/organization/{corporation}/expert/{username}/versions',
        profile(foreign, ctx.other.orgId),
      ),
    ).versions[0]
    assert.ok(foreignVersion)
    // A version id of another organization's expert, under one of ours.
    const ours = await createExpert(ctx, ctx.tenant)
    expectError(
      await caller().get('/v2/organization/{corporation}/expert/{username}/versions/{id}', {
        params: { corporation: ctx.tenant.orgId, username: ours, id: foreignVersion.id },
      }),
      404,
      'not_found',
    )
    expectError(await restore(ours, foreignVersion.id), 404, 'not_found')
    // Our token on the other organization's path.
    const cross = await caller().get(
      '/v2/organization/{corporation}/expert/{username}/versions',
      profile(foreign, ctx.other.orgId),
    )
    assert.ok([403, 404].includes(cross.statusCode), cross.body)
    const post = expectOk(
      await caller(ctx.other).post('/v2/spotlight/{corporation}', {
        params: { corporation: ctx.other.orgId },
        body: { title: 'Elsewhere', html: '<p>Not yours.</p>' },
      }),
    ).id
    expectError(
      await caller().get('/v2/spotlight/{corporation}/{id}/versions', {
        params: { corporation: ctx.tenant.orgId, id: post },
      }),
      404,
      'not_found',
    )

    expectOk(await caller().delete('/v2/organization/{corporation}/expert/{username}', profile(ours)))
    const left = await ctx.testDatabase.database.db
      .selectFrom('record_versions')
      .select('id')
      .where('org_id', '=', ctx.tenant.orgId)
      .where('record_kind', '=', 'profile')
      .execute()
    const { db } = ctx.testDatabase.database
    const remaining = await db
      .selectFrom('experts')
      .select('id')
      .where('org_id', '=', ctx.tenant.orgId)
      .execute()
    const live = new Set(remaining.map((row) => row.id))
    assert.ok(left.length > 0)
    const orphans = await db
      .selectFrom('record_versions')
      .select('record_id')
      .where('org_id', '=', ctx.tenant.orgId)
      .where('record_kind', '=', 'profile')
      .execute()
    assert.ok(orphans.every((row) => live.has(Number(row.record_id))))
  })

  test('scopes: read:public never sees versions, read does, restore needs write; an expert person reaches its own', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const [version] = await versionsOf(username)
    assert.ok(version)
    const publicToken = await tokenWith(ctx, ['read:public'])
    expectError(
      await api(ctx.app, publicToken).get(
        '/v2/organization/{corporation}/expert/{username}/versions',
        profile(username),
      ),
      403,
      'insufficient_scope',
    )
    const readToken = await tokenWith(ctx, ['read'])
    expectOk(
      await api(ctx.app, readToken).get(
        '/v2/organization/{corporation}/expert/{username}/versions',
        profile(username),
      ),
    )
    expectError(await restore(username, version.id, readToken), 403, 'insufficient_scope')

    const other = await createExpert(ctx, ctx.tenant)
    const person = await personToken(ctx, ctx.tenant.orgId, 'expert', { expert: username })
    const own = api(ctx.app, person.token)
    expectOk(await own.get('/v2/organization/{corporation}/expert/{username}/versions', profile(username)))
    expectOk(await restore(username, version.id, person.token))
    const foreign = await own.get('/v2/organization/{corporation}/expert/{username}/versions', profile(other))
    assert.ok([403, 404].includes(foreign.statusCode), foreign.body)
  })

  test('property: after restoring version k, the record reads as snapshot k', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const at = profile(username)
    const write = fc.oneof(
      fc.record({
        kind: fc.constant('account' as const),
        job_title: fc.constantFrom('Geologist', 'Hydrologist', 'Dean'),
        department: fc.constantFrom('', 'Coasts', 'Rivers'),
      }),
      fc.record({
        kind: fc.constant('add' as const),
        institution: fc.constantFrom('Delft', 'Leiden', 'Ghent'),
      }),
      fc.record({ kind: fc.constant('remove' as const), index: fc.nat() }),
      fc.record({
        kind: fc.constant('biography' as const),
        text: fc.constantFrom('Tides', 'Storm surges', 'Dunes'),
      }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 6 }), fc.nat(), async (writes, pick) => {
        for (const step of writes) {
          if (step.kind === 'account')
            expectOk(
              await caller().put('/v2/organization/{corporation}/expert/{username}', {
                ...at,
                body: { job_title: step.job_title, department: step.department },
              }),
            )
          else if (step.kind === 'add')
            expectOk(
              await caller().post('/v2/organization/{corporation}/expert/{username}/education', {
                ...at,
                body: { institution: step.institution },
              }),
            )
          else if (step.kind === 'biography')
            expectOk(
              await caller().post('/v2/organization/{corporation}/expert/{username}/biography', {
                ...at,
                body: { biography: `<p>${step.text}</p>` },
              }),
            )
          else {
            const list = expectOk(
              await caller().get('/v2/organization/{corporation}/expert/{username}/education', at),
            ).education
            const victim = list[step.index % Math.max(1, list.length)]
            if (victim)
              expectOk(
                await caller().delete('/v2/organization/{corporation}/expert/{username}/education/{id}', {
                  params: { ...at.params, id: victim.id },
                }),
              )
          }
        }
        const versions = await versionsOf(username)
        const chosen = versions[pick % versions.length]
        assert.ok(chosen)
        const { snapshot, part } = await versionOf(username, chosen.id)
        expectOk(await restore(username, chosen.id))
        const live =
          part === 'account'
            ? await account(username)
            : part === 'education'
              ? expectOk(await caller().get('/v2/organization/{corporation}/expert/{username}/education', at))
              : expectOk(await caller().get('/v2/organization/{corporation}/expert/{username}/biography', at))
        assert.deepEqual(live, snapshot, `restored version ${chosen.id} (${part})`)
      }),
      { numRuns: PROPERTY_RUNS },
    )
  })
})
