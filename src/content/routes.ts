import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import type { AppContext } from '../app-context.js'
import { CONTENT_KIND_NAMES, type ContentKind } from '../db/content-kinds.js'
import { audienceOf } from '../derived/audience.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { sendDocument } from '../http/etag.js'
import { typedRoutes } from '../http/typed-routes.js'
import { itemTarget } from '../kept-reads/read-targets.js'
import { CONTENT_API } from './kinds.js'
import { contentDocument } from './read.js'
import type { SpotlightParams } from './schemas.js'

/** Both reads take the same path parameters. */
type ItemPath = Static<typeof SpotlightParams>

const errors = { '4xx': ErrorEnvelope }

/** Read-only content: each kind's `/v2/<path>/:corporation/:id` (`/v2/spotlight/...`, `/v2/qanda/...`). */
export async function contentRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context
  const send = async (
    request: { params: ItemPath; principal: FastifyRequest['principal'] },
    kind: ContentKind,
    reply: FastifyReply,
  ) => {
    const { corporation, id } = request.params
    const audience = audienceOf(request.principal.scopes)
    const serialize = (data: unknown) => reply.serialize(ok(data))
    return sendDocument(reply, await contentDocument(db, kind, corporation, id, audience, serialize))
  }

  for (const kind of CONTENT_KIND_NAMES) {
    const { path, params, read, operations } = CONTENT_API[kind]
    app.get(
      `/v2/${path}/:corporation/:id`,
      {
        config: { scope: 'read:public', readTarget: itemTarget(kind) },
        schema: {
          ...operations.read,
          tags: ['content'],
          params,
          response: { 200: Success(read), ...errors },
        },
      },
      async (request, reply) => send(request, kind, reply),
    )
  }
}
