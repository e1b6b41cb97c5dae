import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { Created, Deleted, ErrorEnvelope, ok, Success, Updated } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { addAnswer, changeAnswer, createItem, deleteItem, removeAnswer, updateItem } from './publishing.js'
import {
  AnswerCreate,
  AnswerParams,
  AnswerUpdate,
  PostCreate,
  PostUpdate,
  QuestionCreate,
  QuestionParams,
  QuestionUpdate,
  SpotlightParams,
} from './schemas.js'

const errors = { '4xx': ErrorEnvelope }
const write = { scope: 'write' as const }

/** Writing posts (`/v2/spotlight/:corporation`) and Q&A items with their answers (`/v2/qanda/:corporation`). */
export async function publishingRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const posts = { tags: ['content'] }

  app.post(
    '/v2/spotlight/:corporation',
    {
      schema: {
        ...posts,
        operationId: 'createPost',
        summary: 'Create a post ("spotlight")',
        params: CorporationParams,
        body: PostCreate,
        response: { 200: Success(Created), ...errors },
      },
      config: write,
    },
    async (request) =>
      ok({
        id: await createItem(
          writeContextOf(request, context, request.params.corporation),
          'spotlights',
          request.body,
        ),
      }),
  )

  app.put(
    '/v2/spotlight/:corporation/:id',
    {
      schema: {
        ...posts,
        operationId: 'updatePost',
        summary: 'Update a post (partial; tags and tagged replace the lists)',
        params: SpotlightParams,
        body: PostUpdate,
        response: { 200: Success(Updated), ...errors },
      },
      config: write,
    },
    async (request) => {
      const { corporation, id } = request.params
      return ok({
        id,
        updated: await updateItem(writeContextOf(request, context, corporation), {
          table: 'spotlights',
          id,
          input: request.body,
        }),
      })
    },
  )

  app.delete(
    '/v2/spotlight/:corporation/:id',
    {
      schema: {
        ...posts,
        operationId: 'deletePost',
        summary: 'Delete a post',
        params: SpotlightParams,
        response: { 200: Success(Deleted), ...errors },
      },
      config: write,
    },
    async (request) => {
      const { corporation, id } = request.params
      await deleteItem(writeContextOf(request, context, corporation), 'spotlights', id)
      return ok({ id, deleted: true })
    },
  )

  app.post(
    '/v2/qanda/:corporation',
    {
      schema: {
        ...posts,
        operationId: 'createQuestion',
        summary: 'Create a Q&A item',
        params: CorporationParams,
        body: QuestionCreate,
        response: { 200: Success(Created), ...errors },
      },
      config: write,
    },
    async (request) =>
      ok({
        id: await createItem(
          writeContextOf(request, context, request.params.corporation),
          'questions',
          request.body,
        ),
      }),
  )

  app.put(
    '/v2/qanda/:corporation/:id',
    {
      schema: {
        ...posts,
        operationId: 'updateQuestion',
        summary: 'Update a Q&A item (partial; tags replace the list)',
        params: QuestionParams,
        body: QuestionUpdate,
        response: { 200: Success(Updated), ...errors },
      },
      config: write,
    },
    async (request) => {
      const { corporation, id } = request.params
      return ok({
        id,
        updated: await updateItem(writeContextOf(request, context, corporation), {
          table: 'questions',
          id,
          input: request.body,
        }),
      })
    },
  )

  app.delete(
    '/v2/qanda/:corporation/:id',
    {
      schema: {
        ...posts,
        operationId: 'deleteQuestion',
        summary: 'Delete a Q&A item and its answers',
        params: QuestionParams,
        response: { 200: Success(Deleted), ...errors },
      },
      config: write,
    },
    async (request) => {
      const { corporation, id } = request.params
      await deleteItem(writeContextOf(request, context, corporation), 'questions', id)
      return ok({ id, deleted: true })
    },
  )

  app.post(
    '/v2/qanda/:corporation/:id/answer',
    {
      schema: {
        ...posts,
        operationId: 'createAnswer',
        summary: "Add an expert's answer to a Q&A item",
        params: QuestionParams,
        body: AnswerCreate,
        response: { 200: Success(Created), ...errors },
      },
      config: write,
    },
    async (request) => {
      const { corporation, id } = request.params
      return ok({ id: await addAnswer(writeContextOf(request, context, corporation), id, request.body) })
    },
  )

  app.put(
    '/v2/qanda/:corporation/:id/answer/:answer_id',
    {
      schema: {
        ...posts,
        operationId: 'updateAnswer',
        summary: 'Update an answer (partial)',
        params: AnswerParams,
        body: AnswerUpdate,
        response: { 200: Success(Updated), ...errors },
      },
      config: write,
    },
    async (request) => {
      const { corporation, id, answer_id } = request.params
      const updated = await changeAnswer(writeContextOf(request, context, corporation), {
        questionId: id,
        answerId: answer_id,
        input: request.body,
      })
      return ok({ id: answer_id, updated })
    },
  )

  app.delete(
    '/v2/qanda/:corporation/:id/answer/:answer_id',
    {
      schema: {
        ...posts,
        operationId: 'deleteAnswer',
        summary: 'Delete an answer',
        params: AnswerParams,
        response: { 200: Success(Deleted), ...errors },
      },
      config: write,
    },
    async (request) => {
      const { corporation, id, answer_id } = request.params
      await removeAnswer(writeContextOf(request, context, corporation), id, answer_id)
      return ok({ id: answer_id, deleted: true })
    },
  )
}
