import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type TSchema, Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { writeTransaction } from '../db/transactions.js'
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
import { PROFILE_KEYS, Profile, profileDocument, readProfile } from './read.js'
import {
  isStoredSection,
  NAME_SECTIONS,
  pascal,
  SINGLE_SECTIONS,
  STORED_SECTIONS,
  type StoredSection,
  sectionBody,
  sectionOutput,
} from './section-fields.js'
import { addElement, deleteElement, getElement, listElements, updateElement } from './sections.js'

type Body = Record<string, unknown>

const errors = { '4xx': ErrorEnvelope }
const EXPERT = '/v2/organization/:corporation/expert'
const ElementParams = Type.Object({ ...ExpertParams.properties, id: Id('Element id') })

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
export async function profileReadRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  app.get(
    `${EXPERT}/:username`,
    {
      schema: {
        operationId: 'getExpert',
        tags: ['experts'],
        summary: 'Get an expert profile',
        params: ExpertParams,
        response: { 200: Success(Profile), ...errors },
      },
      config: { scope: 'read' },
    },
    async (request, reply) => {
      const { corporation, username } = request.params
      const document = await profileDocument(db, corporation, username, (profile) =>
        reply.serialize(ok(profile)),
      )
      return sendDocument(reply, document)
    },
  )
}

/** Every profile section's routes and the organization profile. */
export async function profileRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  for (const section of STORED_SECTIONS) sectionRoutes(app, context, section)

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
        config: { scope: 'read' },
      },
      async (request) => {
        const profile = await readProfile(db, request.params.corporation, request.params.username)
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
      config: { scope: 'read' },
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
      const updated = await writeTransaction(db, (trx) =>
        setOrganizationProfile(trx, orgId, request.body, context.now()),
      )
      return ok({ id: orgId, updated })
    },
  )
}

/** The routes of one stored section, by its kind: list, name set or single element. */
function sectionRoutes(app: TypedApp, context: AppContext, section: StoredSection): void {
  const { db } = context
  const name = pascal(section)
  const base = `${EXPERT}/:username/${section}`
  const single = SINGLE_SECTIONS.has(section)
  const names = NAME_SECTIONS.has(section)
  const Elements = Success(Type.Object({ [section]: Type.Array(sectionOutput(section)) }))
  const tags = ['profile sections']
  const preValidation = renameAliases(section)
  const withAliases = preValidation ? { preValidation } : {}

  app.get(
    base,
    {
      schema: {
        operationId: single ? `getExpert${name}` : `listExpert${name}Elements`,
        tags,
        summary: single
          ? `Get the ${section} of an expert ([] when not set)`
          : `List the ${section} elements of an expert`,
        params: ExpertParams,
        response: { 200: Elements, ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username } = request.params
      return ok({ [section]: await listElements(db, corporation, username, section) })
    },
  )

  if (single) {
    app.post(
      base,
      {
        schema: {
          operationId: `setExpert${name}`,
          tags,
          summary: `Set the ${section} of an expert: the given fields create or replace the stored ones`,
          params: ExpertParams,
          body: sectionBody(section, 'patch'),
          response: { 200: Success(Updated), ...errors },
        },
        config: { scope: 'write' },
        ...withAliases,
      },
      async (request) => {
        const { corporation, username } = request.params
        return ok(await addElement(db, corporation, username, section, request.body, context.now()))
      },
    )
    app.delete(
      base,
      {
        schema: {
          operationId: `clearExpert${name}`,
          tags,
          summary: `Clear the ${section} of an expert (404 when not set)`,
          params: ExpertParams,
          response: { 200: Success(Deleted), ...errors },
        },
        config: { scope: 'write' },
      },
      async (request) => {
        const { corporation, username } = request.params
        const id = await deleteElement(db, corporation, username, section, undefined, context.now())
        return ok({ id, deleted: true })
      },
    )
    return
  }

  app.get(
    `${base}/:id`,
    {
      schema: {
        operationId: `getExpert${name}Element`,
        tags,
        summary: `Get one ${section} element of an expert`,
        params: ElementParams,
        response: { 200: Elements, ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username, id } = request.params
      return ok({ [section]: [await getElement(db, corporation, username, section, id)] })
    },
  )

  app.post(
    base,
    {
      schema: {
        operationId: `createExpert${name}Element`,
        tags,
        summary: names
          ? `Add a ${section} to an expert (the existing one's id when the name is there)`
          : `Append a ${section} element to an expert (at most 500)`,
        params: ExpertParams,
        body: sectionBody(section, 'create'),
        response: { 200: Success(Created), ...errors },
      },
      config: { scope: 'write' },
      ...withAliases,
    },
    async (request) => {
      const { corporation, username } = request.params
      const input = inputOf(section, request.body)
      const { id } = await addElement(db, corporation, username, section, input, context.now())
      return ok({ id })
    },
  )

  if (!names) {
    app.put(
      `${base}/:id`,
      {
        schema: {
          operationId: `updateExpert${name}Element`,
          tags,
          summary: `Update a ${section} element of an expert (partial)`,
          params: ElementParams,
          body: sectionBody(section, 'patch'),
          response: { 200: Success(Updated), ...errors },
        },
        config: { scope: 'write' },
        ...withAliases,
      },
      async (request) => {
        const { corporation, username, id } = request.params
        const updated = await updateElement(
          db,
          corporation,
          username,
          section,
          id,
          request.body,
          context.now(),
        )
        return ok({ id, updated })
      },
    )
  }

  app.delete(
    `${base}/:id`,
    {
      schema: {
        operationId: `deleteExpert${name}Element`,
        tags,
        summary: `Delete a ${section} element of an expert`,
        params: ElementParams,
        response: { 200: Success(Deleted), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const { corporation, username, id } = request.params
      await deleteElement(db, corporation, username, section, id, context.now())
      return ok({ id, deleted: true })
    },
  )
}
