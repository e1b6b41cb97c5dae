import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { audienceOf } from '../derived/audience.js'
import { draftResponse } from '../drafts/schemas.js'
import { draftAccount } from '../drafts/service.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { sendDocument } from '../http/etag.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { route } from '../http/typed-routes.js'
import { expertTarget } from '../kept-reads/read-targets.js'
import { ProfileResponse, profileCondition } from '../profiles/preconditions.js'
import { profileDocument } from '../profiles/read.js'
import { discardFiles } from '../storage/records.js'
import type { ProfileKind } from './profile-type.js'
import {
  ExpertCreate,
  ExpertCreated,
  ExpertDeleted,
  ExpertUpdate,
  ExpertUpdated,
  IfMatchHeaders,
} from './schemas.js'
import { createExpert, deleteExpert, updateExpert } from './service.js'

/**
 * The routes of one profile and its collection, the same for every kind (experts in ./routes.ts, staff
 * members in src/staff/routes.ts, each under its own paths and operation ids): read, create, update, delete.
 */

const errors = { '4xx': ErrorEnvelope }

/** GET of a profile: its 46 keys, with an ETag. */
export function readProfileRoute(context: AppContext, kind: ProfileKind, operationId: string) {
  const { db } = context
  return route({
    schema: {
      operationId,
      tags: [kind.tag],
      summary: `Get the profile of ${kind.noun}`,
      params: ExpertParams,
      response: { 200: ProfileResponse, ...errors },
    },
    config: { scope: 'read:public', readTarget: expertTarget(kind.type) },
    handler: async (request, reply) => {
      const { corporation, username } = request.params
      const audience = audienceOf(request.principal.scopes)
      const document = await profileDocument(db, corporation, username, kind.type, audience, (profile) =>
        reply.serialize(ok(profile)),
      )
      return sendDocument(reply, document)
    },
  })
}

/** POST to the collection: creates a profile. */
export function createProfileRoute(context: AppContext, kind: ProfileKind, operationId: string) {
  return route({
    schema: {
      operationId,
      tags: [kind.tag],
      summary: `Create ${kind.noun}`,
      params: CorporationParams,
      body: ExpertCreate,
      response: { 200: Success(ExpertCreated), ...errors },
    },
    config: { scope: 'write' },
    handler: async (request) => {
      const write = writeContextOf(request, context, request.params.corporation)
      const username = await createExpert(write, request.body, kind.type)
      return ok({ username, inserted: true })
    },
  })
}

/** PUT of a profile: a partial update of its account, with the request's `If-Match` check. */
export function updateProfileRoute(context: AppContext, kind: ProfileKind, operationId: string) {
  return route({
    schema: {
      operationId,
      tags: [kind.tag],
      summary: `Update ${kind.noun} (partial)`,
      params: ExpertParams,
      headers: IfMatchHeaders,
      body: ExpertUpdate,
      response: { 200: Success(ExpertUpdated), ...draftResponse, ...errors },
    },
    config: { scope: 'write' },
    handler: async (request, reply) => {
      const { corporation, username } = request.params
      const write = writeContextOf(request, context, corporation)
      const draft = await draftAccount(write, { type: kind.type, username }, request.body)
      if (draft) return reply.code(202).send(ok(draft))
      return ok(
        await updateExpert(write, {
          username,
          input: request.body,
          type: kind.type,
          condition: profileCondition(request, reply, corporation, kind.type, username),
        }),
      )
    },
  })
}

/** DELETE of a profile, its sections and its stored files. */
export function deleteProfileRoute(context: AppContext, kind: ProfileKind, operationId: string) {
  return route({
    schema: {
      operationId,
      tags: [kind.tag],
      summary: `Delete ${kind.noun} and its profile sections`,
      params: ExpertParams,
      response: { 200: Success(ExpertDeleted), ...errors },
    },
    config: { scope: 'write', expertReach: false },
    handler: async (request) => {
      const { corporation, username } = request.params
      await deleteExpert(writeContextOf(request, context, corporation), {
        username,
        discard: (keys) =>
          discardFiles(context.storage, keys, (error) =>
            request.log.warn({ err: error }, 'a stored file could not be deleted; media gc will remove it'),
          ),
        type: kind.type,
      })
      return ok({ deleted: true, username })
    },
  })
}
