import assert from 'node:assert/strict'
import { test } from 'node:test'
import { api, expectError, expectOk, unchecked } from './helpers/api.js'
import { createExpert, createStaff, describeEachDialect } from './helpers/harness.js'
import { testImage } from './helpers/images.js'
import { personToken } from './helpers/people.js'

const GATE = { photo_min_px: 1000, tagline_max: 20, biography_max: 30, topics_min: 2 }
const NO_GATE = { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: null }

/**
 * The editorial workflow's settings (CONTRACT §21): review rules and the publish gate, per organization,
 * with the admin scope; the gate refuses to publish a profile that fails it, naming each thing missing,
 * and the checklist says the same before anyone tries.
 */
describeEachDialect('editorial workflow: settings, publish gate and checklist', (ctx) => {
  const client = () => api(ctx.app, ctx.tenant)
  const workflow = (orgId = ctx.tenant.orgId) => ({ params: { corporation: orgId } })

  test('an organization starts with no review and no gate', async () => {
    const tenant = await ctx.addTenant('Fresh College')
    const settings = expectOk(
      await api(ctx.app, tenant).get('/v2/organization/{corporation}/workflow', workflow(tenant.orgId)),
    )
    assert.deepEqual(settings, { review: { roles: [], sections: null }, gate: NO_GATE })
  })

  test('PUT stores the settings, GET answers them, the audit log records the change once', async () => {
    const tenant = await ctx.addTenant('Round Trip University')
    const caller = api(ctx.app, tenant)
    const body = {
      review: {
        roles: ['expert' as const, 'editor' as const],
        sections: ['biography' as const, 'account' as const],
      },
      gate: GATE,
    }
    const put = () =>
      caller.put('/v2/organization/{corporation}/workflow', { ...workflow(tenant.orgId), body })
    assert.deepEqual(expectOk(await put()), { updated: true })
    assert.deepEqual(expectOk(await put()), { updated: false })
    assert.deepEqual(
      expectOk(await caller.get('/v2/organization/{corporation}/workflow', workflow(tenant.orgId))),
      body,
    )
    const entries = await ctx.testDatabase.database.db
      .selectFrom('audit_log')
      .select('record_kind')
      .where('org_id', '=', tenant.orgId)
      .where('record_kind', '=', 'workflow')
      .execute()
    assert.equal(entries.length, 1)
    // Another organization's settings are its own.
    assert.deepEqual(
      expectOk(await client().get('/v2/organization/{corporation}/workflow', workflow())).gate,
      NO_GATE,
    )
  })

  test('roles, sections and limits are checked: each bad one is a 400 naming it', async () => {
    const response = await client().put('/v2/organization/{corporation}/workflow', {
      ...workflow(),
      body: unchecked({
        review: { roles: ['expert', 'chief'], sections: ['biography', 'hobbies'] },
        gate: { ...GATE, tagline_max: -1 },
      }),
    })
    const error = expectError(response, 400, 'validation_failed')
    const fields = (error.details ?? []).map((detail) => detail.field)
    for (const field of ['gate.tagline_max', 'review.roles.1', 'review.sections.1'])
      assert.ok(fields.includes(field), `${field} in ${response.body}`)
    const roleDetail = error.details?.find((detail) => detail.field === 'review.roles.1')
    assert.match(roleDetail?.message ?? '', /owner, admin, editor, inquiries, expert/)
    const missing = await client().put('/v2/organization/{corporation}/workflow', {
      ...workflow(),
      body: unchecked({ review: { roles: [] } }),
    })
    expectError(missing, 400, 'validation_failed')
    // Nothing was stored.
    const settings = expectOk(await client().get('/v2/organization/{corporation}/workflow', workflow()))
    assert.deepEqual(settings.review, { roles: [], sections: null })
  })

  test('the settings need the admin scope: an editor is refused, another organization is not reached', async () => {
    const editor = await personToken(ctx, ctx.tenant.orgId, 'editor')
    const response = await api(ctx.app, editor.token).get(
      '/v2/organization/{corporation}/workflow',
      workflow(),
    )
    expectError(response, 403, 'insufficient_scope')
    const put = await api(ctx.app, editor.token).put('/v2/organization/{corporation}/workflow', {
      ...workflow(),
      body: { review: { roles: [], sections: null }, gate: NO_GATE },
    })
    expectError(put, 403, 'insufficient_scope')
    const foreign = await client().get('/v2/organization/{corporation}/workflow', workflow(ctx.other.orgId))
    assert.ok([403, 404].includes(foreign.statusCode), foreign.body)
  })

  test('publishing a profile that fails the gate is a 409 naming each thing missing; it passes once fixed', async () => {
    const tenant = await ctx.addTenant('Gate University')
    const caller = api(ctx.app, tenant)
    const orgId = tenant.orgId
    expectOk(
      await caller.put('/v2/organization/{corporation}/workflow', {
        ...workflow(orgId),
        body: { review: { roles: [], sections: null }, gate: GATE },
      }),
    )
    const username = await createExpert(ctx, tenant)
    const params = { corporation: orgId, username }
    expectOk(
      await caller.post('/v2/organization/{corporation}/expert/{username}/tagline', {
        params,
        body: { tagline: 'A tagline far longer than twenty characters' },
      }),
    )
    expectOk(
      await caller.post('/v2/organization/{corporation}/expert/{username}/biography', {
        params,
        // 22 characters of text, well over 30 with its markup.
        body: { biography: '<p><strong>Short</strong> and <em>to the point</em></p>' },
      }),
    )
    expectOk(
      await caller.post('/v2/organization/{corporation}/expert/{username}/topic', {
        params,
        body: { name: 'Tides' },
      }),
    )

    const publish = () =>
      caller.put('/v2/organization/{corporation}/expert/{username}', { params, body: { is_published: 1 } })
    const refused = expectError(await publish(), 409, 'conflict')
    assert.match(refused.message, /cannot be published/)
    const details = new Map((refused.details ?? []).map((detail) => [detail.field, detail.message]))
    assert.deepEqual([...details.keys()].sort(), ['avatar', 'tagline', 'topic'])
    assert.match(details.get('avatar') ?? '', /no photo.*1000 px/)
    assert.match(details.get('tagline') ?? '', /43 characters, longer than the 20/)
    assert.match(details.get('topic') ?? '', /1 topic, fewer than the 2/)
    // Nothing was written: the profile is still unpublished.
    const read = expectOk(await caller.get('/v2/organization/{corporation}/expert/{username}', { params }))
    assert.equal(read.account[0]?.is_published, 0)

    const checklist = expectOk(
      await caller.get('/v2/organization/{corporation}/expert/{username}/checklist', { params }),
    )
    assert.equal(checklist.ready, false)
    assert.deepEqual(
      checklist.items.map((item) => [item.check, item.ok, item.value]),
      [
        ['photo_min_px', false, 0],
        ['tagline_max', false, 43],
        ['biography_max', true, 22],
        ['topics_min', false, 1],
      ],
    )

    // A photo, but too small: the message says its size.
    const photo = await ctx.inject({
      method: 'PUT',
      url: `/v2/organization/${orgId}/expert/${username}/avatar`,
      headers: { ...tenant.auth, 'content-type': 'image/png' },
      payload: await testImage('png', 640, 480),
    })
    assert.equal(photo.statusCode, 200, photo.body)
    expectOk(
      await caller.post('/v2/organization/{corporation}/expert/{username}/tagline', {
        params,
        body: { tagline: 'Tides and coasts' },
      }),
    )
    expectOk(
      await caller.post('/v2/organization/{corporation}/expert/{username}/topic', {
        params,
        body: { name: 'Coasts' },
      }),
    )
    const smaller = expectError(await publish(), 409, 'conflict')
    assert.deepEqual(
      (smaller.details ?? []).map((detail) => detail.field),
      ['avatar'],
    )
    assert.match(smaller.details?.[0]?.message ?? '', /photo of \d+ px, smaller than the 1000 px/)

    expectOk(
      await caller.put('/v2/organization/{corporation}/workflow', {
        ...workflow(orgId),
        body: { review: { roles: [], sections: null }, gate: { ...GATE, photo_min_px: 200 } },
      }),
    )
    const passed = expectOk(
      await caller.get('/v2/organization/{corporation}/expert/{username}/checklist', { params }),
    )
    assert.equal(passed.ready, true)
    assert.deepEqual(expectOk(await publish()), { username, updated: true })
    // A published profile's other writes are not gated; republishing changes nothing.
    assert.deepEqual(expectOk(await publish()), { username, updated: false })
  })

  test('the gate is the experts’: a staff member is published whatever it says', async () => {
    const tenant = await ctx.addTenant('Staffed University')
    const caller = api(ctx.app, tenant)
    expectOk(
      await caller.put('/v2/organization/{corporation}/workflow', {
        ...workflow(tenant.orgId),
        body: { review: { roles: [], sections: null }, gate: GATE },
      }),
    )
    const username = await createStaff(ctx, tenant)
    expectOk(
      await caller.put('/v2/organization/{corporation}/staff/{username}', {
        params: { corporation: tenant.orgId, username },
        body: { is_published: 1 },
      }),
    )
  })

  test('without a gate any profile is published and the checklist is empty and ready', async () => {
    const tenant = await ctx.addTenant('Open University')
    const caller = api(ctx.app, tenant)
    const username = await createExpert(ctx, tenant)
    const params = { corporation: tenant.orgId, username }
    assert.deepEqual(
      expectOk(await caller.get('/v2/organization/{corporation}/expert/{username}/checklist', { params })),
      { ready: true, items: [] },
    )
    expectOk(
      await caller.put('/v2/organization/{corporation}/expert/{username}', {
        params,
        body: { is_published: 1 },
      }),
    )
  })

  test('the checklist of another organization’s expert is a 404', async () => {
    const username = await createExpert(ctx, ctx.other)
    const response = await client().get('/v2/organization/{corporation}/expert/{username}/checklist', {
      params: { corporation: ctx.tenant.orgId, username },
    })
    expectError(response, 404, 'not_found')
  })
})
