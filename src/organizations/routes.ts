import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import {
  OrganizationRead,
  OrganizationUpdate,
  readOrganization,
  updateOrganizationProfile,
} from '../profiles/organization.js'

const errors = { '4xx': ErrorEnvelope }

/** The organization's public profile, which every expert profile shows (src/profiles/organization.ts). */
export async function organizationRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

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
      const updated = await updateOrganizationProfile(writeContextOf(request, context, orgId), request.body)
      return ok({ id: orgId, updated })
    },
  )
}
