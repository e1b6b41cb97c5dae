import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { discardFiles } from '../storage/records.js'
import { ExpertCreate, ExpertCreated, ExpertDeleted, ExpertUpdate, ExpertUpdated } from './schemas.js'
import { createExpert, deleteExpert, updateExpert } from './service.js'

const errors = { '4xx': ErrorEnvelope }
const EXPERT = '/v2/organization/:corporation/expert'

/** The expert (account) routes: create, update, delete. The profile read is in src/profiles/routes.ts. */
export async function expertRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  app.post(
    EXPERT,
    {
      schema: {
        operationId: 'createExpert',
        tags: ['experts'],
        summary: 'Create an expert',
        params: CorporationParams,
        body: ExpertCreate,
        response: { 200: Success(ExpertCreated), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const username = await createExpert(db, request.params.corporation, request.body, context.now())
      return ok({ username, inserted: true })
    },
  )

  app.put(
    `${EXPERT}/:username`,
    {
      schema: {
        operationId: 'updateExpert',
        tags: ['experts'],
        summary: 'Update an expert (partial)',
        params: ExpertParams,
        body: ExpertUpdate,
        response: { 200: Success(ExpertUpdated), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const { corporation, username } = request.params
      const updated = await updateExpert(db, corporation, username, request.body, context.now())
      return ok({ username, updated })
    },
  )

  app.delete(
    `${EXPERT}/:username`,
    {
      schema: {
        operationId: 'deleteExpert',
        tags: ['experts'],
        summary: 'Delete an expert and its profile sections',
        params: ExpertParams,
        response: { 200: Success(ExpertDeleted), ...errors },
      },
      config: { scope: 'write', expertReach: false },
    },
    async (request) => {
      await deleteExpert(db, request.params.corporation, request.params.username, context.now(), (keys) =>
        discardFiles(context.storage, keys, (error) =>
          request.log.warn({ err: error }, 'a stored file could not be deleted; media gc will remove it'),
        ),
      )
      return ok({ deleted: true, username: request.params.username })
    },
  )
}
