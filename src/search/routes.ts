import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { audienceOf } from '../derived/audience.js'
import { searchTarget } from '../derived/read-targets.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { typedRoutes } from '../http/typed-routes.js'
import { parseSearchQuery } from './query-string.js'
import {
  QuestionSearchQuery,
  QuestionSearchResult,
  SearchParams,
  SpotlightSearchQuery,
  SpotlightSearchResult,
} from './schemas.js'
import { searchQuestions, searchSpotlights } from './service.js'

const errors = { '4xx': ErrorEnvelope }

/**
 * Search (CONTRACT §10) of posts and Q&A (the experts' search is their collection's GET, in
 * src/experts/routes.ts). `/v2/spotlight/:corporation/search` is a static segment, which Fastify's
 * router prefers over the read route's `:id`.
 */
export async function searchRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const target = { db: context.db, dialect: context.database.dialect }

  app.get(
    '/v2/spotlight/:corporation/search',
    {
      schema: {
        operationId: 'searchSpotlights',
        tags: ['search'],
        summary: 'Search posts ("spotlights"), with facet counts',
        params: SearchParams,
        querystring: SpotlightSearchQuery,
        response: { 200: Success(SpotlightSearchResult), ...errors },
      },
      config: { scope: 'read:public', readTarget: searchTarget },
      preValidation: parseSearchQuery,
    },
    async (request) =>
      ok(
        await searchSpotlights(
          target,
          request.params.corporation,
          request.query,
          audienceOf(request.principal.scopes),
        ),
      ),
  )

  app.get(
    '/v2/qanda/:corporation/search',
    {
      schema: {
        operationId: 'searchQuestions',
        tags: ['search'],
        summary: 'Search Q&A items, with facet counts',
        params: SearchParams,
        querystring: QuestionSearchQuery,
        response: { 200: Success(QuestionSearchResult), ...errors },
      },
      config: { scope: 'read:public', readTarget: searchTarget },
      preValidation: parseSearchQuery,
    },
    async (request) =>
      ok(
        await searchQuestions(
          target,
          request.params.corporation,
          request.query,
          audienceOf(request.principal.scopes),
        ),
      ),
  )
}
