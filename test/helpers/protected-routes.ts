import type { InjectOptions } from 'fastify'
import type { Scope } from '../../src/auth/scopes.js'
import { importDocument } from './content.js'
import { createExpert, expertBody, inquiryBody, type Tenant, type TestContext } from './harness.js'

let contentKey = 0

/** Stores a media inquiry in `owner`'s organization; returns its id. */
async function createInquiryOf(ctx: TestContext, owner: Tenant): Promise<number> {
  const response = await ctx.inject({
    method: 'POST',
    url: `/v2/organization/${owner.orgId}/inquiry/media`,
    headers: owner.auth,
    payload: inquiryBody('media', await createExpert(ctx, owner)),
  })
  if (response.statusCode !== 200) throw new Error(`create inquiry failed: ${response.body}`)
  return response.json().data.id as number
}

/** Imports one post and one question into `owner`'s organization; returns their ids. */
async function createContent(
  ctx: TestContext,
  owner: Tenant,
): Promise<{ spotlight: number; question: number }> {
  const key = `security-${++contentKey}`
  const result = await importDocument(ctx, owner.orgId, {
    spotlights: [{ key, title: 'A post', html: '<p>Text</p>', published: 1 }],
    questions: [{ key, question: 'A question?', published: 1 }],
  })
  return { spotlight: result.ids.spotlights[0] as number, question: result.ids.questions[0] as number }
}

/**
 * Every protected route, described once so the shared security suite can run against each.
 * `build(ctx, corporation, owner)` returns a request that would succeed for `owner` on `corporation`;
 * `record` routes also address a record owned by `owner`, so that another organization's record
 * can be shown to be a 404.
 */
export interface ProtectedRoute {
  name: string
  /** Addresses a record (expert, post, question) that belongs to an organization. */
  record: boolean
  /** The scope a token needs here (CONTRACT §13); the suite checks the route asks for exactly it. */
  scope: Scope
  build(ctx: TestContext, corporation: number, owner: Tenant): Promise<InjectOptions>
}

export const PROTECTED_ROUTES: ProtectedRoute[] = [
  {
    name: 'GET expert',
    scope: 'read',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/expert/${await createExpert(ctx, owner)}`,
    }),
  },
  {
    name: 'POST expert',
    scope: 'write',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'POST',
      url: `/v2/organization/${corporation}/expert`,
      payload: expertBody(),
    }),
  },
  {
    name: 'PUT expert',
    scope: 'write',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'PUT',
      url: `/v2/organization/${corporation}/expert/${await createExpert(ctx, owner)}`,
      payload: { job_title: 'Changed' },
    }),
  },
  {
    name: 'DELETE expert',
    scope: 'write',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'DELETE',
      url: `/v2/organization/${corporation}/expert/${await createExpert(ctx, owner)}`,
    }),
  },
  ...(['donor', 'event'] as const).map(
    (kind): ProtectedRoute => ({
      name: `POST ${kind} inquiry`,
      scope: 'inquiries:create',
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/inquiry/${kind}`,
        payload: inquiryBody(kind, await createExpert(ctx, owner)),
      }),
    }),
  ),
  {
    name: 'GET spotlight',
    scope: 'read',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/spotlight/${corporation}/${(await createContent(ctx, owner)).spotlight}`,
    }),
  },
  {
    name: 'GET qanda',
    scope: 'read',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/qanda/${corporation}/${(await createContent(ctx, owner)).question}`,
    }),
  },
  {
    name: 'GET expert search',
    scope: 'read',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/expert?q=grace&topics[]=navy`,
    }),
  },
  {
    name: 'GET spotlight search',
    scope: 'read',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/spotlight/${corporation}/search?q=post`,
    }),
  },
  {
    name: 'GET qanda search',
    scope: 'read',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/qanda/${corporation}/search?q=question`,
    }),
  },
  ...(['general', 'media', 'partnership', 'admission', 'research', 'business', 'expertwitness'] as const).map(
    (kind): ProtectedRoute => ({
      name: `POST ${kind} inquiry`,
      scope: 'inquiries:create',
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/inquiry/${kind}`,
        payload: inquiryBody(kind, await createExpert(ctx, owner)),
      }),
    }),
  ),
  {
    name: 'GET inquiries',
    scope: 'inquiries:read',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/inquiry?page_size=5`,
    }),
  },
  {
    name: 'GET inquiry',
    scope: 'inquiries:read',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/inquiry/${await createInquiryOf(ctx, owner)}`,
    }),
  },
]
