import { accountElement } from '../../src/experts/account-shape.js'
import { findExpert } from '../../src/experts/repository.js'
import { createExpert, createStaff, inquiryBody, type TestContext } from './harness.js'

/** POSTs `payload` as the main tenant and returns the new id. */
async function created(ctx: TestContext, url: string, payload: object): Promise<number> {
  const response = await ctx.inject({ method: 'POST', url, headers: ctx.tenant.auth, payload })
  if (response.statusCode !== 200) throw new Error(`POST ${url} failed: ${response.body}`)
  return response.json().data.id
}

const expertUrl = async (ctx: TestContext) =>
  `/v2/organization/${ctx.tenant.orgId}/expert/${await createExpert(ctx, ctx.tenant)}`

/** A submitted draft of a new expert's account, inserted as the review step finds one; its URL. */
async function submittedDraftUrl(ctx: TestContext): Promise<string> {
  const { db } = ctx.testDatabase.database
  const expert = await findExpert(db, ctx.tenant.orgId, await createExpert(ctx, ctx.tenant))
  if (!expert) throw new Error('no expert')
  const now = ctx.clock.now()
  const { id } = await db
    .insertInto('drafts')
    .values({
      org_id: ctx.tenant.orgId,
      record_kind: 'profile',
      record_id: expert.id,
      part: 'account',
      author_id: 1,
      state: 'submitted',
      changes: JSON.stringify({ job_title: 'Chief rear admiral' }),
      base: JSON.stringify(accountElement(expert)),
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return `/v2/organization/${ctx.tenant.orgId}/drafts/${id}`
}

const staffUrl = async (ctx: TestContext) =>
  `/v2/organization/${ctx.tenant.orgId}/staff/${await createStaff(ctx, ctx.tenant)}`

/** Every route that takes a body, with the URL to send to (for the abuse suite). */
export interface BodyRoute {
  name: string
  method: 'POST' | 'PUT' | 'PATCH'
  /** Whether the bearer token of the main tenant is sent. */
  auth: boolean
  /**
   * A sign-in route of the dashboard (src/sessions): sent with the service's own Origin; JSON only, so
   * a form body is 415 there.
   */
  dashboard?: boolean
  url(ctx: TestContext): Promise<string>
  /** The code of a malformed body here (`invalid_request` on the OAuth endpoints, RFC 6749). */
  malformed: 'validation_failed' | 'invalid_request'
  /** The table the route writes to, to prove a rejected request wrote nothing. */
  table:
    | 'experts'
    | 'access_tokens'
    | 'inquiries'
    | 'profile_items'
    | 'organization_profiles'
    | 'spotlights'
    | 'questions'
    | 'answers'
    | 'person_sessions'
    | 'person_links'
    | 'people'
    | 'inquiry_notifications'
    | 'clients'
    | 'webhooks'
    | 'sso_settings'
    | 'organization_workflows'
    | 'drafts'
    | 'expert_delegates'
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

const dashboardRoutes = (
  [
    ['POST sign-in', '/auth/sign-in', 'person_sessions'],
    ['POST password reset', '/auth/password-reset', 'person_links'],
    ['POST password reset completion', '/auth/password-reset/complete', 'people'],
    ['POST invitation acceptance', '/auth/invitation/accept', 'people'],
  ] as const
).map(
  ([name, url, table]): BodyRoute => ({
    name,
    method: 'POST',
    auth: false,
    dashboard: true,
    url: async () => url,
    malformed: 'validation_failed',
    table,
  }),
)

export const BODY_ROUTES: BodyRoute[] = [
  ...inquiryRoutes,
  ...dashboardRoutes,
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
  ...(['general', 'media', 'partnership', 'admission', 'research', 'business', 'expertwitness'] as const).map(
    (kind): BodyRoute => ({
      name: `POST ${kind} inquiry`,
      method: 'POST',
      auth: true,
      url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/inquiry/${kind}`,
      malformed: 'validation_failed',
      table: 'inquiries',
    }),
  ),
  ...writeRoutes(),
  ...staffWriteRoutes(),
  ...adminBodyRoutes(),
  {
    name: 'PUT sso',
    method: 'PUT',
    auth: true,
    url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/sso`,
    malformed: 'validation_failed',
    table: 'sso_settings',
  },
  {
    name: 'POST delegate',
    method: 'POST',
    auth: true,
    url: async (ctx) => `${await expertUrl(ctx)}/delegates`,
    malformed: 'validation_failed',
    table: 'expert_delegates',
  },
  {
    name: 'PUT workflow',
    method: 'PUT',
    auth: true,
    url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/workflow`,
    malformed: 'validation_failed',
    table: 'organization_workflows',
  },
  ...(['approve', 'return'] as const).map(
    (step): BodyRoute => ({
      name: `POST draft ${step}`,
      method: 'POST',
      auth: true,
      url: async (ctx) => `${await submittedDraftUrl(ctx)}/${step}`,
      malformed: 'validation_failed',
      table: 'drafts',
    }),
  ),
  {
    name: 'PUT notifications',
    method: 'PUT',
    auth: true,
    url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/notifications`,
    malformed: 'validation_failed',
    table: 'inquiry_notifications',
  },
  {
    name: 'PATCH inquiry',
    method: 'PATCH',
    auth: true,
    url: async (ctx) => {
      const username = (await expertUrl(ctx)).split('/').pop() ?? ''
      const id = await created(
        ctx,
        `/v2/organization/${ctx.tenant.orgId}/inquiry/general`,
        inquiryBody('general', username),
      )
      return `/v2/organization/${ctx.tenant.orgId}/inquiry/${id}`
    },
    malformed: 'validation_failed',
    table: 'inquiries',
  },
]

/** The admin API's bodies (CONTRACT §14): clients, the webhook, people. */
function adminBodyRoutes(): BodyRoute[] {
  const route = (
    name: string,
    method: 'POST' | 'PUT',
    table: BodyRoute['table'],
    url: (ctx: TestContext) => Promise<string>,
  ): BodyRoute => ({ name, method, auth: true, url, malformed: 'validation_failed', table })
  const at = (ctx: TestContext, path: string) => `/v2/organization/${ctx.tenant.orgId}${path}`
  return [
    route('POST client', 'POST', 'clients', async (ctx) => at(ctx, '/client')),
    route('PUT webhook', 'PUT', 'webhooks', async (ctx) => at(ctx, '/webhook')),
    route('POST people', 'POST', 'people', async (ctx) => at(ctx, '/people')),
    route('PUT people', 'PUT', 'people', async (ctx) => {
      const response = await ctx.inject({
        method: 'POST',
        url: at(ctx, '/people'),
        headers: ctx.tenant.auth,
        payload: { email: `abuse-${Math.random().toString(36).slice(2)}@example.edu`, role: 'editor' },
      })
      if (response.statusCode !== 200) throw new Error(`POST people failed: ${response.body}`)
      return at(ctx, `/people/${response.json().data.person.id}`)
    }),
  ]
}

/** Staff members (CONTRACT §17): the account and the section writes, as for experts. */
function staffWriteRoutes(): BodyRoute[] {
  const route = (
    name: string,
    method: 'POST' | 'PUT',
    table: BodyRoute['table'],
    url: (ctx: TestContext) => Promise<string>,
  ): BodyRoute => ({ name, method, auth: true, url, malformed: 'validation_failed', table })
  return [
    route('POST staff', 'POST', 'experts', async (ctx) => `/v2/organization/${ctx.tenant.orgId}/staff`),
    route('PUT staff', 'PUT', 'experts', staffUrl),
    route(
      'POST staff section element',
      'POST',
      'profile_items',
      async (ctx) => `${await staffUrl(ctx)}/education`,
    ),
    route('PUT staff section element', 'PUT', 'profile_items', async (ctx) => {
      const base = await staffUrl(ctx)
      return `${base}/education/${await created(ctx, `${base}/education`, { institution: 'A' })}`
    }),
    route('PUT staff section order', 'PUT', 'profile_items', async (ctx) => {
      const base = await staffUrl(ctx)
      await created(ctx, `${base}/education`, { institution: 'A' })
      return `${base}/education/order`
    }),
    route(
      'POST staff single-element section',
      'POST',
      'profile_items',
      async (ctx) => `${await staffUrl(ctx)}/biography`,
    ),
  ]
}

function writeRoutes(): BodyRoute[] {
  const route = (
    name: string,
    method: 'POST' | 'PUT',
    table: BodyRoute['table'],
    url: (ctx: TestContext) => Promise<string>,
  ): BodyRoute => ({ name, method, auth: true, url, malformed: 'validation_failed', table })
  const post = async (ctx: TestContext) =>
    created(ctx, `/v2/spotlight/${ctx.tenant.orgId}`, { title: 'P', html: 'x' })
  const question = async (ctx: TestContext) =>
    created(ctx, `/v2/qanda/${ctx.tenant.orgId}`, { question: 'Q?' })
  return [
    route('POST section element', 'POST', 'profile_items', async (ctx) => `${await expertUrl(ctx)}/article`),
    route('PUT section element', 'PUT', 'profile_items', async (ctx) => {
      const base = await expertUrl(ctx)
      return `${base}/article/${await created(ctx, `${base}/article`, { title: 'A' })}`
    }),
    route('PUT section order', 'PUT', 'profile_items', async (ctx) => {
      const base = await expertUrl(ctx)
      await created(ctx, `${base}/article`, { title: 'A' })
      return `${base}/article/order`
    }),
    route(
      'POST single-element section',
      'POST',
      'profile_items',
      async (ctx) => `${await expertUrl(ctx)}/biography`,
    ),
    route(
      'PUT organization',
      'PUT',
      'organization_profiles',
      async (ctx) => `/v2/organization/${ctx.tenant.orgId}`,
    ),
    route('POST spotlight', 'POST', 'spotlights', async (ctx) => `/v2/spotlight/${ctx.tenant.orgId}`),
    route(
      'PUT spotlight',
      'PUT',
      'spotlights',
      async (ctx) => `/v2/spotlight/${ctx.tenant.orgId}/${await post(ctx)}`,
    ),
    route('POST qanda', 'POST', 'questions', async (ctx) => `/v2/qanda/${ctx.tenant.orgId}`),
    route(
      'PUT qanda',
      'PUT',
      'questions',
      async (ctx) => `/v2/qanda/${ctx.tenant.orgId}/${await question(ctx)}`,
    ),
    route(
      'POST answer',
      'POST',
      'answers',
      async (ctx) => `/v2/qanda/${ctx.tenant.orgId}/${await question(ctx)}/answer`,
    ),
    route('PUT answer', 'PUT', 'answers', async (ctx) => {
      const id = await question(ctx)
      const username = (await expertUrl(ctx)).split('/').pop()
      const answer = await created(ctx, `/v2/qanda/${ctx.tenant.orgId}/${id}/answer`, {
        username,
        answer: 'A',
      })
      return `/v2/qanda/${ctx.tenant.orgId}/${id}/answer/${answer}`
    }),
  ]
}

/** The upload routes (multipart or raw file bodies, not JSON or forms): the abuse suite's upload cases. */
export interface UploadRoute {
  name: string
  method: 'PUT' | 'POST'
  url(ctx: TestContext): Promise<string>
}

export const UPLOAD_ROUTES: UploadRoute[] = [
  { name: 'PUT avatar', method: 'PUT', url: async (ctx) => `${await expertUrl(ctx)}/avatar` },
  { name: 'POST file', method: 'POST', url: async (ctx) => `/v2/organization/${ctx.tenant.orgId}/file` },
]

/** Paths with a `:corporation` (and maybe a numeric `:id`) segment; `{id}` marks where a bad id goes. */
export const ID_PATHS: { name: string; method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string }[] =
  [
    { name: 'GET expert', method: 'GET', path: '/v2/organization/{id}/expert/someone' },
    { name: 'POST expert', method: 'POST', path: '/v2/organization/{id}/expert' },
    { name: 'GET spotlight (corporation)', method: 'GET', path: '/v2/spotlight/{id}/1' },
    { name: 'GET spotlight (id)', method: 'GET', path: '/v2/spotlight/1/{id}' },
    { name: 'GET qanda (corporation)', method: 'GET', path: '/v2/qanda/{id}/1' },
    { name: 'GET qanda (id)', method: 'GET', path: '/v2/qanda/1/{id}' },
    { name: 'POST donor inquiry', method: 'POST', path: '/v2/organization/{id}/inquiry/donor' },
    { name: 'POST event inquiry', method: 'POST', path: '/v2/organization/{id}/inquiry/event' },
    { name: 'POST media inquiry', method: 'POST', path: '/v2/organization/{id}/inquiry/media' },
    {
      name: 'POST expertwitness inquiry',
      method: 'POST',
      path: '/v2/organization/{id}/inquiry/expertwitness',
    },
    { name: 'GET inquiries', method: 'GET', path: '/v2/organization/{id}/inquiry' },
    { name: 'GET inquiry (corporation)', method: 'GET', path: '/v2/organization/{id}/inquiry/1' },
    { name: 'GET inquiry (id)', method: 'GET', path: '/v2/organization/1/inquiry/{id}' },
    { name: 'PATCH inquiry (corporation)', method: 'PATCH', path: '/v2/organization/{id}/inquiry/1' },
    { name: 'PATCH inquiry (id)', method: 'PATCH', path: '/v2/organization/1/inquiry/{id}' },
    { name: 'GET notifications', method: 'GET', path: '/v2/organization/{id}/notifications' },
    { name: 'GET clients', method: 'GET', path: '/v2/organization/{id}/client' },
    { name: 'DELETE client (corporation)', method: 'DELETE', path: '/v2/organization/{id}/client/cl_x' },
    { name: 'PUT webhook', method: 'PUT', path: '/v2/organization/{id}/webhook' },
    { name: 'GET webhook deliveries', method: 'GET', path: '/v2/organization/{id}/webhook/deliveries' },
    { name: 'PUT people (corporation)', method: 'PUT', path: '/v2/organization/{id}/people/1' },
    { name: 'PUT people (id)', method: 'PUT', path: '/v2/organization/1/people/{id}' },
    { name: 'DELETE people (id)', method: 'DELETE', path: '/v2/organization/1/people/{id}' },
    {
      name: 'POST people invitation (id)',
      method: 'POST',
      path: '/v2/organization/1/people/{id}/invitation',
    },
    { name: 'GET audit', method: 'GET', path: '/v2/organization/{id}/audit' },
    { name: 'PUT notifications', method: 'PUT', path: '/v2/organization/{id}/notifications' },
    {
      name: 'DELETE inquiry by sender',
      method: 'DELETE',
      path: '/v2/organization/{id}/inquiry?email=a%40b.example',
    },
    { name: 'PUT organization', method: 'PUT', path: '/v2/organization/{id}' },
    {
      name: 'GET section element (id)',
      method: 'GET',
      path: '/v2/organization/1/expert/someone/article/{id}',
    },
    {
      name: 'PUT section element (id)',
      method: 'PUT',
      path: '/v2/organization/1/expert/someone/article/{id}',
    },
    { name: 'POST spotlight (corporation)', method: 'POST', path: '/v2/spotlight/{id}' },
    { name: 'DELETE spotlight (id)', method: 'DELETE', path: '/v2/spotlight/1/{id}' },
    { name: 'PUT qanda (id)', method: 'PUT', path: '/v2/qanda/1/{id}' },
    { name: 'DELETE answer (id)', method: 'DELETE', path: '/v2/qanda/1/1/answer/{id}' },
    { name: 'GET staff', method: 'GET', path: '/v2/organization/{id}/staff' },
    { name: 'GET staff member', method: 'GET', path: '/v2/organization/{id}/staff/someone' },
    { name: 'GET employees', method: 'GET', path: '/v2/organization/{id}/employee' },
    {
      name: 'PUT staff section element (id)',
      method: 'PUT',
      path: '/v2/organization/1/staff/someone/link/{id}',
    },
  ]
