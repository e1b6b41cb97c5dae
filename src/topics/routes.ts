import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { audienceOf } from '../derived/audience.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { relatedTopics } from '../meaning/related.js'
import { DEFAULT_LIMIT, RelatedQuery, RelatedTopics } from '../meaning/schemas.js'

const errors = { '4xx': ErrorEnvelope }

/** The organization's topics (CONTRACT §20): topics related to a topic. */
export async function topicRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  app.get(
    '/v2/organization/:corporation/topic/related',
    {
      schema: {
        operationId: 'relatedTopics',
        tags: ['meaning'],
        summary: 'Topics related to a topic, by the experts who have both',
        description:
          "Normalised pointwise mutual information over the experts' concept fingerprints; a pair needs at least 3 experts. A read:public token counts only published, non-private experts. An unknown topic has no related topics.",
        params: CorporationParams,
        querystring: RelatedQuery,
        response: { 200: Success(RelatedTopics), ...errors },
      },
      config: { scope: 'read:public' },
    },
    async (request) =>
      ok({
        topics: await relatedTopics(
          context.db,
          request.params.corporation,
          request.query.topic,
          audienceOf(request.principal.scopes),
          request.query.limit ?? DEFAULT_LIMIT,
        ),
      }),
  )
}
