import type { InjectOptions } from 'fastify'
import { cliWriteContext } from '../../src/audit/write-context.js'
import { createClient } from '../../src/auth/clients.js'
import type { Scope } from '../../src/auth/scopes.js'
import { setWebhook } from '../../src/delivery/settings.js'
import { webhookNetwork } from '../../src/delivery/webhook-network.js'
import { accountElement } from '../../src/experts/account-shape.js'
import { grantDelegate } from '../../src/experts/delegates.js'
import { findExpert } from '../../src/experts/repository.js'
import { addPerson } from '../../src/people/service.js'
import { PROFILE_KEYS } from '../../src/profiles/read.js'
import {
  NAME_SECTIONS,
  SINGLE_SECTIONS,
  STAFF_SECTIONS,
  STORED_SECTIONS,
} from '../../src/profiles/section-fields.js'
import { approveDomain } from '../../src/sso/domains.js'
import { NO_NOTICES } from '../../src/sso/notices.js'
import { putSsoSettings } from '../../src/sso/settings.js'
import { idIn, present } from './checked.js'
import { importDocument } from './content.js'
import {
  createExpert,
  createStaff,
  expertBody,
  inquiryBody,
  type Tenant,
  type TestContext,
} from './harness.js'
import { multipart, testImage, testPdf } from './images.js'
import { seedCandidate } from './works.js'

let contentKey = 0

/**
 * An expert of `owner`, its name telling its organization apart: usernames are per organization, so
 * another organization's expert addressed under ours must not meet a namesake of ours.
 */
function expertOf(ctx: TestContext, owner: Tenant): Promise<string> {
  return createExpert(ctx, owner, { lastname: `Hopper Org${owner.orgId}` })
}

/** Stores a media inquiry in `owner`'s organization; returns its id. */
async function createInquiryOf(ctx: TestContext, owner: Tenant): Promise<number> {
  const response = await ctx.inject({
    method: 'POST',
    url: `/v2/organization/${owner.orgId}/inquiry/media`,
    headers: owner.auth,
    payload: inquiryBody('media', await expertOf(ctx, owner)),
  })
  if (response.statusCode !== 200) throw new Error(`create inquiry failed: ${response.body}`)
  return idIn(response)
}

/** Imports one post and one question into `owner`'s organization (published unless told); returns their ids. */
async function createContent(
  ctx: TestContext,
  owner: Tenant,
  published: 0 | 1 = 1,
): Promise<{ spotlight: number; question: number }> {
  const key = `security-${++contentKey}`
  const result = await importDocument(ctx, owner.orgId, {
    spotlights: [{ key, title: 'A post', html: '<p>Text</p>', published }],
    questions: [{ key, question: 'A question?', published }],
  })
  return { spotlight: present(result.ids.spotlights[0]), question: present(result.ids.questions[0]) }
}

/** The flags of an expert the public may not see: unpublished, or published but private. */
const HIDDEN_FLAGS = [
  { is_published: 0, is_private: 0 },
  { is_published: 1, is_private: 1 },
]

type Flags = { is_published: number; is_private: number }

/** The flags of a profile the public sees. */
const VISIBLE: Flags = { is_published: 1, is_private: 0 }

/** Sets the flags of `owner`'s profile `username` under `segment` (`expert` or `staff`). */
async function setFlags(ctx: TestContext, owner: Tenant, segment: string, username: string, flags: Flags) {
  const response = await ctx.inject({
    method: 'PUT',
    url: `/v2/organization/${owner.orgId}/${segment}/${username}`,
    headers: owner.auth,
    payload: flags,
  })
  if (response.statusCode !== 200) throw new Error(`setting flags failed: ${response.body}`)
  return username
}

/** An expert of `owner` with the given flags (published and public by default, as the public sees). */
async function flaggedExpert(ctx: TestContext, owner: Tenant, flags: Flags = VISIBLE): Promise<string> {
  return setFlags(ctx, owner, 'expert', await expertOf(ctx, owner), flags)
}

/**
 * Every protected route, described once so the shared security suite can run against each.
 * `build(ctx, corporation, owner)` returns a request that would succeed for `owner` on `corporation`;
 * `record` routes also address a record owned by `owner`, so that another organization's record
 * can be shown to be a 404.
 */
export interface ProtectedRoute {
  name: string
  /** The registered routes (`METHOD /url/:param`) this entry stands for; the suite fails on any route no entry covers. */
  covers: string[]
  /** Addresses a record (expert, post, question) that belongs to an organization. */
  record: boolean
  /** The scope a token needs here (CONTRACT §13); the suite checks the route asks for exactly it. */
  scope: Scope
  build(ctx: TestContext, corporation: number, owner: Tenant): Promise<InjectOptions>
  /**
   * `read:public` routes that address a record: requests for records of `owner` the public may not see
   * (an unpublished or private expert, an unpublished post), each a 200 with `read` and a 404 with
   * `read:public` only.
   */
  hidden?(ctx: TestContext, corporation: number, owner: Tenant): Promise<InjectOptions[]>
  /**
   * Only an owner person may make this request (single sign-on's writes): a client holding the scope
   * gets 403 forbidden, and the control cases use an owner's dashboard token.
   */
  ownerOnly?: true
  /** The status of a success when it is not 200 (a refresh now answers 202 Accepted). */
  success?: 202
  /** A success that is a file to download, not a JSON envelope: its content type. */
  file?: string
  /**
   * A step of a draft's review that a person's role alone does not decide (its author submits it; another
   * reviewer approves or returns it; only they read it): the people suite tests it in a case of its own.
   */
  draftStep?: true
}

export const PROTECTED_ROUTES: ProtectedRoute[] = [
  {
    name: 'GET expert',
    scope: 'read:public',
    covers: ['GET /v2/organization/:corporation/expert/:username'],
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/expert/${await flaggedExpert(ctx, owner)}`,
    }),
    hidden: async (ctx, corporation, owner) =>
      Promise.all(
        HIDDEN_FLAGS.map(async (flags) => ({
          method: 'GET' as const,
          url: `/v2/organization/${corporation}/expert/${await flaggedExpert(ctx, owner, flags)}`,
        })),
      ),
  },
  {
    name: 'POST expert',
    scope: 'write',
    covers: ['POST /v2/organization/:corporation/expert'],
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
    covers: ['PUT /v2/organization/:corporation/expert/:username'],
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'PUT',
      url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}`,
      payload: { job_title: 'Changed' },
    }),
  },
  {
    name: 'DELETE expert',
    scope: 'write',
    covers: ['DELETE /v2/organization/:corporation/expert/:username'],
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'DELETE',
      url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}`,
    }),
  },
  ...(['donor', 'event'] as const).map(
    (kind): ProtectedRoute => ({
      name: `POST ${kind} inquiry`,
      scope: 'inquiries:create',
      covers: [`POST /v2/organization/:corporation/inquiry/${kind}`],
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/inquiry/${kind}`,
        payload: inquiryBody(kind, await expertOf(ctx, owner)),
      }),
    }),
  ),
  {
    name: 'GET spotlight',
    scope: 'read:public',
    covers: ['GET /v2/spotlight/:corporation/:id'],
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/spotlight/${corporation}/${(await createContent(ctx, owner)).spotlight}`,
    }),
    hidden: async (ctx, corporation, owner) => [
      {
        method: 'GET',
        url: `/v2/spotlight/${corporation}/${(await createContent(ctx, owner, 0)).spotlight}`,
      },
    ],
  },
  {
    name: 'GET qanda',
    scope: 'read:public',
    covers: ['GET /v2/qanda/:corporation/:id'],
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/qanda/${corporation}/${(await createContent(ctx, owner)).question}`,
    }),
    hidden: async (ctx, corporation, owner) => [
      { method: 'GET', url: `/v2/qanda/${corporation}/${(await createContent(ctx, owner, 0)).question}` },
    ],
  },
  {
    name: 'GET expert search',
    covers: ['GET /v2/organization/:corporation/expert'],
    scope: 'read:public',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/expert?q=grace&topics[]=navy`,
    }),
  },
  {
    name: 'GET spotlight search',
    covers: ['GET /v2/spotlight/:corporation/search'],
    scope: 'read:public',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/spotlight/${corporation}/search?q=post`,
    }),
  },
  {
    name: 'GET qanda search',
    covers: ['GET /v2/qanda/:corporation/search'],
    scope: 'read:public',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/qanda/${corporation}/search?q=question`,
    }),
  },
  ...(['general', 'media', 'partnership', 'admission', 'research', 'business', 'expertwitness'] as const).map(
    (kind): ProtectedRoute => ({
      name: `POST ${kind} inquiry`,
      covers: [`POST /v2/organization/:corporation/inquiry/${kind}`],
      scope: 'inquiries:create',
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/inquiry/${kind}`,
        payload: inquiryBody(kind, await expertOf(ctx, owner)),
      }),
    }),
  ),
  {
    name: 'GET inquiries',
    covers: ['GET /v2/organization/:corporation/inquiry'],
    scope: 'inquiries:read',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/inquiry?page_size=5`,
    }),
  },
  {
    name: 'GET inquiry',
    covers: ['GET /v2/organization/:corporation/inquiry/:id'],
    scope: 'inquiries:read',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/inquiry/${await createInquiryOf(ctx, owner)}`,
    }),
  },
  {
    name: 'GET inquiry assignees',
    covers: ['GET /v2/organization/:corporation/inquiry/assignees'],
    scope: 'inquiries:read',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/inquiry/assignees`,
    }),
  },
  {
    name: 'GET inquiries export by sender',
    covers: ['GET /v2/organization/:corporation/inquiry'],
    scope: 'admin',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/inquiry?email=ada%40example.org`,
    }),
  },
  {
    name: 'DELETE inquiries by sender',
    covers: ['DELETE /v2/organization/:corporation/inquiry'],
    scope: 'admin',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'DELETE',
      url: `/v2/organization/${corporation}/inquiry?email=nobody%40example.org`,
    }),
  },
  {
    name: 'PATCH inquiry',
    covers: ['PATCH /v2/organization/:corporation/inquiry/:id'],
    scope: 'inquiries:handle',
    record: true,
    build: async (ctx, corporation, owner) => ({
      method: 'PATCH',
      url: `/v2/organization/${corporation}/inquiry/${await createInquiryOf(ctx, owner)}`,
      payload: { status: 'closed', notes: 'Handled' },
    }),
  },
  {
    name: 'GET notifications',
    covers: ['GET /v2/organization/:corporation/notifications'],
    scope: 'admin',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/notifications`,
    }),
  },
  {
    name: 'PUT notifications',
    covers: ['PUT /v2/organization/:corporation/notifications'],
    scope: 'admin',
    record: false,
    build: async (_ctx, corporation) => ({
      method: 'PUT',
      url: `/v2/organization/${corporation}/notifications`,
      payload: { media: { recipients: ['press@example.org'], desk: 1 } },
    }),
  },
  ...ssoRoutes(),
  ...profileWriteRoutes(),
  ...staffRoutes(),
  ...csvImportRoutes(),
  ...mediaRoutes(),
  ...adminRoutes(),
  ...worksRoutes(),
  ...meaningRoutes(),
  ...editorialRoutes(),
  ...delegateRoutes(),
]

/**
 * The editorial workflow (CONTRACT §21): its settings under `admin`, an expert's publish checklist, and
 * the versions of profiles, posts and Q&A items (read with `read`, restored with `write`).
 */
function editorialRoutes(): ProtectedRoute[] {
  const expertBase = '/v2/organization/:corporation/expert/:username'
  /** A profile of `owner` (an expert or a staff member) with its first version; its username and the version's id. */
  const withVersion = async (ctx: TestContext, owner: Tenant, segment: 'expert' | 'staff') => {
    const username =
      segment === 'expert'
        ? await expertOf(ctx, owner)
        : await createStaff(ctx, owner, { lastname: `Turing Org${owner.orgId}` })
    const row = await ctx.testDatabase.database.db
      .selectFrom('record_versions')
      .innerJoin('experts', 'experts.id', 'record_versions.record_id')
      .select('record_versions.id')
      .where('record_versions.org_id', '=', owner.orgId)
      .where('record_versions.record_kind', '=', 'profile')
      .where('experts.org_id', '=', owner.orgId)
      .where('experts.username', '=', username)
      .executeTakeFirstOrThrow()
    return { username, version: Number(row.id) }
  }
  const profileRoutes = (segment: 'expert' | 'staff'): ProtectedRoute[] => {
    const base = `/v2/organization/:corporation/${segment}/:username`
    return [
      {
        name: `GET ${segment} versions`,
        scope: 'read',
        covers: [`GET ${base}/versions`],
        record: true,
        build: async (ctx, corporation, owner) => ({
          method: 'GET',
          url: `/v2/organization/${corporation}/${segment}/${(await withVersion(ctx, owner, segment)).username}/versions`,
        }),
      },
      {
        name: `GET ${segment} version`,
        scope: 'read',
        covers: [`GET ${base}/versions/:id`],
        record: true,
        build: async (ctx, corporation, owner) => {
          const { username, version } = await withVersion(ctx, owner, segment)
          return {
            method: 'GET',
            url: `/v2/organization/${corporation}/${segment}/${username}/versions/${version}`,
          }
        },
      },
      {
        name: `POST ${segment} version restore`,
        scope: 'write',
        covers: [`POST ${base}/versions/:id/restore`],
        record: true,
        build: async (ctx, corporation, owner) => {
          const { username, version } = await withVersion(ctx, owner, segment)
          return {
            method: 'POST',
            url: `/v2/organization/${corporation}/${segment}/${username}/versions/${version}/restore`,
          }
        },
      },
    ]
  }
  /** A post or question of `owner` written through the API (so it has a version); its id and the version's. */
  const itemWithVersion = async (ctx: TestContext, owner: Tenant, path: 'spotlight' | 'qanda') => {
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/${path}/${owner.orgId}`,
      headers: owner.auth,
      payload: path === 'spotlight' ? { title: 'A post', html: '<p>Text</p>' } : { question: 'A question?' },
    })
    const id = idIn(response)
    const row = await ctx.testDatabase.database.db
      .selectFrom('record_versions')
      .select('id')
      .where('org_id', '=', owner.orgId)
      .where('record_kind', '=', path === 'spotlight' ? 'spotlight' : 'question')
      .where('record_id', '=', id)
      .executeTakeFirstOrThrow()
    return { id, version: Number(row.id) }
  }
  const itemRoutes = (path: 'spotlight' | 'qanda'): ProtectedRoute[] => [
    {
      name: `GET ${path} versions`,
      scope: 'read',
      covers: [`GET /v2/${path}/:corporation/:id/versions`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/${path}/${corporation}/${(await itemWithVersion(ctx, owner, path)).id}/versions`,
      }),
    },
    {
      name: `GET ${path} version`,
      scope: 'read',
      covers: [`GET /v2/${path}/:corporation/:id/versions/:version`],
      record: true,
      build: async (ctx, corporation, owner) => {
        const { id, version } = await itemWithVersion(ctx, owner, path)
        return { method: 'GET', url: `/v2/${path}/${corporation}/${id}/versions/${version}` }
      },
    },
    {
      name: `POST ${path} version restore`,
      scope: 'write',
      covers: [`POST /v2/${path}/:corporation/:id/versions/:version/restore`],
      record: true,
      build: async (ctx, corporation, owner) => {
        const { id, version } = await itemWithVersion(ctx, owner, path)
        return { method: 'POST', url: `/v2/${path}/${corporation}/${id}/versions/${version}/restore` }
      },
    },
  ]
  return [
    {
      name: 'GET workflow',
      scope: 'admin',
      covers: ['GET /v2/organization/:corporation/workflow'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/workflow`,
      }),
    },
    {
      name: 'PUT workflow',
      scope: 'admin',
      covers: ['PUT /v2/organization/:corporation/workflow'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'PUT',
        url: `/v2/organization/${corporation}/workflow`,
        // No review and no gate: the suites' later writes stay live and publishable (drafts have their own tests).
        payload: {
          review: { roles: [], sections: null },
          gate: { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: null },
        },
      }),
    },
    {
      name: 'GET expert checklist',
      scope: 'read',
      covers: [`GET ${expertBase}/checklist`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/checklist`,
      }),
    },
    ...profileRoutes('expert'),
    ...profileRoutes('staff'),
    ...itemRoutes('spotlight'),
    ...itemRoutes('qanda'),
    ...draftRoutes(),
  ]
}

/** Drafts and review (CONTRACT §21): the queue and a draft read with `read`, its steps with `write`. */
function draftRoutes(): ProtectedRoute[] {
  const draftOf = (ctx: TestContext, owner: Tenant, state: 'open' | 'submitted') =>
    insertDraft(ctx, owner, state)
  const base = '/v2/organization/:corporation/drafts'
  return [
    {
      name: 'GET drafts',
      scope: 'read',
      covers: [`GET ${base}`],
      record: false,
      draftStep: true,
      build: async (_ctx, corporation) => ({ method: 'GET', url: `/v2/organization/${corporation}/drafts` }),
    },
    {
      name: 'GET draft',
      scope: 'read',
      covers: [`GET ${base}/:id`],
      record: true,
      draftStep: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/drafts/${await draftOf(ctx, owner, 'open')}`,
      }),
    },
    {
      name: 'POST draft submit',
      scope: 'write',
      covers: [`POST ${base}/:id/submit`],
      record: true,
      draftStep: true,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/drafts/${await draftOf(ctx, owner, 'open')}/submit`,
      }),
    },
    {
      name: 'POST draft approve',
      scope: 'write',
      covers: [`POST ${base}/:id/approve`],
      record: true,
      draftStep: true,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/drafts/${await draftOf(ctx, owner, 'submitted')}/approve`,
        payload: {},
      }),
    },
    {
      name: 'POST draft return',
      scope: 'write',
      covers: [`POST ${base}/:id/return`],
      record: true,
      draftStep: true,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/drafts/${await draftOf(ctx, owner, 'submitted')}/return`,
        payload: { comment: 'Say more about the work.' },
      }),
    },
  ]
}

/**
 * A draft of the account of an expert of `owner`'s, in `state`, based on the live account, by the person
 * `authorId` (default 1); its id.
 */
export async function insertDraft(
  ctx: TestContext,
  owner: Tenant,
  state: 'open' | 'submitted',
  authorId = 1,
): Promise<number> {
  const { db } = ctx.testDatabase.database
  const expert = await findExpert(db, owner.orgId, await expertOf(ctx, owner))
  if (!expert) throw new Error('no expert')
  const now = ctx.clock.now()
  const { id } = await db
    .insertInto('drafts')
    .values({
      org_id: owner.orgId,
      record_kind: 'profile',
      record_id: expert.id,
      part: 'account',
      author_id: authorId,
      state,
      changes: JSON.stringify({ job_title: 'Chief rear admiral' }),
      base: JSON.stringify(accountElement(expert)),
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return id
}

/** A profile's delegates (CONTRACT §21): listed under `read`, granted and revoked under `write`. */
function delegateRoutes(): ProtectedRoute[] {
  const base = '/v2/organization/:corporation/expert/:username/delegates'
  const until = (ctx: TestContext) => Math.floor(ctx.clock.now() / 1000) + 3600
  return [
    {
      name: 'GET delegates',
      scope: 'read',
      covers: [`GET ${base}`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/delegates`,
      }),
    },
    {
      name: 'POST delegate',
      scope: 'write',
      covers: [`POST ${base}`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/delegates`,
        payload: { person: await personOf(ctx, owner), until: until(ctx) },
      }),
    },
    {
      name: 'DELETE delegate',
      scope: 'write',
      covers: [`DELETE ${base}/:person`],
      record: true,
      build: async (ctx, corporation, owner) => {
        const username = await expertOf(ctx, owner)
        const person = await personOf(ctx, owner)
        await grantDelegate(
          cliWriteContext(ctx.testDatabase.database.db, owner.orgId, 'delegates grant', ctx.clock.now()),
          { username, personId: person, until: until(ctx) },
        )
        return {
          method: 'DELETE',
          url: `/v2/organization/${corporation}/expert/${username}/delegates/${person}`,
        }
      },
    },
  ]
}

/** Finding experts by meaning (CONTRACT §20): similar experts, experts for a text, concepts, related topics. */
function meaningRoutes(): ProtectedRoute[] {
  const base = '/v2/organization/:corporation/expert/:username'
  const withTopic = async (ctx: TestContext, owner: Tenant) => {
    const username = await expertOf(ctx, owner)
    const response = await ctx.inject({
      method: 'POST',
      url: `/v2/organization/${owner.orgId}/expert/${username}/topic`,
      headers: owner.auth,
      payload: { name: 'Flood risk' },
    })
    if (response.statusCode !== 200) throw new Error(`add topic failed: ${response.body}`)
    return username
  }
  return [
    {
      name: 'GET similar experts',
      scope: 'read:public',
      covers: [`GET ${base}/similar`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/expert/${await flaggedExpert(ctx, owner)}/similar`,
      }),
      hidden: async (ctx, corporation, owner) =>
        Promise.all(
          HIDDEN_FLAGS.map(async (flags) => ({
            method: 'GET' as const,
            url: `/v2/organization/${corporation}/expert/${await flaggedExpert(ctx, owner, flags)}/similar`,
          })),
        ),
    },
    {
      name: 'POST expert match',
      scope: 'read:public',
      covers: ['POST /v2/organization/:corporation/expert/match'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/expert/match`,
        payload: { text: 'Flood risk in coastal cities' },
      }),
    },
    {
      name: 'GET expert concepts',
      scope: 'read',
      covers: [`GET ${base}/concepts`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/concepts`,
      }),
    },
    {
      name: 'PUT expert concept',
      scope: 'write',
      covers: [`PUT ${base}/concepts/:concept`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'PUT',
        url: `/v2/organization/${corporation}/expert/${await withTopic(ctx, owner)}/concepts/flood-risk`,
        payload: { hidden: true },
      }),
    },
    {
      name: 'GET related topics',
      scope: 'read:public',
      covers: ['GET /v2/organization/:corporation/topic/related'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/topic/related?topic=Flood%20risk`,
      }),
    },
  ]
}

/** The works importer (CONTRACT §19): an expert's works and runs under `read` and `write`, the run log under `read`. */
function worksRoutes(): ProtectedRoute[] {
  const base = '/v2/organization/:corporation/expert/:username/works'
  const withWork = async (ctx: TestContext, owner: Tenant) => {
    const username = await expertOf(ctx, owner)
    const id = await seedCandidate(ctx.testDatabase.database.db, owner.orgId, username, ctx.clock.now())
    return { username, id }
  }
  return [
    {
      name: 'GET works',
      scope: 'read',
      covers: [`GET ${base}`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/works`,
      }),
    },
    {
      // Another organization's expert is a 404 here too: test/works-api.test.ts.
      name: 'GET works runs',
      scope: 'read',
      covers: [`GET ${base}/runs`],
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/works/runs`,
      }),
    },
    {
      name: 'PATCH work',
      scope: 'write',
      covers: [`PATCH ${base}/:id`],
      record: true,
      build: async (ctx, corporation, owner) => {
        const { username, id } = await withWork(ctx, owner)
        return {
          method: 'PATCH',
          url: `/v2/organization/${corporation}/expert/${username}/works/${id}`,
          payload: { state: 'claimed' },
        }
      },
    },
    {
      // Another organization's expert is a 404 here too: test/works-api.test.ts.
      name: 'POST works decisions',
      scope: 'write',
      covers: [`POST ${base}/decisions`],
      record: false,
      build: async (ctx, corporation, owner) => {
        const { username, id } = await withWork(ctx, owner)
        return {
          method: 'POST',
          url: `/v2/organization/${corporation}/expert/${username}/works/decisions`,
          payload: { decisions: [{ id, state: 'hidden' }] },
        }
      },
    },
    {
      name: 'POST works refresh',
      scope: 'write',
      covers: [`POST ${base}/refresh`],
      record: false,
      success: 202,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/works/refresh`,
      }),
    },
    {
      name: 'GET imports',
      scope: 'read',
      covers: ['GET /v2/organization/:corporation/imports'],
      record: false,
      build: async (_ctx, corporation) => ({ method: 'GET', url: `/v2/organization/${corporation}/imports` }),
    },
  ]
}

let personKey = 0

/** A person of `owner` (invited, no password: nothing to hash); returns their id. */
async function personOf(ctx: TestContext, owner: Tenant): Promise<number> {
  const added = await addPerson(
    cliWriteContext(ctx.testDatabase.database.db, owner.orgId, 'people add', ctx.clock.now()),
    { email: `admin-route-${++personKey}.${owner.orgId}@example.edu`, role: 'editor' },
  )
  return added.person.id
}

/** The admin API (CONTRACT §14): clients, the webhook, people and the audit log, all under `admin`. */
function adminRoutes(): ProtectedRoute[] {
  const route = (
    name: string,
    covers: string,
    record: boolean,
    build: ProtectedRoute['build'],
  ): ProtectedRoute => ({ name, covers: [covers], scope: 'admin', record, build })
  const base = '/v2/organization/:corporation'
  /** A webhook to a closed port of this machine: the test delivery fails fast, without leaving it. */
  const withWebhook = async (ctx: TestContext, owner: Tenant) =>
    setWebhook(
      cliWriteContext(ctx.testDatabase.database.db, owner.orgId, 'webhook set', ctx.clock.now()),
      { url: 'http://127.0.0.1:9/hook' },
      webhookNetwork({ webhookAllowPrivate: true }),
    )
  return [
    route('GET clients', `GET ${base}/client`, false, async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/client`,
    })),
    route('POST client', `POST ${base}/client`, false, async (_ctx, corporation) => ({
      method: 'POST',
      url: `/v2/organization/${corporation}/client`,
      payload: { label: 'website', scope: 'read:public inquiries:create' },
    })),
    route('DELETE client', `DELETE ${base}/client/:client_id`, true, async (ctx, corporation, owner) => {
      const client = await createClient(
        ctx.testDatabase.database.db,
        owner.orgId,
        'to revoke',
        ctx.clock.now(),
      )
      return { method: 'DELETE', url: `/v2/organization/${corporation}/client/${client.client_id}` }
    }),
    route('GET webhook', `GET ${base}/webhook`, false, async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/webhook`,
    })),
    route('PUT webhook', `PUT ${base}/webhook`, false, async (_ctx, corporation) => ({
      method: 'PUT',
      url: `/v2/organization/${corporation}/webhook`,
      payload: { url: 'https://www.example.edu/hooks/expertdir' },
    })),
    route('DELETE webhook', `DELETE ${base}/webhook`, false, async (ctx, corporation, owner) => {
      await withWebhook(ctx, owner)
      return { method: 'DELETE', url: `/v2/organization/${corporation}/webhook` }
    }),
    route('POST webhook test', `POST ${base}/webhook/test`, false, async (ctx, corporation, owner) => {
      await withWebhook(ctx, owner)
      return { method: 'POST', url: `/v2/organization/${corporation}/webhook/test` }
    }),
    route('GET webhook deliveries', `GET ${base}/webhook/deliveries`, false, async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/webhook/deliveries?page_size=5`,
    })),
    route('GET people', `GET ${base}/people`, false, async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/people`,
    })),
    route('POST people', `POST ${base}/people`, false, async (_ctx, corporation) => ({
      method: 'POST',
      url: `/v2/organization/${corporation}/people`,
      payload: { email: `invited-${++personKey}@example.edu`, role: 'editor' },
    })),
    route('PUT people', `PUT ${base}/people/:id`, true, async (ctx, corporation, owner) => ({
      method: 'PUT',
      url: `/v2/organization/${corporation}/people/${await personOf(ctx, owner)}`,
      payload: { name: 'Renamed Person', role: 'inquiries' },
    })),
    route(
      'POST people invitation',
      `POST ${base}/people/:id/invitation`,
      true,
      async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/people/${await personOf(ctx, owner)}/invitation`,
      }),
    ),
    route('DELETE people', `DELETE ${base}/people/:id`, true, async (ctx, corporation, owner) => ({
      method: 'DELETE',
      url: `/v2/organization/${corporation}/people/${await personOf(ctx, owner)}`,
    })),
    route('GET audit', `GET ${base}/audit`, false, async (_ctx, corporation) => ({
      method: 'GET',
      url: `/v2/organization/${corporation}/audit?kind=expert&page_size=5`,
    })),
  ]
}

/** Sets up `owner`'s single sign-on through the service, so that reading or removing it succeeds. */
async function withSso(ctx: TestContext, owner: Tenant): Promise<void> {
  await putSsoSettings(
    {
      ...cliWriteContext(ctx.testDatabase.database.db, owner.orgId, 'sso set', ctx.clock.now()),
      secretBox: undefined,
      notices: NO_NOTICES,
    },
    SSO_SETTINGS,
  )
}

/** `owner`'s single sign-on with a domain the operator approved (verifying it again succeeds); the domain. */
async function withVerifiedDomain(ctx: TestContext, owner: Tenant): Promise<string> {
  await withSso(ctx, owner)
  const domain = `org${owner.orgId}.example.edu`
  await approveDomain(
    {
      ...cliWriteContext(ctx.testDatabase.database.db, owner.orgId, 'sso verify-domain', ctx.clock.now()),
      notices: NO_NOTICES,
    },
    domain,
  )
  return domain
}

const SSO_SETTINGS = {
  protocol: 'oidc',
  issuer: 'https://login.example.edu',
  client_id: 'expertdir',
} as const

/** The admin API of single sign-on (scope admin). */
function ssoRoutes(): ProtectedRoute[] {
  const path = '/v2/organization/:corporation/sso'
  return [
    {
      name: 'GET sso',
      covers: [`GET ${path}`],
      scope: 'admin',
      record: false,
      build: async (ctx, corporation, owner) => {
        await withSso(ctx, owner)
        return { method: 'GET', url: `/v2/organization/${corporation}/sso` }
      },
    },
    {
      name: 'PUT sso',
      covers: [`PUT ${path}`],
      scope: 'admin',
      ownerOnly: true,
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'PUT',
        url: `/v2/organization/${corporation}/sso`,
        payload: SSO_SETTINGS,
      }),
    },
    {
      name: 'DELETE sso',
      covers: [`DELETE ${path}`],
      scope: 'admin',
      ownerOnly: true,
      record: false,
      build: async (ctx, corporation, owner) => {
        await withSso(ctx, owner)
        return { method: 'DELETE', url: `/v2/organization/${corporation}/sso` }
      },
    },
    {
      name: 'POST sso domain verify',
      covers: [`POST ${path}/domains/:domain/verify`],
      scope: 'admin',
      ownerOnly: true,
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/sso/domains/${await withVerifiedDomain(ctx, owner)}/verify`,
      }),
    },
  ]
}

/** A small photo, made once, for the photo routes. */
let photo: Buffer | undefined
const aPhoto = async () => {
  photo ??= await testImage('jpeg', 240, 240)
  return photo
}

/** Creates an expert of `owner` with a photo; returns its username. */
async function expertWithPhoto(ctx: TestContext, owner: Tenant): Promise<string> {
  const username = await expertOf(ctx, owner)
  const response = await ctx.inject({
    method: 'PUT',
    url: `/v2/organization/${owner.orgId}/expert/${username}/avatar`,
    headers: { ...owner.auth, 'content-type': 'image/jpeg' },
    payload: await aPhoto(),
  })
  if (response.statusCode !== 200) throw new Error(`photo upload failed: ${response.body}`)
  return username
}

function mediaRoutes(): ProtectedRoute[] {
  return [
    {
      name: 'PUT avatar',
      covers: ['PUT /v2/organization/:corporation/expert/:username/avatar'],
      scope: 'write',
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'PUT',
        url: `/v2/organization/${corporation}/expert/${await expertOf(ctx, owner)}/avatar`,
        headers: { 'content-type': 'image/jpeg' },
        payload: await aPhoto(),
      }),
    },
    {
      name: 'DELETE avatar',
      covers: ['DELETE /v2/organization/:corporation/expert/:username/avatar'],
      scope: 'write',
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'DELETE',
        url: `/v2/organization/${corporation}/expert/${await expertWithPhoto(ctx, owner)}/avatar`,
      }),
    },
    {
      name: 'POST file',
      covers: ['POST /v2/organization/:corporation/file'],
      scope: 'write',
      record: false,
      build: async (_ctx, corporation) => {
        const body = multipart(testPdf(), { type: 'application/pdf', filename: 'cv.pdf' })
        return { method: 'POST', url: `/v2/organization/${corporation}/file`, ...body }
      },
    },
  ]
}

/** Sends `payload` to `path` as `owner` and returns the response data (for setting up records). */
async function asOwner(
  ctx: TestContext,
  owner: Tenant,
  method: 'POST' | 'PUT',
  path: string,
  payload: object,
) {
  const response = await ctx.inject({ method, url: path, headers: owner.auth, payload })
  if (response.statusCode !== 200) throw new Error(`${method} ${path} failed: ${response.body}`)
  return { id: idIn(response) }
}

/** An expert of `owner` (published and public unless told) with one article, addressed under `corporation`. */
async function expertWithArticle(
  ctx: TestContext,
  corporation: number,
  owner: Tenant,
  flags?: { is_published: number; is_private: number },
) {
  const username = await flaggedExpert(ctx, owner, flags)
  const { id } = await asOwner(
    ctx,
    owner,
    'POST',
    `/v2/organization/${owner.orgId}/expert/${username}/article`,
    {
      title: 'An article',
    },
  )
  return { base: `/v2/organization/${corporation}/expert/${username}`, id }
}

/** A published question of `owner` with one answer by one of its experts. */
async function answeredQuestion(ctx: TestContext, owner: Tenant) {
  const username = await expertOf(ctx, owner)
  const { question } = await createContent(ctx, owner)
  const { id } = await asOwner(ctx, owner, 'POST', `/v2/qanda/${owner.orgId}/${question}/answer`, {
    username,
    answer: '<p>An answer.</p>',
  })
  return { question, answer: id }
}

/** The write API (CONTRACT §9): one entry per kind of route, each covering every section it stands for. */
function profileWriteRoutes(): ProtectedRoute[] {
  const EXPERT = '/v2/organization/:corporation/expert/:username'
  const LIST_SECTIONS = STORED_SECTIONS.filter((s) => !SINGLE_SECTIONS.has(s) && !NAME_SECTIONS.has(s))
  const ELEMENT_SECTIONS = STORED_SECTIONS.filter((s) => !SINGLE_SECTIONS.has(s))
  const ONE_ELEMENT = [...SINGLE_SECTIONS]
  return [
    {
      name: 'GET profile section',
      scope: 'read:public',
      covers: PROFILE_KEYS.map((section) => `GET ${EXPERT}/${section}`),
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `${(await expertWithArticle(ctx, corporation, owner)).base}/article`,
      }),
      hidden: async (ctx, corporation, owner) =>
        Promise.all(
          HIDDEN_FLAGS.map(async (flags) => ({
            method: 'GET' as const,
            url: `${(await expertWithArticle(ctx, corporation, owner, flags)).base}/article`,
          })),
        ),
    },
    {
      name: 'GET section element',
      scope: 'read:public',
      covers: ELEMENT_SECTIONS.map((section) => `GET ${EXPERT}/${section}/:id`),
      record: true,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await expertWithArticle(ctx, corporation, owner)
        return { method: 'GET', url: `${base}/article/${id}` }
      },
      hidden: async (ctx, corporation, owner) =>
        Promise.all(
          HIDDEN_FLAGS.map(async (flags) => {
            const { base, id } = await expertWithArticle(ctx, corporation, owner, flags)
            return { method: 'GET' as const, url: `${base}/article/${id}` }
          }),
        ),
    },
    {
      name: 'POST section element',
      scope: 'write',
      covers: ELEMENT_SECTIONS.map((section) => `POST ${EXPERT}/${section}`),
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `${(await expertWithArticle(ctx, corporation, owner)).base}/link`,
        payload: { name: 'Lab', url: 'https://lab.example' },
      }),
    },
    {
      name: 'PUT section element',
      scope: 'write',
      covers: LIST_SECTIONS.map((section) => `PUT ${EXPERT}/${section}/:id`),
      record: true,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await expertWithArticle(ctx, corporation, owner)
        return { method: 'PUT', url: `${base}/article/${id}`, payload: { title: 'Renamed' } }
      },
    },
    {
      name: 'PUT section order',
      scope: 'write',
      covers: LIST_SECTIONS.map((section) => `PUT ${EXPERT}/${section}/order`),
      record: false,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await expertWithArticle(ctx, corporation, owner)
        return { method: 'PUT', url: `${base}/article/order`, payload: { ids: [id] } }
      },
    },
    {
      name: 'DELETE section element',
      scope: 'write',
      covers: ELEMENT_SECTIONS.map((section) => `DELETE ${EXPERT}/${section}/:id`),
      record: true,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await expertWithArticle(ctx, corporation, owner)
        return { method: 'DELETE', url: `${base}/article/${id}` }
      },
    },
    {
      name: 'POST single-element section',
      scope: 'write',
      covers: ONE_ELEMENT.map((section) => `POST ${EXPERT}/${section}`),
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `${(await expertWithArticle(ctx, corporation, owner)).base}/tagline`,
        payload: { tagline: 'Explains the weather' },
      }),
    },
    {
      name: 'DELETE single-element section',
      scope: 'write',
      covers: ONE_ELEMENT.map((section) => `DELETE ${EXPERT}/${section}`),
      record: false,
      build: async (ctx, corporation, owner) => {
        const { base } = await expertWithArticle(ctx, corporation, owner)
        await asOwner(ctx, owner, 'POST', `${base.replace(`/${corporation}/`, `/${owner.orgId}/`)}/tagline`, {
          tagline: 'To clear',
        })
        return { method: 'DELETE', url: `${base}/tagline` }
      },
    },
    {
      name: 'GET organization',
      scope: 'read:public',
      covers: ['GET /v2/organization/:corporation'],
      record: false,
      build: async (_ctx, corporation) => ({ method: 'GET', url: `/v2/organization/${corporation}` }),
    },
    {
      name: 'PUT organization',
      scope: 'write',
      covers: ['PUT /v2/organization/:corporation'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'PUT',
        url: `/v2/organization/${corporation}`,
        payload: { description: 'Changed by the security suite.' },
      }),
    },
    {
      name: 'POST spotlight',
      scope: 'write',
      covers: ['POST /v2/spotlight/:corporation'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'POST',
        url: `/v2/spotlight/${corporation}`,
        payload: { title: 'A post', html: '<p>Text</p>' },
      }),
    },
    {
      name: 'PUT spotlight',
      scope: 'write',
      covers: ['PUT /v2/spotlight/:corporation/:id'],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'PUT',
        url: `/v2/spotlight/${corporation}/${(await createContent(ctx, owner)).spotlight}`,
        payload: { title: 'Renamed' },
      }),
    },
    {
      name: 'DELETE spotlight',
      scope: 'write',
      covers: ['DELETE /v2/spotlight/:corporation/:id'],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'DELETE',
        url: `/v2/spotlight/${corporation}/${(await createContent(ctx, owner)).spotlight}`,
      }),
    },
    {
      name: 'POST qanda',
      scope: 'write',
      covers: ['POST /v2/qanda/:corporation'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'POST',
        url: `/v2/qanda/${corporation}`,
        payload: { question: 'A question?' },
      }),
    },
    {
      name: 'PUT qanda',
      scope: 'write',
      covers: ['PUT /v2/qanda/:corporation/:id'],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'PUT',
        url: `/v2/qanda/${corporation}/${(await createContent(ctx, owner)).question}`,
        payload: { details: 'More detail.' },
      }),
    },
    {
      name: 'DELETE qanda',
      scope: 'write',
      covers: ['DELETE /v2/qanda/:corporation/:id'],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'DELETE',
        url: `/v2/qanda/${corporation}/${(await createContent(ctx, owner)).question}`,
      }),
    },
    {
      name: 'POST answer',
      scope: 'write',
      covers: ['POST /v2/qanda/:corporation/:id/answer'],
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `/v2/qanda/${corporation}/${(await createContent(ctx, owner)).question}/answer`,
        payload: { username: await expertOf(ctx, owner), answer: 'An answer.' },
      }),
    },
    {
      name: 'PUT answer',
      scope: 'write',
      covers: ['PUT /v2/qanda/:corporation/:id/answer/:answer_id'],
      record: true,
      build: async (ctx, corporation, owner) => {
        const { question, answer } = await answeredQuestion(ctx, owner)
        return {
          method: 'PUT',
          url: `/v2/qanda/${corporation}/${question}/answer/${answer}`,
          payload: { answer: 'New.' },
        }
      },
    },
    {
      name: 'DELETE answer',
      scope: 'write',
      covers: ['DELETE /v2/qanda/:corporation/:id/answer/:answer_id'],
      record: true,
      build: async (ctx, corporation, owner) => {
        const { question, answer } = await answeredQuestion(ctx, owner)
        return { method: 'DELETE', url: `/v2/qanda/${corporation}/${question}/answer/${answer}` }
      },
    },
  ]
}

/** A staff member of `owner`, named after its organization: usernames are per organization, so another
 * organization's record must not share a name with one of the tenant's own. */
function staffOf(ctx: TestContext, owner: Tenant) {
  return createStaff(ctx, owner, { lastname: `Turing Org${owner.orgId}` })
}

/** A staff member of `owner` with the given flags (published and public by default, as the public sees). */
async function flaggedStaff(ctx: TestContext, owner: Tenant, flags: Flags = VISIBLE): Promise<string> {
  return setFlags(ctx, owner, 'staff', await staffOf(ctx, owner), flags)
}

/** A staff member of `owner` with one link, addressed under `corporation`. */
async function staffWithLink(ctx: TestContext, corporation: number, owner: Tenant, flags?: Flags) {
  const username = await flaggedStaff(ctx, owner, flags)
  const { id } = await asOwner(ctx, owner, 'POST', `/v2/organization/${owner.orgId}/staff/${username}/link`, {
    name: 'Office',
    url: 'https://office.example',
  })
  return { base: `/v2/organization/${corporation}/staff/${username}`, id }
}

let csvRow = 0

/** People in bulk: the CSV import and its template (CONTRACT §19). */
function csvImportRoutes(): ProtectedRoute[] {
  const IMPORT = '/v2/organization/:corporation/experts/import'
  return [
    {
      name: 'POST experts import',
      scope: 'write',
      covers: [`POST ${IMPORT}`],
      record: false,
      build: async (_ctx, corporation) => {
        const n = ++csvRow
        return {
          method: 'POST',
          url: `/v2/organization/${corporation}/experts/import`,
          payload: {
            csv: `key,firstname,lastname,job_title,email,company\ncsv-${n},Ada,Lovelace,Analyst,csv-${n}@org.example,Org\n`,
          },
        }
      },
    },
    {
      name: 'GET experts import template',
      scope: 'read',
      covers: [`GET ${IMPORT}/template`],
      record: false,
      file: 'text/csv',
      build: async (_ctx, corporation) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/experts/import/template`,
      }),
    },
  ]
}

/** Staff profiles and the employee list (CONTRACT §17). */
function staffRoutes(): ProtectedRoute[] {
  const STAFF = '/v2/organization/:corporation/staff'
  const MEMBER = `${STAFF}/:username`
  const ELEMENT_SECTIONS = STAFF_SECTIONS.filter((s) => !SINGLE_SECTIONS.has(s))
  const LIST_SECTIONS = ELEMENT_SECTIONS.filter((s) => !NAME_SECTIONS.has(s))
  const ONE_ELEMENT = STAFF_SECTIONS.filter((s) => SINGLE_SECTIONS.has(s))
  return [
    {
      name: 'GET staff list',
      scope: 'read:public',
      covers: [`GET ${STAFF}`],
      record: false,
      build: async (_ctx, corporation) => ({ method: 'GET', url: `/v2/organization/${corporation}/staff` }),
    },
    {
      name: 'GET employee list',
      scope: 'read:public',
      covers: ['GET /v2/organization/:corporation/employee'],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/employee?page_size=5`,
      }),
    },
    {
      name: 'POST staff',
      scope: 'write',
      covers: [`POST ${STAFF}`],
      record: false,
      build: async (_ctx, corporation) => ({
        method: 'POST',
        url: `/v2/organization/${corporation}/staff`,
        payload: expertBody(),
      }),
    },
    {
      name: 'GET staff member',
      scope: 'read:public',
      covers: [`GET ${MEMBER}`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `/v2/organization/${corporation}/staff/${await flaggedStaff(ctx, owner)}`,
      }),
      hidden: async (ctx, corporation, owner) =>
        Promise.all(
          HIDDEN_FLAGS.map(async (flags) => ({
            method: 'GET' as const,
            url: `/v2/organization/${corporation}/staff/${await flaggedStaff(ctx, owner, flags)}`,
          })),
        ),
    },
    {
      name: 'PUT staff member',
      scope: 'write',
      covers: [`PUT ${MEMBER}`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'PUT',
        url: `/v2/organization/${corporation}/staff/${await staffOf(ctx, owner)}`,
        payload: { job_title: 'Changed' },
      }),
    },
    {
      name: 'DELETE staff member',
      scope: 'write',
      covers: [`DELETE ${MEMBER}`],
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'DELETE',
        url: `/v2/organization/${corporation}/staff/${await staffOf(ctx, owner)}`,
      }),
    },
    {
      name: 'GET staff section',
      scope: 'read:public',
      covers: STAFF_SECTIONS.map((section) => `GET ${MEMBER}/${section}`),
      record: true,
      build: async (ctx, corporation, owner) => ({
        method: 'GET',
        url: `${(await staffWithLink(ctx, corporation, owner)).base}/link`,
      }),
      hidden: async (ctx, corporation, owner) =>
        Promise.all(
          HIDDEN_FLAGS.map(async (flags) => ({
            method: 'GET' as const,
            url: `${(await staffWithLink(ctx, corporation, owner, flags)).base}/link`,
          })),
        ),
    },
    {
      name: 'GET staff section element',
      scope: 'read:public',
      covers: ELEMENT_SECTIONS.map((section) => `GET ${MEMBER}/${section}/:id`),
      record: true,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await staffWithLink(ctx, corporation, owner)
        return { method: 'GET', url: `${base}/link/${id}` }
      },
      hidden: async (ctx, corporation, owner) =>
        Promise.all(
          HIDDEN_FLAGS.map(async (flags) => {
            const { base, id } = await staffWithLink(ctx, corporation, owner, flags)
            return { method: 'GET' as const, url: `${base}/link/${id}` }
          }),
        ),
    },
    {
      name: 'POST staff section element',
      scope: 'write',
      covers: ELEMENT_SECTIONS.map((section) => `POST ${MEMBER}/${section}`),
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `${(await staffWithLink(ctx, corporation, owner)).base}/language`,
        payload: { name: 'French' },
      }),
    },
    {
      name: 'PUT staff section element',
      scope: 'write',
      covers: LIST_SECTIONS.map((section) => `PUT ${MEMBER}/${section}/:id`),
      record: true,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await staffWithLink(ctx, corporation, owner)
        return { method: 'PUT', url: `${base}/link/${id}`, payload: { name: 'Front desk' } }
      },
    },
    {
      name: 'PUT staff section order',
      scope: 'write',
      covers: LIST_SECTIONS.map((section) => `PUT ${MEMBER}/${section}/order`),
      record: false,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await staffWithLink(ctx, corporation, owner)
        return { method: 'PUT', url: `${base}/link/order`, payload: { ids: [id] } }
      },
    },
    {
      name: 'DELETE staff section element',
      scope: 'write',
      covers: ELEMENT_SECTIONS.map((section) => `DELETE ${MEMBER}/${section}/:id`),
      record: true,
      build: async (ctx, corporation, owner) => {
        const { base, id } = await staffWithLink(ctx, corporation, owner)
        return { method: 'DELETE', url: `${base}/link/${id}` }
      },
    },
    {
      name: 'POST staff single-element section',
      scope: 'write',
      covers: ONE_ELEMENT.map((section) => `POST ${MEMBER}/${section}`),
      record: false,
      build: async (ctx, corporation, owner) => ({
        method: 'POST',
        url: `${(await staffWithLink(ctx, corporation, owner)).base}/tagline`,
        payload: { tagline: 'Keeps the records' },
      }),
    },
    {
      name: 'DELETE staff single-element section',
      scope: 'write',
      covers: ONE_ELEMENT.map((section) => `DELETE ${MEMBER}/${section}`),
      record: false,
      build: async (ctx, corporation, owner) => {
        const { base } = await staffWithLink(ctx, corporation, owner)
        await asOwner(ctx, owner, 'POST', `${base.replace(`/${corporation}/`, `/${owner.orgId}/`)}/tagline`, {
          tagline: 'To clear',
        })
        return { method: 'DELETE', url: `${base}/tagline` }
      },
    },
  ]
}
