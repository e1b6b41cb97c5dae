import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import type { AppContext } from '../app-context.js'
import { audienceOf } from '../derived/audience.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { sendDocument } from '../http/etag.js'
import { typedRoutes } from '../http/typed-routes.js'
import { itemTarget } from '../kept-reads/read-targets.js'
import { contentDocument } from './read.js'
import { QuestionParams, QuestionRead, SpotlightParams, SpotlightRead } from './schemas.js'

/** Both reads take the same path parameters. */
type ItemPath = Static<typeof SpotlightParams>

const errors = { '4xx': ErrorEnvelope }

/** Read-only content: `/v2/spotlight/:corporation/:id` and `/v2/qanda/:corporation/:id`. */
export async function contentRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context
  const send = async (
    request: { params: ItemPath; principal: FastifyRequest['principal'] },
    kind: 'spotlight' | 'question',
    reply: FastifyReply,
  ) => {
    const { corporation, id } = request.params
    const audience = audienceOf(request.principal.scopes)
    const serialize = (data: unknown) => reply.serialize(ok(data))
    return sendDocument(reply, await contentDocument(db, kind, corporation, id, audience, serialize))
  }

  app.get(
    '/v2/spotlight/:corporation/:id',
    {
      config: { scope: 'read:public', readTarget: itemTarget('spotlight') },
      schema: {
        operationId: 'getSpotlight',
        tags: ['content'],
        summary: 'Get a post ("spotlight") with its tags and page metadata',
        params: SpotlightParams,
        response: { 200: Success(SpotlightRead), ...errors },
      },
    },
    async (request, reply) => send(request, 'spotlight', reply),
  )

  app.get(
    '/v2/qanda/:corporation/:id',
    {
      config: { scope: 'read:public', readTarget: itemTarget('question') },
      schema: {
        operationId: 'getQuestion',
        tags: ['content'],
        summary: 'Get a Q&A item with its answers, tags and page metadata',
        params: QuestionParams,
        response: { 200: Success(QuestionRead), ...errors },
      },
    },
    async (request, reply) => send(request, 'question', reply),
  )
}
