import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type Static, type TSchema, Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { recordAudit } from '../audit/log.js'
import { requestTrail } from '../audit/request.js'
import { writeTransaction } from '../db/transactions.js'
import { audienceOf } from '../derived/audience.js'
import { expertTarget } from '../derived/read-targets.js'
import { EXPERT_KIND, type ProfileKind } from '../experts/profile-type.js'
import { IfMatchHeaders } from '../experts/schemas.js'
import { Created, Deleted, ErrorEnvelope, ok, Success, Updated } from '../http/envelope.js'
import { sendDocument } from '../http/etag.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { type TypedApp, typedRoutes } from '../http/typed-routes.js'
import { isObject } from '../validation/guards.js'
import { Id } from '../validation/text.js'
import {
  OrganizationRead,
  OrganizationUpdate,
  readOrganization,
  setOrganizationProfile,
} from './organization.js'
import { ProfileResponse, profileCondition } from './preconditions.js'
import { PROFILE_KEYS, Profile, profileDocument, readProfile } from './read.js'
import {
  isStoredSection,
  MAX_SECTION_ELEMENTS,
  NAME_SECTIONS,
  pascal,
  SINGLE_SECTIONS,
  STORED_SECTIONS,
  type StoredSection,
  sectionBody,
  sectionOutput,
} from './section-fields.js'
import {
  addElement,
  deleteElement,
  getElement,
  listElements,
  reorderElements,
  updateElement,
} from './sections.js'

type Body = Record<string, unknown>

const errors = { '4xx': ErrorEnvelope }
const EXPERT = EXPERT_KIND.path
const ElementParams = Type.Object({ ...ExpertParams.properties, id: Id('Element id') })
const SectionOrder = Type.Object(
  {
    ids: Type.Array(Id('Element id'), {
      maxItems: MAX_SECTION_ELEMENTS,
      uniqueItems: true,
      description: 'Every element id of the section, each once, in the new order (first is shown first)',
    }),
  },
  { additionalProperties: false, title: 'SectionOrder' },
)
const SectionOrdered = Type.Object(
  {
    section: Type.String(),
    ids: Type.Array(Type.Integer(), { description: 'The element ids in the order now stored' }),
    updated: Type.Boolean({ description: 'False when the section was already in this order' }),
  },
  { title: 'SectionOrdered' },
)

/** Vendor field names accepted for ours (CONTRACT §9), renamed before validation. */
const ALIASES: Partial<Record<StoredSection, Record<string, string>>> = {
  researchgrant: { detail: 'details' },
  biography: { description: 'biography' },
  tag: { tag: 'name' },
}

function renameAliases(section: StoredSection) {
  const aliases = ALIASES[section]
  if (!aliases) return undefined
  return async (request: FastifyRequest) => {
    const body = request.body
    if (!isObject(body)) return
    for (const [alias, field] of Object.entries(aliases)) {
      if (Object.hasOwn(body, alias) && !Object.hasOwn(body, field)) {
        body[field] = body[alias]
        delete body[alias]
      }
    }
  }
}

/** A name set's `{name}` is stored as the section's own field (`tag` for tags). */
const inputOf = (section: StoredSection, body: Body): Body => (section === 'tag' ? { tag: body.name } : body)

/** Sections served but not written here (CONTRACT §9): GET only, any other method 405. */
const READ_ONLY = PROFILE_KEYS.filter((key) => !isStoredSection(key))

/**
 * The expert profile read. The app registers it before the expert (account) routes of src/experts and
 * `profileRoutes`, in the order the OpenAPI document lists them.
 */
export async function profileReadRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  profileReadRoute(app, context, EXPERT_KIND)
}

/** The profile read of one kind of profile (experts here; staff members in src/staff): 46 keys, ETag. */
export function profileReadRoute(untyped: FastifyInstance, context: AppContext, kind: ProfileKind): void {
  const app = typedRoutes(untyped)
  const { db } = context
  app.get(
    `${kind.path}/:username`,
    {
      schema: {
        operationId: `get${kind.operation}`,
        tags: [kind.tag],
        summary: `Get the profile of ${kind.noun}`,
        params: ExpertParams,
        response: { 200: ProfileResponse, ...errors },
      },
      config: { scope: 'read:public', readTarget: expertTarget(kind.type) },
    },
    async (request, reply) => {
      const { corporation, username } = request.params
      const audience = audienceOf(request.principal.scopes)
      const document = await profileDocument(db, corporation, username, kind.type, audience, (profile) =>
        reply.serialize(ok(profile)),
      )
      return sendDocument(reply, document)
    },
  )
}

/** The write API (CONTRACT §9) of the `sections` of one kind of profile, the same for every kind. */
export function profileSectionRoutes(
  untyped: FastifyInstance,
  context: AppContext,
  kind: ProfileKind,
  sections: readonly StoredSection[],
): void {
  const app = typedRoutes(untyped)
  for (const section of sections) sectionRoutes(app, context, kind, section)
}

/** Every profile section's routes and the organization profile. */
export async function profileRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  profileSectionRoutes(untyped, context, EXPERT_KIND, STORED_SECTIONS)

  const profileSchemas = Profile.properties as Record<string, TSchema>
  for (const section of READ_ONLY) {
    app.get(
      `${EXPERT}/:username/${section}`,
      {
        schema: {
          operationId: `getExpert${pascal(section)}`,
          tags: ['profile sections'],
          summary: `Get the ${section} section of an expert (read-only here)`,
          params: ExpertParams,
          response: {
            200: Success(Type.Object({ [section]: profileSchemas[section] as TSchema })),
            ...errors,
          },
        },
        config: { scope: 'read:public', readTarget: expertTarget('expert') },
      },
      async (request) => {
        const { corporation, username } = request.params
        const audience = audienceOf(request.principal.scopes)
        const profile = await readProfile(db, corporation, username, 'expert', audience)
        return ok({ [section]: profile[section] })
      },
    )
  }

  app.get(
    '/v2/organization/:corporation',
    {
      schema: {
        operationId: 'getOrganization',
        tags: ['organization'],
        summary: "Get the organization's public profile",
        params: CorporationParams,
        response: { 200: Success(OrganizationRead), ...errors },
      },
      config: { scope: 'read:public' },
    },
    async (request) => ok(await readOrganization(db, request.params.corporation)),
  )

  app.put(
    '/v2/organization/:corporation',
    {
      schema: {
        operationId: 'updateOrganization',
        tags: ['organization'],
        summary: "Set the organization's public profile (partial); every expert profile shows it",
        params: CorporationParams,
        body: OrganizationUpdate,
        response: {
          200: Success(
            Type.Object({ id: Type.Integer(), updated: Type.Boolean() }, { title: 'OrganizationUpdated' }),
          ),
          ...errors,
        },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const orgId = request.params.corporation
      const now = context.now()
      const updated = await writeTransaction(db, async (trx) => {
        const changed = await setOrganizationProfile(trx, orgId, request.body, now)
        if (changed)
          await recordAudit(trx, orgId, requestTrail(request), { kind: 'organization', id: orgId }, now)
        return changed
      })
      return ok({ id: orgId, updated })
    },
  )
}

/** The routes of one stored section, by its kind: list, name set or single element. */
function sectionRoutes(app: TypedApp, context: AppContext, kind: ProfileKind, section: StoredSection): void {
  const { db } = context
  const { type, operation, noun } = kind
  const name = pascal(section)
  const base = `${kind.path}/:username/${section}`
  const who = (params: { username: string }) => ({ type, username: params.username })
  /** Whose section a write changes, with the request's `If-Match` check. */
  const writer = (request: FastifyRequest, reply: FastifyReply, params: Static<typeof ExpertParams>) => ({
    ...who(params),
    condition: profileCondition(request, reply, params.corporation, type, params.username),
  })
  const single = SINGLE_SECTIONS.has(section)
  const names = NAME_SECTIONS.has(section)
  const Elements = Success(Type.Object({ [section]: Type.Array(sectionOutput(section)) }))
  const tags = [kind.sectionsTag]
  const preValidation = renameAliases(section)
  const withAliases = preValidation ? { preValidation } : {}

  app.get(
    base,
    {
      schema: {
        operationId: single ? `get${operation}${name}` : `list${operation}${name}Elements`,
        tags,
        summary: single
          ? `Get the ${section} of ${noun} ([] when not set)`
          : `List the ${section} elements of ${noun}`,
        params: ExpertParams,
        response: { 200: Elements, ...errors },
      },
      config: { scope: 'read:public', readTarget: expertTarget(kind.type) },
    },
    async (request) => {
      const audience = audienceOf(request.principal.scopes)
      return ok({
        [section]: await listElements(db, request.params.corporation, who(request.params), section, audience),
      })
    },
  )

  if (single) {
    app.post(
      base,
      {
        schema: {
          operationId: `set${operation}${name}`,
          tags,
          summary: `Set the ${section} of ${noun}: the given fields create or replace the stored ones`,
          params: ExpertParams,
          headers: IfMatchHeaders,
          body: sectionBody(section, 'patch'),
          response: { 200: Success(Updated), ...errors },
        },
        config: { scope: 'write' },
        ...withAliases,
      },
      async (request, reply) => {
        const { corporation } = request.params
        return ok(
          await addElement(
            db,
            corporation,
            writer(request, reply, request.params),
            section,
            request.body,
            context.now(),
            requestTrail(request),
          ),
        )
      },
    )
    app.delete(
      base,
      {
        schema: {
          operationId: `clear${operation}${name}`,
          tags,
          summary: `Clear the ${section} of ${noun} (404 when not set)`,
          params: ExpertParams,
          headers: IfMatchHeaders,
          response: { 200: Success(Deleted), ...errors },
        },
        config: { scope: 'write' },
      },
      async (request, reply) => {
        const { corporation } = request.params
        const id = await deleteElement(
          db,
          corporation,
          writer(request, reply, request.params),
          section,
          undefined,
          context.now(),
          requestTrail(request),
        )
        return ok({ id, deleted: true })
      },
    )
    return
  }

  app.get(
    `${base}/:id`,
    {
      schema: {
        operationId: `get${operation}${name}Element`,
        tags,
        summary: `Get one ${section} element of ${noun}`,
        params: ElementParams,
        response: { 200: Elements, ...errors },
      },
      config: { scope: 'read:public', readTarget: expertTarget(kind.type) },
    },
    async (request) => {
      const { corporation, id } = request.params
      const audience = audienceOf(request.principal.scopes)
      return ok({
        [section]: [await getElement(db, corporation, who(request.params), section, id, audience)],
      })
    },
  )

  app.post(
    base,
    {
      schema: {
        operationId: `create${operation}${name}Element`,
        tags,
        summary: names
          ? `Add a ${section} to ${noun} (the existing one's id when the name is there)`
          : `Append a ${section} element to ${noun} (at most 500)`,
        params: ExpertParams,
        headers: IfMatchHeaders,
        body: sectionBody(section, 'create'),
        response: { 200: Success(Created), ...errors },
      },
      config: { scope: 'write' },
      ...withAliases,
    },
    async (request, reply) => {
      const { corporation } = request.params
      const input = inputOf(section, request.body)
      const { id } = await addElement(
        db,
        corporation,
        writer(request, reply, request.params),
        section,
        input,
        context.now(),
        requestTrail(request),
      )
      return ok({ id })
    },
  )

  if (!names) {
    app.put(
      `${base}/:id`,
      {
        schema: {
          operationId: `update${operation}${name}Element`,
          tags,
          summary: `Update a ${section} element of ${noun} (partial)`,
          params: ElementParams,
          headers: IfMatchHeaders,
          body: sectionBody(section, 'patch'),
          response: { 200: Success(Updated), ...errors },
        },
        config: { scope: 'write' },
        ...withAliases,
      },
      async (request, reply) => {
        const { corporation, id } = request.params
        const updated = await updateElement(
          db,
          corporation,
          writer(request, reply, request.params),
          section,
          id,
          request.body,
          context.now(),
          requestTrail(request),
        )
        return ok({ id, updated })
      },
    )

    app.put(
      `${base}/order`,
      {
        schema: {
          operationId: `reorder${operation}${name}Elements`,
          tags,
          summary: `Reorder the ${section} elements of ${noun}`,
          description:
            'The body lists every element id of the section once, in the new order. An id the section ' +
            'lacks, or one of its ids left out (another writer added or removed an element since the ' +
            'section was read), is 409 `conflict` naming them; the section is left as it was.',
          params: ExpertParams,
          headers: IfMatchHeaders,
          body: SectionOrder,
          response: { 200: Success(SectionOrdered), ...errors },
        },
        config: { scope: 'write' },
      },
      async (request, reply) => {
        const { corporation } = request.params
        const order = await reorderElements(
          db,
          corporation,
          writer(request, reply, request.params),
          section,
          request.body.ids,
          context.now(),
          requestTrail(request),
        )
        return ok({ section, ...order })
      },
    )
  }

  app.delete(
    `${base}/:id`,
    {
      schema: {
        operationId: `delete${operation}${name}Element`,
        tags,
        summary: `Delete a ${section} element of ${noun}`,
        params: ElementParams,
        headers: IfMatchHeaders,
        response: { 200: Success(Deleted), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const { corporation, id } = request.params
      await deleteElement(
        db,
        corporation,
        writer(request, reply, request.params),
        section,
        id,
        context.now(),
        requestTrail(request),
      )
      return ok({ id, deleted: true })
    },
  )
}
