import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createExpert, describeEachDialect, envelope, expertBody } from './helpers/harness.js'

describeEachDialect('experts', (ctx) => {
  test('creates an expert and returns its slug username', async () => {
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${ctx.tenant.orgId}/expert`,
      headers: ctx.tenant.auth,
      payload: expertBody({ firstname: 'José', lastname: 'Müller' }),
    })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(envelope(response), { success: true, data: { username: 'jose-muller', inserted: true } })
  })

  test('reads the profile with all 46 keys', async () => {
    const username = await createExpert(ctx, ctx.tenant)
    const response = await ctx.inject({
      method: 'GET',
      url: `/v2/organization/${ctx.tenant.orgId}/expert/${username}`,
      headers: ctx.tenant.auth,
    })
    assert.equal(response.statusCode, 200)
    assert.equal(Object.keys(envelope(response).data ?? {}).length, 46)
  })
})
