import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { audienceOf } from '../derived/audience.js'
import { searchTarget } from '../derived/read-targets.js'
import { validationError } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { typedRoutes } from '../http/typed-routes.js'
import { parseQueryString } from './query-string.js'
import {
  ARRAY_PARAMETERS,
  ExpertSearchQuery,
  ExpertSearchResult,
  QuestionSearchQuery,
  QuestionSearchResult,
  SearchParams,
  SpotlightSearchQuery,
  SpotlightSearchResult,
} from './schemas.js'
import { searchExperts, searchQuestions, searchSpotlights } from './service.js'

const errors = { '4xx': ErrorEnvelope }

/** Replaces Fastify's parsed query with ours (arrays in three forms) before schema validation. */
function parseSearchQuery(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const { query, errors: problems } = parseQueryString(request.raw.url ?? '', ARRAY_PARAMETERS)
  if (problems.length > 0) {
    done(validationError(problems))
    return
  }
  request.query = query
  done()
}

/**
 * Search (CONTRACT §10): experts, posts, Q&A. `/v2/spotlight/:corporation/search` is a static
 * segment, which Fastify's router prefers over the read route's `:id`.
 */
export async function searchRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const target = { db: context.db, dialect: context.database.dialect }

  app.get(
    '/v2/organization/:corporation/expert',
    {
      schema: {
        operationId: 'searchExperts',
        tags: ['search'],
        summary: "Search and list the organization's experts, with facet counts",
        params: SearchParams,
        querystring: ExpertSearchQuery,
        response: { 200: Success(ExpertSearchResult), ...errors },
      },
      config: { scope: 'read:public', readTarget: searchTarget },
      preValidation: parseSearchQuery,
    },
    async (request) =>
      ok(
        await searchExperts(
          target,
          request.params.corporation,
          request.query,
          audienceOf(request.principal.scopes),
        ),
      ),
  )

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
