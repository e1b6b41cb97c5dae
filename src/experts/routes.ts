import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { Profile, readProfile } from './profile.js'
import {
  CorporationParams,
  ExpertCreate,
  ExpertCreated,
  type ExpertCreateInput,
  ExpertDeleted,
  ExpertParams,
  ExpertUpdate,
  ExpertUpdated,
  type ExpertUpdateInput,
} from './schemas.js'
import { createExpert, deleteExpert, updateExpert } from './service.js'

type ExpertPath = { corporation: number; username: string }

const errors = { '4xx': ErrorEnvelope }

/** Expert profile management: `/v2/organization/:corporation/expert[/:username]`. */
export async function expertRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const { db } = context

  app.get<{ Params: ExpertPath }>(
    '/v2/organization/:corporation/expert/:username',
    {
      config: { scope: 'read' },
      schema: {
        operationId: 'getExpertProfile',
        tags: ['experts'],
        summary: 'Get an expert profile',
        params: ExpertParams,
        response: { 200: Success(Profile), ...errors },
      },
    },
    async (request) => ok(await readProfile(db, request.params.corporation, request.params.username)),
  )

  app.post<{ Params: { corporation: number }; Body: ExpertCreateInput }>(
    '/v2/organization/:corporation/expert',
    {
      config: { scope: 'write' },
      schema: {
        operationId: 'createExpert',
        tags: ['experts'],
        summary: 'Create an expert',
        params: CorporationParams,
        body: ExpertCreate,
        response: { 200: Success(ExpertCreated), ...errors },
      },
    },
    async (request) => {
      const username = await createExpert(db, request.params.corporation, request.body, context.now())
      return ok({ username, inserted: true })
    },
  )

  app.put<{ Params: ExpertPath; Body: ExpertUpdateInput }>(
    '/v2/organization/:corporation/expert/:username',
    {
      config: { scope: 'write' },
      schema: {
        operationId: 'updateExpert',
        tags: ['experts'],
        summary: 'Update an expert (partial)',
        params: ExpertParams,
        body: ExpertUpdate,
        response: { 200: Success(ExpertUpdated), ...errors },
      },
    },
    async (request) => {
      const { corporation, username } = request.params
      const updated = await updateExpert(db, corporation, username, request.body, context.now())
      return ok({ username, updated })
    },
  )

  app.delete<{ Params: ExpertPath }>(
    '/v2/organization/:corporation/expert/:username',
    {
      config: { scope: 'write' },
      schema: {
        operationId: 'deleteExpert',
        tags: ['experts'],
        summary: 'Delete an expert and its profile sections',
        params: ExpertParams,
        response: { 200: Success(ExpertDeleted), ...errors },
      },
    },
    async (request) => {
      await deleteExpert(db, request.params.corporation, request.params.username)
      return ok({ deleted: true, username: request.params.username })
    },
  )
}
