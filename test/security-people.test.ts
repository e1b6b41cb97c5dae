import assert from 'node:assert/strict'
import { before, test } from 'node:test'
import type { InjectOptions } from 'fastify'
import { ROLES, roleScopes } from '../src/auth/roles.js'
import { grants } from '../src/auth/scopes.js'
import { present } from './helpers/checked.js'
import { createExpert, describeEachDialect, envelope, type TestContext } from './helpers/harness.js'
import { personToken } from './helpers/people.js'
import { insertDraft, PROTECTED_ROUTES, type ProtectedRoute } from './helpers/protected-routes.js'

/**
 * The security suite for people's dashboard tokens, driven by the same route table as
 * test/security.test.ts: every role against every protected route, and the reach of an `expert`
 * person (its own expert only) on every route.
 */

function withToken(request: InjectOptions, token: string): InjectOptions {
  return { ...request, headers: { ...(request.headers ?? {}), authorization: `Bearer ${token}` } }
}

/** The `:username` the request addresses, read by matching its URL against the route's pattern. */
function addressedUsername(route: ProtectedRoute, url: string): string | undefined {
  const path = url.split('?')[0] ?? ''
  for (const pattern of route.covers) {
    const names: string[] = []
    const source = pattern
      .replace(/^[A-Z]+ /, '')
      .split('/')
      .map((segment) => {
        if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        names.push(segment.slice(1))
        return '([^/]+)'
      })
      .join('/')
    const match = new RegExp(`^${source}$`).exec(path)
    if (!match) continue
    const index = names.indexOf('username')
    return index < 0 ? undefined : decodeURIComponent(match[index + 1] ?? '')
  }
  return undefined
}

/** Routes an expert person may use on its own expert (the bearer check's reach rule). */
function reachable(route: ProtectedRoute): boolean {
  if (route.name === 'DELETE expert') return false
  if (route.name === 'GET inquiry') return true
  return route.covers.some((pattern) => pattern.includes('/expert/:username'))
}

async function linkTo(ctx: TestContext, personId: number, username: string) {
  const { db } = ctx.testDatabase.database
  const expert = await db
    .selectFrom('experts')
    .select('id')
    .where('org_id', '=', ctx.tenant.orgId)
    .where('username', '=', username)
    .executeTakeFirstOrThrow()
  await db.updateTable('people').set({ expert_id: expert.id }).where('id', '=', personId).execute()
}

/** The expert an inquiry request addresses (GET inquiry: by its id). */
async function inquiryRecipient(ctx: TestContext, url: string): Promise<string> {
  const id = Number(url.split('/').pop())
  const { db } = ctx.testDatabase.database
  const row = await db
    .selectFrom('inquiries')
    .select('username')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  assert.ok(row.username, 'the inquiry names an expert')
  return row.username
}

describeEachDialect('security suite: people’s dashboard tokens on every protected route', (ctx) => {
  const tokens: Partial<Record<(typeof ROLES)[number], string>> = {}
  let expert: { id: number; token: string }
  before(async () => {
    for (const role of ROLES) {
      if (role === 'expert') continue
      tokens[role] = (await personToken(ctx, ctx.tenant.orgId, role)).token
    }
    const own = await createExpert(ctx, ctx.tenant)
    const person = await personToken(ctx, ctx.tenant.orgId, 'expert', { expert: own })
    expert = { id: person.id, token: person.token }
  })

  // A draft's steps depend on who wrote it, not only on the role: their own case, below.
  const byRole = PROTECTED_ROUTES.filter((route) => !route.draftStep)
  for (const role of ROLES.filter((r) => r !== 'expert')) {
    for (const route of byRole) {
      const allowed = grants(roleScopes(role), route.scope)
      // Single sign-on's writes: the scope lets an admin in, only an owner may make them.
      const ownersOnly = allowed && route.ownerOnly === true && role !== 'owner'
      const expected = ownersOnly
        ? '403 forbidden (owners only)'
        : allowed
          ? 'allowed'
          : '403 insufficient_scope'
      test(`${role}: ${route.name} is ${expected}`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        const response = await ctx.inject(withToken(request, present(tokens[role])))
        if (ownersOnly) {
          assert.equal(response.statusCode, 403, response.body)
          assert.equal(envelope(response).error?.code, 'forbidden')
        } else if (allowed) {
          assert.equal(response.statusCode, route.success ?? 200, response.body)
        } else {
          assert.equal(response.statusCode, 403, response.body)
          assert.equal(envelope(response).error?.code, 'insufficient_scope')
        }
      })
    }
  }

  for (const route of byRole) {
    const held = grants(roleScopes('expert'), route.scope)
    test(`expert: ${route.name} on another expert's record is refused`, async () => {
      await linkTo(ctx, expert.id, await createExpert(ctx, ctx.tenant))
      const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
      const response = await ctx.inject(withToken(request, expert.token))
      if (!held) {
        assert.equal(response.statusCode, 403, response.body)
        assert.equal(envelope(response).error?.code, 'insufficient_scope')
        return
      }
      assert.ok([403, 404].includes(response.statusCode), `${response.statusCode} ${response.body}`)
      assert.ok(['forbidden', 'not_found'].includes(envelope(response).error?.code ?? ''), response.body)
    })

    if (held && reachable(route)) {
      test(`expert: ${route.name} on its own expert is allowed`, async () => {
        const request = await route.build(ctx, ctx.tenant.orgId, ctx.tenant)
        const url = String(request.url)
        const target =
          route.name === 'GET inquiry' ? await inquiryRecipient(ctx, url) : addressedUsername(route, url)
        assert.ok(target, `the request of ${route.name} addresses an expert`)
        await linkTo(ctx, expert.id, target)
        const response = await ctx.inject(withToken(request, expert.token))
        assert.equal(response.statusCode, route.success ?? 200, response.body)
      })
    }
  }

  test("a draft's steps: its author submits it, another reviewer approves or returns it, others do not reach it", async () => {
    const base = `/v2/organization/${ctx.tenant.orgId}/drafts`
    const send = async (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
      ctx.inject(withToken({ method, url, ...(payload ? { payload } : {}) }, token))
    const byExpert = (state: 'open' | 'submitted') => insertDraft(ctx, ctx.tenant, state, expert.id)
    for (const role of ['owner', 'admin', 'editor'] as const) {
      const token = present(tokens[role])
      const read = await send(token, 'GET', `${base}/${await byExpert('open')}`)
      assert.equal(read.statusCode, 200, `${role} reads: ${read.body}`)
      const submit = await send(token, 'POST', `${base}/${await byExpert('open')}/submit`)
      assert.equal(submit.statusCode, 403, `${role} submits another's draft: ${submit.body}`)
      assert.equal(envelope(submit).error?.code, 'forbidden')
      const approve = await send(token, 'POST', `${base}/${await byExpert('submitted')}/approve`, {})
      assert.equal(approve.statusCode, 200, `${role} approves: ${approve.body}`)
      const sendBack = await send(token, 'POST', `${base}/${await byExpert('submitted')}/return`, {
        comment: 'Say more about the work.',
      })
      assert.equal(sendBack.statusCode, 200, `${role} returns: ${sendBack.body}`)
    }
    // The author submits its own draft and takes no reviewer's step on it.
    const own = await byExpert('open')
    assert.equal((await send(expert.token, 'POST', `${base}/${own}/submit`)).statusCode, 200)
    const selfApproval = await send(expert.token, 'POST', `${base}/${own}/approve`, {})
    assert.equal(selfApproval.statusCode, 403, selfApproval.body)
    // Someone else's draft: the expert person and the inquiry desk do not reach it.
    const others = await insertDraft(ctx, ctx.tenant, 'submitted')
    for (const token of [expert.token, present(tokens.inquiries)]) {
      const response = await send(token, 'GET', `${base}/${others}`)
      assert.equal(response.statusCode, 404, response.body)
    }
    const steps = await send(present(tokens.inquiries), 'POST', `${base}/${others}/approve`, {})
    assert.ok([403, 404].includes(steps.statusCode), steps.body)
    // An expert person's queue is its own drafts; a reviewer's holds the others' too.
    const queueOf = async (token: string) => {
      const response = await send(token, 'GET', base)
      assert.equal(response.statusCode, 200, response.body)
      return JSON.stringify(envelope(response).data)
    }
    assert.ok((await queueOf(expert.token)).includes(`"id":${own},`))
    assert.ok(!(await queueOf(expert.token)).includes(`"id":${others},`))
    assert.ok((await queueOf(present(tokens.editor))).includes(`"id":${others},`))
  })

  test('expert: the inbox is reachable only filtered to its own expert', async () => {
    const own = await createExpert(ctx, ctx.tenant)
    await linkTo(ctx, expert.id, own)
    const base = `/v2/organization/${ctx.tenant.orgId}/inquiry`
    const other = await createExpert(ctx, ctx.tenant)
    for (const url of [base, `${base}?username=${other}`]) {
      const response = await ctx.inject(withToken({ method: 'GET', url }, expert.token))
      assert.equal(response.statusCode, 403, response.body)
    }
    const mine = await ctx.inject(withToken({ method: 'GET', url: `${base}?username=${own}` }, expert.token))
    assert.equal(mine.statusCode, 200, mine.body)
  })

  test('expert: a person whose expert was deleted reaches nothing', async () => {
    const own = await createExpert(ctx, ctx.tenant)
    await linkTo(ctx, expert.id, own)
    const url = `/v2/organization/${ctx.tenant.orgId}/expert/${own}`
    assert.equal((await ctx.inject(withToken({ method: 'GET', url }, expert.token))).statusCode, 200)
    const deleted = await ctx.inject({ method: 'DELETE', url, headers: ctx.tenant.auth })
    assert.equal(deleted.statusCode, 200, deleted.body)
    const response = await ctx.inject(withToken({ method: 'GET', url }, expert.token))
    assert.equal(response.statusCode, 403, response.body)
  })
})
