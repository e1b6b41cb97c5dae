import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { audienceOf } from '../derived/audience.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { listConcepts, setConceptHidden } from '../meaning/concepts.js'
import {
  ConceptList,
  ConceptParams,
  ConceptUpdate,
  ConceptView,
  DEFAULT_LIMIT,
  LimitQuery,
  MatchBody,
  SimilarExperts,
} from '../meaning/schemas.js'
import { matchExperts, similarExperts } from '../meaning/service.js'

const errors = { '4xx': ErrorEnvelope }

/**
 * Finding experts by meaning (CONTRACT §20, docs/meaning.md): an expert's similar experts, experts for a
 * pasted text, and the expert's concept fingerprint with its hidden concepts. Related topics are in
 * src/topics/routes.ts.
 */
export async function expertMeaningRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  app.get(
    '/v2/organization/:corporation/expert/:username/similar',
    {
      schema: {
        operationId: 'similarExperts',
        tags: ['meaning'],
        summary: 'Experts similar to this one, with the reasons',
        description:
          'Reciprocal rank fusion of three rankings: concept fingerprints (cosine), the words of their profiles and works ("more like this", BM25) and co-authored works; the same department adds a little. Where the operator configured embeddings, the cosine of the embeddings of the two experts is fused too (it adds no reason). Reasons: up to 3 shared concepts, co-authored works, up to 3 shared words. A read:public token sees only published, non-private experts, and reasons drawn from them only.',
        params: ExpertParams,
        querystring: LimitQuery,
        response: { 200: Success(SimilarExperts), ...errors },
      },
      config: { scope: 'read:public' },
    },
    async (request) => {
      const { corporation, username } = request.params
      return ok({
        experts: await similarExperts(
          db,
          corporation,
          username,
          audienceOf(request.principal.scopes),
          request.query.limit ?? DEFAULT_LIMIT,
          context.embeddings,
        ),
      })
    },
  )

  app.post(
    '/v2/organization/:corporation/expert/match',
    {
      schema: {
        operationId: 'matchExperts',
        tags: ['meaning'],
        summary: 'Experts for a text: a press release, an abstract or a question',
        description:
          'The text\'s most telling words ("more like this", BM25) fused with the concepts it names and the concepts of the works whose DOI or PMID it gives, and, where the operator configured embeddings, the experts nearest to the embedding of the text. It is a read: the scopes of the expert search. Reasons name the matched concepts and words.',
        params: CorporationParams,
        body: MatchBody,
        response: { 200: Success(SimilarExperts), ...errors },
      },
      config: { scope: 'read:public' },
    },
    async (request) =>
      ok({
        experts: await matchExperts(
          db,
          request.params.corporation,
          request.body.text,
          audienceOf(request.principal.scopes),
          request.body.limit ?? DEFAULT_LIMIT,
          context.embeddings,
        ),
      }),
  )

  app.get(
    '/v2/organization/:corporation/expert/:username/concepts',
    {
      schema: {
        operationId: 'listExpertConcepts',
        tags: ['meaning'],
        summary: "An expert's concept fingerprint, hidden concepts included",
        description:
          'Concepts from its topics, keywords, industries and claimed works, strongest first, each with its weight (IDF applied, L2-normalised) and whether it is hidden.',
        params: ExpertParams,
        response: { 200: Success(ConceptList), ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username } = request.params
      return ok({ concepts: await listConcepts(db, corporation, username) })
    },
  )

  app.put(
    '/v2/organization/:corporation/expert/:username/concepts/:concept',
    {
      schema: {
        operationId: 'updateExpertConcept',
        tags: ['meaning'],
        summary: 'Hide a concept of an expert, or show it again',
        description:
          'A hidden concept leaves the fingerprint, similar experts, matching and every reason, and stays hidden when the profile or its works change.',
        params: ConceptParams,
        body: ConceptUpdate,
        response: { 200: Success(ConceptView), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const { corporation, username, concept } = request.params
      return ok(
        await setConceptHidden(
          writeContextOf(request, context, corporation),
          username,
          concept,
          request.body.hidden,
        ),
      )
    },
  )
}
