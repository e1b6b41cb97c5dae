import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { recordAudit } from '../audit/log.js'
import { requestTrail } from '../audit/request.js'
import { writeTransaction } from '../db/transactions.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import {
  OrganizationRead,
  OrganizationUpdate,
  readOrganization,
  setOrganizationProfile,
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
