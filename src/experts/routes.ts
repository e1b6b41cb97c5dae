import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { requestTrail } from '../audit/request.js'
import type { ProfileType } from '../db/schema.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { discardFiles } from '../storage/records.js'
import { EXPERT_KIND, type ProfileKind } from './profile-type.js'
import {
  ExpertCreate,
  ExpertCreated,
  ExpertDeleted,
  ExpertUpdate,
  ExpertUpdated,
  IfMatchHeaders,
} from './schemas.js'
import { createExpert, deleteExpert, updateExpert, type WriteCondition } from './service.js'

const errors = { '4xx': ErrorEnvelope }

/**
 * The `If-Match` check of a request's write to a profile, made by src/profiles/preconditions.ts (a
 * layer above this one, so the app hands it in).
 */
export type ConditionOf = (
  request: FastifyRequest,
  reply: FastifyReply,
  orgId: number,
  type: ProfileType,
  username: string,
) => WriteCondition | undefined

/** The expert (account) routes: create, update, delete. The profile read is in src/profiles/routes.ts. */
export async function expertRoutes(
  app: FastifyInstance,
  context: AppContext,
  conditionOf: ConditionOf,
): Promise<void> {
  accountRoutes(app, context, EXPERT_KIND, conditionOf)
}

/** Create, update and delete of one kind of profile (experts here; staff members in src/staff). */
export function accountRoutes(
  untyped: FastifyInstance,
  context: AppContext,
  kind: ProfileKind,
  conditionOf: ConditionOf,
): void {
  const app = typedRoutes(untyped)
  const { db } = context
  const { type, path, operation, noun, tag } = kind

  app.post(
    path,
    {
      schema: {
        operationId: `create${operation}`,
        tags: [tag],
        summary: `Create ${noun}`,
        params: CorporationParams,
        body: ExpertCreate,
        response: { 200: Success(ExpertCreated), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const username = await createExpert(
        db,
        request.params.corporation,
        request.body,
        context.now(),
        requestTrail(request),
        type,
      )
      return ok({ username, inserted: true })
    },
  )

  app.put(
    `${path}/:username`,
    {
      schema: {
        operationId: `update${operation}`,
        tags: [tag],
        summary: `Update ${noun} (partial)`,
        params: ExpertParams,
        headers: IfMatchHeaders,
        body: ExpertUpdate,
        response: { 200: Success(ExpertUpdated), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const { corporation, username } = request.params
      return ok(
        await updateExpert(
          db,
          corporation,
          username,
          request.body,
          context.now(),
          requestTrail(request),
          type,
          conditionOf(request, reply, corporation, type, username),
        ),
      )
    },
  )

  app.delete(
    `${path}/:username`,
    {
      schema: {
        operationId: `delete${operation}`,
        tags: [tag],
        summary: `Delete ${noun} and its profile sections`,
        params: ExpertParams,
        response: { 200: Success(ExpertDeleted), ...errors },
      },
      config: { scope: 'write', expertReach: false },
    },
    async (request) => {
      const { corporation, username } = request.params
      await deleteExpert(
        db,
        corporation,
        username,
        context.now(),
        (keys) =>
          discardFiles(context.storage, keys, (error) =>
            request.log.warn({ err: error }, 'a stored file could not be deleted; media gc will remove it'),
          ),
        requestTrail(request),
        type,
      )
      return ok({ deleted: true, username })
    },
  )
}
