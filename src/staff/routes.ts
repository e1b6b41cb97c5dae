import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { audienceOf } from '../derived/audience.js'
import { STAFF_KIND } from '../experts/profile-type.js'
import { accountRoutes } from '../experts/routes.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { profileCondition } from '../profiles/preconditions.js'
import { profileReadRoute, profileSectionRoutes } from '../profiles/routes.js'
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
export async function staffRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const target = { db: context.db, dialect: context.database.dialect }

  app.get<{ Params: { corporation: number }; Querystring: ProfileListInput }>(
    STAFF_KIND.path,
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

  profileReadRoute(app, context, STAFF_KIND)
  accountRoutes(app, context, STAFF_KIND, profileCondition)
  profileSectionRoutes(app, context, STAFF_KIND, STAFF_SECTIONS)

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
