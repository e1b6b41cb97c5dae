import type { FastifyReply, FastifyRequest } from 'fastify'
import { type Static, Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { audienceOf } from '../derived/audience.js'
import { draftResponse } from '../drafts/schemas.js'
import { draftSection } from '../drafts/service.js'
import { Created, Deleted, ErrorEnvelope, ok, Success, Updated } from '../http/envelope.js'
import { ExpertParams } from '../http/params.js'
import { route } from '../http/typed-routes.js'
import { expertTarget } from '../kept-reads/read-targets.js'
import { profileCondition } from '../profiles/preconditions.js'
import { PROFILE_KEYS, profileKeySchema, readProfile } from '../profiles/read.js'
import {
  isStoredSection,
  MAX_SECTION_ELEMENTS,
  NAME_SECTIONS,
  pascal,
  SINGLE_SECTIONS,
  type StoredSection,
  sectionBody,
  sectionOutput,
} from '../profiles/section-fields.js'
import {
  addElement,
  deleteElement,
  getElement,
  listElements,
  reorderElements,
  updateElement,
} from '../profiles/sections.js'
import { isObject } from '../validation/guards.js'
import { Id } from '../validation/text.js'
import type { ProfileKind } from './profile-type.js'
import { IfMatchHeaders } from './schemas.js'

/**
 * The write API (CONTRACT §9) of a profile's sections, the same for every kind of profile: each
 * resource's route file registers them under its own paths (experts in ./routes.ts, staff members in
 * src/staff/routes.ts).
 */

type Body = Record<string, unknown>

const errors = { '4xx': ErrorEnvelope }
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

/** Sections of the expert profile served but not written (CONTRACT §9): GET only, any other method 405. */
export const READ_ONLY_SECTIONS = PROFILE_KEYS.filter((key) => !isStoredSection(key))

/** GET of a read-only section of an expert's profile. */
export function readOnlySectionRoute(context: AppContext, section: (typeof READ_ONLY_SECTIONS)[number]) {
  const { db } = context
  return route({
    schema: {
      operationId: `getExpert${pascal(section)}`,
      tags: ['profile sections'],
      summary: `Get the ${section} section of an expert (read-only here)`,
      params: ExpertParams,
      response: {
        200: Success(Type.Object({ [section]: profileKeySchema(section) })),
        ...errors,
      },
    },
    config: { scope: 'read:public', readTarget: expertTarget('expert') },
    handler: async (request) => {
      const { corporation, username } = request.params
      const audience = audienceOf(request.principal.scopes)
      const profile = await readProfile(db, corporation, username, 'expert', audience)
      return ok({ [section]: profile[section] })
    },
  })
}

/**
 * The routes of one stored section of `kind`'s profiles, by the section's kind: a `single` element
 * (`set`, `clear`), or a list or name set (`get`, `create`, `delete`; a list also `update`, `reorder`).
 * The caller registers `list` and `set`/`create` at the section's path, `clear` there too, the
 * element routes at `.../:id` and `reorder` at `.../order`.
 */
export function sectionRoutes(context: AppContext, kind: ProfileKind, section: StoredSection) {
  const { db } = context
  const { type, operation, noun } = kind
  const name = pascal(section)
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

  const list = route({
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
    handler: async (request) => {
      const audience = audienceOf(request.principal.scopes)
      return ok({
        [section]: await listElements(db, request.params.corporation, who(request.params), section, audience),
      })
    },
  })

  if (single)
    return {
      single: true as const,
      list,
      set: route({
        schema: {
          operationId: `set${operation}${name}`,
          tags,
          summary: `Set the ${section} of ${noun}: the given fields create or replace the stored ones`,
          params: ExpertParams,
          headers: IfMatchHeaders,
          body: sectionBody(section, 'patch'),
          response: { 200: Success(Updated), ...draftResponse, ...errors },
        },
        config: { scope: 'write' },
        ...withAliases,
        handler: async (request, reply) => {
          const profile = writer(request, reply, request.params)
          const write = writeContextOf(request, context, request.params.corporation)
          const draft = await draftSection(write, profile, section, { op: 'add', input: request.body })
          if (draft) return reply.code(202).send(ok(draft))
          return ok(await addElement(write, { profile, section, input: request.body }))
        },
      }),
      clear: route({
        schema: {
          operationId: `clear${operation}${name}`,
          tags,
          summary: `Clear the ${section} of ${noun} (404 when not set)`,
          params: ExpertParams,
          headers: IfMatchHeaders,
          response: { 200: Success(Deleted), ...draftResponse, ...errors },
        },
        config: { scope: 'write' },
        handler: async (request, reply) => {
          const profile = writer(request, reply, request.params)
          const write = writeContextOf(request, context, request.params.corporation)
          const draft = await draftSection(write, profile, section, { op: 'delete' })
          if (draft) return reply.code(202).send(ok(draft))
          const id = await deleteElement(write, { profile, section })
          return ok({ id, deleted: true })
        },
      }),
    }

  const get = route({
    schema: {
      operationId: `get${operation}${name}Element`,
      tags,
      summary: `Get one ${section} element of ${noun}`,
      params: ElementParams,
      response: { 200: Elements, ...errors },
    },
    config: { scope: 'read:public', readTarget: expertTarget(kind.type) },
    handler: async (request) => {
      const { corporation, id } = request.params
      const audience = audienceOf(request.principal.scopes)
      return ok({
        [section]: [await getElement(db, corporation, who(request.params), section, id, audience)],
      })
    },
  })

  const create = route({
    schema: {
      operationId: `create${operation}${name}Element`,
      tags,
      summary: names
        ? `Add a ${section} to ${noun} (the existing one's id when the name is there)`
        : `Append a ${section} element to ${noun} (at most 500)`,
      params: ExpertParams,
      headers: IfMatchHeaders,
      body: sectionBody(section, 'create'),
      response: { 200: Success(Created), ...draftResponse, ...errors },
    },
    config: { scope: 'write' },
    ...withAliases,
    handler: async (request, reply) => {
      const input = inputOf(section, request.body)
      const profile = writer(request, reply, request.params)
      const write = writeContextOf(request, context, request.params.corporation)
      const draft = await draftSection(write, profile, section, { op: 'add', input })
      if (draft) return reply.code(202).send(ok(draft))
      const { id } = await addElement(write, { profile, section, input })
      return ok({ id })
    },
  })

  const update = names
    ? undefined
    : route({
        schema: {
          operationId: `update${operation}${name}Element`,
          tags,
          summary: `Update a ${section} element of ${noun} (partial)`,
          params: ElementParams,
          headers: IfMatchHeaders,
          body: sectionBody(section, 'patch'),
          response: { 200: Success(Updated), ...draftResponse, ...errors },
        },
        config: { scope: 'write' },
        ...withAliases,
        handler: async (request, reply) => {
          const { id } = request.params
          const profile = writer(request, reply, request.params)
          const write = writeContextOf(request, context, request.params.corporation)
          const draft = await draftSection(write, profile, section, { op: 'update', id, input: request.body })
          if (draft) return reply.code(202).send(ok(draft))
          const updated = await updateElement(write, { profile, section, id, input: request.body })
          return ok({ id, updated })
        },
      })

  const reorder = names
    ? undefined
    : route({
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
          response: { 200: Success(SectionOrdered), ...draftResponse, ...errors },
        },
        config: { scope: 'write' },
        handler: async (request, reply) => {
          const profile = writer(request, reply, request.params)
          const write = writeContextOf(request, context, request.params.corporation)
          const draft = await draftSection(write, profile, section, { op: 'order', ids: request.body.ids })
          if (draft) return reply.code(202).send(ok(draft))
          const order = await reorderElements(write, { profile, section, ids: request.body.ids })
          return ok({ section, ...order })
        },
      })

  const remove = route({
    schema: {
      operationId: `delete${operation}${name}Element`,
      tags,
      summary: `Delete a ${section} element of ${noun}`,
      params: ElementParams,
      headers: IfMatchHeaders,
      response: { 200: Success(Deleted), ...draftResponse, ...errors },
    },
    config: { scope: 'write' },
    handler: async (request, reply) => {
      const { id } = request.params
      const profile = writer(request, reply, request.params)
      const write = writeContextOf(request, context, request.params.corporation)
      const draft = await draftSection(write, profile, section, { op: 'delete', id })
      if (draft) return reply.code(202).send(ok(draft))
      await deleteElement(write, { profile, section, id })
      return ok({ id, deleted: true })
    },
  })

  return { single: false as const, list, get, create, update, reorder, delete: remove }
}
