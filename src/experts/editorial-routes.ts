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
import { typedRoutes } from '../http/typed-routes.js'
import { publishChecklist } from '../workflow/gate.js'
import { Checklist } from '../workflow/schemas.js'
import { profileNotFound } from './profile-type.js'
import { findExpert } from './repository.js'

const errors = { '4xx': ErrorEnvelope }
const tags = ['editorial']

/**
 * An expert's editorial routes (CONTRACT §21, docs/editorial.md): the publish checklist, and the versions
 * of its profile with their diffs and restores. An `expert` person reaches its own (the `:username` reach).
 */
export async function expertEditorialRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context
  const profile = (username: string) => ({ kind: 'profile', type: 'expert', username }) as const

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

  app.get(
    '/v2/organization/:corporation/expert/:username/versions',
    {
      schema: {
        operationId: 'listExpertVersions',
        tags,
        summary:
          "The versions of an expert's profile, newest first: every change of its account or a section",
        params: ExpertParams,
        querystring: VersionListQuery,
        response: { 200: Success(VersionList), ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username } = request.params
      const page = { page_size: request.query.page_size ?? DEFAULT_PAGE_SIZE, cursor: request.query.cursor }
      return ok(await readVersions(db, corporation, profile(username), page))
    },
  )

  app.get(
    '/v2/organization/:corporation/expert/:username/versions/:id',
    {
      schema: {
        operationId: 'getExpertVersion',
        tags,
        summary:
          'One version of an expert profile, with what it changed (field by field; rich text also word by word)',
        params: ExpertVersionParams,
        response: { 200: Success(VersionDetail), ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username, id } = request.params
      return ok(await readVersion(db, corporation, profile(username), id))
    },
  )

  app.post(
    '/v2/organization/:corporation/expert/:username/versions/:id/restore',
    {
      schema: {
        operationId: 'restoreExpertVersion',
        tags,
        summary:
          "Restore a version of an expert profile: the part it kept becomes the profile's again, as a new change",
        params: ExpertVersionParams,
        response: { 200: Success(VersionRestored), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const { corporation, username, id } = request.params
      return ok(await restoreVersion(writeContextOf(request, context, corporation), profile(username), id))
    },
  )
}
