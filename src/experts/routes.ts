import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { audienceOf } from '../derived/audience.js'
import { searchTarget } from '../derived/read-targets.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { typedRoutes } from '../http/typed-routes.js'
import { STORED_SECTIONS } from '../profiles/section-fields.js'
import { parseSearchQuery } from '../search/query-string.js'
import { ExpertSearchQuery, ExpertSearchResult, SearchParams } from '../search/schemas.js'
import { searchExperts } from '../search/service.js'
import {
  createProfileRoute,
  deleteProfileRoute,
  readProfileRoute,
  updateProfileRoute,
} from './account-routes.js'
import { EXPERT_KIND } from './profile-type.js'
import { READ_ONLY_SECTIONS, readOnlySectionRoute, sectionRoutes } from './section-routes.js'

const errors = { '4xx': ErrorEnvelope }

/**
 * The experts' collection and each expert's profile: its read, create (POST), search (GET), update,
 * delete, and its sections. The photo's routes are in ./avatar-routes.ts. The order of registration is
 * the order of the OpenAPI document.
 */
export async function expertRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const target = { db: context.db, dialect: context.database.dialect }

  app.get(
    '/v2/organization/:corporation/expert/:username',
    readProfileRoute(context, EXPERT_KIND, 'getExpert'),
  )
  app.post('/v2/organization/:corporation/expert', createProfileRoute(context, EXPERT_KIND, 'createExpert'))
  app.get(
    '/v2/organization/:corporation/expert',
    {
      schema: {
        operationId: 'searchExperts',
        tags: ['search'],
        summary: "Search and list the organization's experts, with facet counts",
        params: SearchParams,
        querystring: ExpertSearchQuery,
        response: { 200: Success(ExpertSearchResult), ...errors },
      },
      config: { scope: 'read:public', readTarget: searchTarget },
      preValidation: parseSearchQuery,
    },
    async (request) =>
      ok(
        await searchExperts(
          target,
          request.params.corporation,
          request.query,
          audienceOf(request.principal.scopes),
        ),
      ),
  )
  app.put(
    '/v2/organization/:corporation/expert/:username',
    updateProfileRoute(context, EXPERT_KIND, 'updateExpert'),
  )
  app.delete(
    '/v2/organization/:corporation/expert/:username',
    deleteProfileRoute(context, EXPERT_KIND, 'deleteExpert'),
  )

  for (const section of STORED_SECTIONS) {
    const routes = sectionRoutes(context, EXPERT_KIND, section)
    app.get(`/v2/organization/:corporation/expert/:username/${section}`, routes.list)
    if (routes.single) {
      app.post(`/v2/organization/:corporation/expert/:username/${section}`, routes.set)
      app.delete(`/v2/organization/:corporation/expert/:username/${section}`, routes.clear)
      continue
    }
    app.get(`/v2/organization/:corporation/expert/:username/${section}/:id`, routes.get)
    app.post(`/v2/organization/:corporation/expert/:username/${section}`, routes.create)
    if (routes.update) app.put(`/v2/organization/:corporation/expert/:username/${section}/:id`, routes.update)
    if (routes.reorder)
      app.put(`/v2/organization/:corporation/expert/:username/${section}/order`, routes.reorder)
    app.delete(`/v2/organization/:corporation/expert/:username/${section}/:id`, routes.delete)
  }
  for (const section of READ_ONLY_SECTIONS)
    app.get(
      `/v2/organization/:corporation/expert/:username/${section}`,
      readOnlySectionRoute(context, section),
    )
}
