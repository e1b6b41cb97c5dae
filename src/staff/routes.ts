import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { audienceOf } from '../derived/audience.js'
import {
  createProfileRoute,
  deleteProfileRoute,
  readProfileRoute,
  updateProfileRoute,
} from '../experts/account-routes.js'
import { profileVersionRoutes } from '../experts/editorial-routes.js'
import { STAFF_KIND } from '../experts/profile-type.js'
import { sectionRoutes } from '../experts/section-routes.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { STAFF_SECTIONS } from '../profiles/section-fields.js'
import { EmployeeList, type ProfileListInput, ProfileListQuery, StaffList } from './schemas.js'
import { listPeople } from './service.js'

const errors = { '4xx': ErrorEnvelope }

/**
 * Staff profiles (CONTRACT §17): the vendor's `/staff` routes on the expert profile engine (account,
 * profile read, the staff sections), the staff list, and `/employee`, which lists staff and experts;
 * both lists take the expert search's `q` (ranked by relevance; by name without it).
 * All reads take `read:public`, which sees only published, non-private profiles.
 */
export async function staffRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const target = { db: context.db, dialect: context.database.dialect }

  app.get<{ Params: { corporation: number }; Querystring: ProfileListInput }>(
    '/v2/organization/:corporation/staff',
    {
      schema: {
        operationId: 'listStaff',
        tags: ['staff'],
        summary: "List or search the organization's staff members, a page at a time",
        params: CorporationParams,
        querystring: ProfileListQuery,
        response: { 200: Success(StaffList), ...errors },
      },
      config: { scope: 'read:public' },
    },
    async (request) => {
      const { people, total } = await listPeople(
        target,
        request.params.corporation,
        ['staff'],
        request.query,
        audienceOf(request.principal.scopes),
      )
      return ok({ staff: people, total })
    },
  )

  app.get('/v2/organization/:corporation/staff/:username', readProfileRoute(context, STAFF_KIND, 'getStaff'))
  app.post('/v2/organization/:corporation/staff', createProfileRoute(context, STAFF_KIND, 'createStaff'))
  app.put(
    '/v2/organization/:corporation/staff/:username',
    updateProfileRoute(context, STAFF_KIND, 'updateStaff'),
  )
  app.delete(
    '/v2/organization/:corporation/staff/:username',
    deleteProfileRoute(context, STAFF_KIND, 'deleteStaff'),
  )
  for (const section of STAFF_SECTIONS) {
    const routes = sectionRoutes(context, STAFF_KIND, section)
    app.get(`/v2/organization/:corporation/staff/:username/${section}`, routes.list)
    if (routes.single) {
      app.post(`/v2/organization/:corporation/staff/:username/${section}`, routes.set)
      app.delete(`/v2/organization/:corporation/staff/:username/${section}`, routes.clear)
      continue
    }
    app.get(`/v2/organization/:corporation/staff/:username/${section}/:id`, routes.get)
    app.post(`/v2/organization/:corporation/staff/:username/${section}`, routes.create)
    if (routes.update) app.put(`/v2/organization/:corporation/staff/:username/${section}/:id`, routes.update)
    if (routes.reorder)
      app.put(`/v2/organization/:corporation/staff/:username/${section}/order`, routes.reorder)
    app.delete(`/v2/organization/:corporation/staff/:username/${section}/:id`, routes.delete)
  }
  const versions = profileVersionRoutes(context, STAFF_KIND)
  app.get('/v2/organization/:corporation/staff/:username/versions', versions.list)
  app.get('/v2/organization/:corporation/staff/:username/versions/:id', versions.get)
  app.post('/v2/organization/:corporation/staff/:username/versions/:id/restore', versions.restore)

  app.get<{ Params: { corporation: number }; Querystring: ProfileListInput }>(
    '/v2/organization/:corporation/employee',
    {
      schema: {
        operationId: 'listEmployees',
        tags: ['staff'],
        summary: "List or search the organization's staff members and experts together, a page at a time",
        params: CorporationParams,
        querystring: ProfileListQuery,
        response: { 200: Success(EmployeeList), ...errors },
      },
      config: { scope: 'read:public' },
    },
    async (request) => {
      const { people, total } = await listPeople(
        target,
        request.params.corporation,
        ['expert', 'staff'],
        request.query,
        audienceOf(request.principal.scopes),
      )
      return ok({ employees: people, total })
    },
  )
}
