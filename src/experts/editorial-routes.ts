import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import {
  ExpertVersionParams,
  VersionDetail,
  VersionList,
  VersionListQuery,
  VersionRestored,
} from '../editorial/schemas.js'
import { readVersion, readVersions, restoreVersion } from '../editorial/versions.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { DEFAULT_PAGE_SIZE } from '../http/paging.js'
import { ExpertParams } from '../http/params.js'
import { route, typedRoutes } from '../http/typed-routes.js'
import { publishChecklist } from '../workflow/gate.js'
import { Checklist } from '../workflow/schemas.js'
import { EXPERT_KIND, type ProfileKind, profileNotFound } from './profile-type.js'
import { findExpert } from './repository.js'

const errors = { '4xx': ErrorEnvelope }
const tags = ['editorial']

/**
 * The versions of a profile, the same for every kind (experts here, staff members in src/staff/routes.ts,
 * each under its own paths and operation ids): the history, one version with its diff, a restore. An
 * `expert` person reaches its own (the `:username` reach).
 */
export function profileVersionRoutes(context: AppContext, kind: ProfileKind) {
  const { db } = context
  const profile = (username: string) => ({ kind: 'profile', type: kind.type, username }) as const
  return {
    list: route({
      schema: {
        operationId: `list${kind.operation}Versions`,
        tags,
        summary: `The versions of the profile of ${kind.noun}, newest first: every change of its account or a section`,
        params: ExpertParams,
        querystring: VersionListQuery,
        response: { 200: Success(VersionList), ...errors },
      },
      config: { scope: 'read' },
      handler: async (request) => {
        const { corporation, username } = request.params
        const page = { page_size: request.query.page_size ?? DEFAULT_PAGE_SIZE, cursor: request.query.cursor }
        return ok(await readVersions(db, corporation, profile(username), page))
      },
    }),
    get: route({
      schema: {
        operationId: `get${kind.operation}Version`,
        tags,
        summary: `One version of the profile of ${kind.noun}, with what it changed (field by field; rich text also word by word)`,
        params: ExpertVersionParams,
        response: { 200: Success(VersionDetail), ...errors },
      },
      config: { scope: 'read' },
      handler: async (request) => {
        const { corporation, username, id } = request.params
        return ok(await readVersion(db, corporation, profile(username), id))
      },
    }),
    restore: route({
      schema: {
        operationId: `restore${kind.operation}Version`,
        tags,
        summary: `Restore a version of the profile of ${kind.noun}: the part it kept becomes the profile's again, as a new change`,
        params: ExpertVersionParams,
        response: { 200: Success(VersionRestored), ...errors },
      },
      config: { scope: 'write' },
      handler: async (request) => {
        const { corporation, username, id } = request.params
        return ok(await restoreVersion(writeContextOf(request, context, corporation), profile(username), id))
      },
    }),
  }
}

/**
 * An expert's editorial routes (CONTRACT §21, docs/editorial.md): the publish checklist, and the versions
 * of its profile with their diffs and restores.
 */
export async function expertEditorialRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  app.get(
    '/v2/organization/:corporation/expert/:username/checklist',
    {
      schema: {
        operationId: 'getExpertChecklist',
        tags,
        summary: "The publish gate's checklist of an expert: what it meets and what is missing",
        params: ExpertParams,
        response: { 200: Success(Checklist), ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username } = request.params
      const expert = await findExpert(db, corporation, username)
      if (!expert) throw profileNotFound('expert', username)
      return ok(await publishChecklist(db, corporation, expert.id))
    },
  )

  const versions = profileVersionRoutes(context, EXPERT_KIND)
  app.get('/v2/organization/:corporation/expert/:username/versions', versions.list)
  app.get('/v2/organization/:corporation/expert/:username/versions/:id', versions.get)
  app.post('/v2/organization/:corporation/expert/:username/versions/:id/restore', versions.restore)
}
