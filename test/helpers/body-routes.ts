import { createExpert, type TestContext } from './harness.js'

/** Every route that takes a body, with the URL to send to (for the abuse suite). */
export interface BodyRoute {
  name: string
  method: 'POST' | 'PUT'
  /** Whether the bearer token of the main tenant is sent. */
  auth: boolean
  url(ctx: TestContext): Promise<string>
  /** The code of a malformed body here (`invalid_request` on the OAuth endpoints, RFC 6749). */
  malformed: 'validation_failed' | 'invalid_request'
  /** The table the route writes to, to prove a rejected request wrote nothing. */
  table: 'experts' | 'access_tokens' | 'inquiries'
}

const inquiryRoutes = (['donor', 'event'] as const).map(
  (kind): BodyRoute => ({
    name: `POST ${kind} inquiry`,
    method: 'POST',
    auth: true,
    url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/inquiry/${kind}`,
    malformed: 'validation_failed',
    table: 'inquiries',
  }),
)

export const BODY_ROUTES: BodyRoute[] = [
  ...inquiryRoutes,
  {
    name: 'POST expert',
    method: 'POST',
    auth: true,
    url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/expert`,
    malformed: 'validation_failed',
    table: 'experts',
  },
  {
    name: 'PUT expert',
    method: 'PUT',
    auth: true,
    url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/expert/${await createExpert(ctx, ctx.tenant)}`,
    malformed: 'validation_failed',
    table: 'experts',
  },
  {
    name: 'POST token',
    method: 'POST',
    auth: false,
    url: async () => '/v2/oauth/token',
    malformed: 'invalid_request',
    table: 'access_tokens',
  },
  {
    name: 'POST revoke',
    method: 'POST',
    auth: false,
    url: async () => '/v2/oauth/revoke',
    malformed: 'invalid_request',
    table: 'access_tokens',
  },
]

/** Paths with a `:corporation` (and maybe a numeric `:id`) segment; `{id}` marks where a bad id goes. */
export const ID_PATHS: { name: string; method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string }[] = [
  { name: 'GET expert', method: 'GET', path: '/v2/organization/{id}/expert/someone' },
  { name: 'POST expert', method: 'POST', path: '/v2/organization/{id}/expert' },
  { name: 'GET spotlight (corporation)', method: 'GET', path: '/v2/spotlight/{id}/1' },
  { name: 'GET spotlight (id)', method: 'GET', path: '/v2/spotlight/1/{id}' },
  { name: 'GET qanda (corporation)', method: 'GET', path: '/v2/qanda/{id}/1' },
  { name: 'GET qanda (id)', method: 'GET', path: '/v2/qanda/1/{id}' },
  { name: 'POST donor inquiry', method: 'POST', path: '/v2/organization/{id}/inquiry/donor' },
  { name: 'POST event inquiry', method: 'POST', path: '/v2/organization/{id}/inquiry/event' },
]
