import assert from 'node:assert/strict'
import type { InquiryKind, Tenant, TestContext } from './harness.js'

/** Saves the organization's notification settings (`PUT .../notifications`, CONTRACT §17). */
export function putNotificationSettings(ctx: TestContext, tenant: Tenant, payload: object) {
  return ctx.inject({
    method: 'PUT',
    url: `/v2/organization/${tenant.orgId}/notifications`,
    headers: tenant.auth,
    payload,
  })
}

/** A new organization whose inquiry desk emails `recipients` for the kinds named. */
export async function deskTenant(
  ctx: TestContext,
  name: string,
  recipients: Partial<Record<InquiryKind, string[]>>,
): Promise<Tenant> {
  const tenant = await ctx.addTenant(name)
  const settings = Object.fromEntries(
    Object.entries(recipients).map(([kind, emails]) => [kind, { recipients: emails }]),
  )
  const saved = await putNotificationSettings(ctx, tenant, settings)
  assert.equal(saved.statusCode, 200, saved.body)
  return tenant
}

/** The privacy requests recorded for `tenant`, whole rows. */
export function privacyRequests(ctx: TestContext, tenant: Tenant) {
  return ctx.testDatabase.database.db
    .selectFrom('privacy_requests')
    .selectAll()
    .where('org_id', '=', tenant.orgId)
    .execute()
}
