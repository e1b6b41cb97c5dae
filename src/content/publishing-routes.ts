import type { FastifyInstance } from 'fastify'
import type { TSchema } from 'typebox'
import type { AppContext } from '../app-context.js'
import { type WriteContext, writeContextOf } from '../audit/write-context.js'
import { CONTENT_KIND_NAMES, type ContentKind } from '../db/content-kinds.js'
import { draftResponse } from '../drafts/schemas.js'
import { draftItem } from '../drafts/service.js'
import { Created, Deleted, ErrorEnvelope, ok, Success, Updated } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import type { BodyOf, TypedApp } from '../http/typed-routes.js'
import { typedRoutes } from '../http/typed-routes.js'
import { CONTENT_API } from './kinds.js'
import { addAnswer, changeAnswer, createItem, deleteItem, removeAnswer, updateItem } from './publishing.js'
import { AnswerCreate, AnswerParams, AnswerUpdate, QuestionParams } from './schemas.js'

const errors = { '4xx': ErrorEnvelope }
const write = { scope: 'write' as const }
const posts = { tags: ['content'] }

/** What the routes of a kind call: its services, typed by its own schemas. */
interface ItemWrites<C extends TSchema, U extends TSchema> {
  create(context: WriteContext, input: BodyOf<C>): Promise<number>
  update(context: WriteContext, id: number, input: BodyOf<U>): Promise<boolean>
}

/** A kind's create, update and delete: `/v2/<path>/:corporation` and `/v2/<path>/:corporation/:id`. */
function itemRoutes<C extends TSchema, U extends TSchema>(
  app: TypedApp,
  context: AppContext,
  kind: ContentKind,
  spec: { create: C; update: U },
  writes: ItemWrites<C, U>,
) {
  const { path, params, operations } = CONTENT_API[kind]

  app.post(
    `/v2/${path}/:corporation`,
    {
      schema: {
        ...posts,
        ...operations.create,
        params: CorporationParams,
        body: spec.create,
        response: { 200: Success(Created), ...errors },
      },
      config: write,
    },
    async (request) =>
      ok({
        id: await writes.create(writeContextOf(request, context, request.params.corporation), request.body),
      }),
  )

  app.put(
    `/v2/${path}/:corporation/:id`,
    {
      schema: {
        ...posts,
        ...operations.update,
        params,
        body: spec.update,
        response: { 200: Success(Updated), ...draftResponse, ...errors },
      },
      config: write,
    },
    async (request, reply) => {
      const { corporation, id } = request.params
      const writing = writeContextOf(request, context, corporation)
      const draft = await draftItem(writing, { kind, id }, request.body)
      if (draft) return reply.code(202).send(ok(draft))
      return ok({
        id,
        updated: await writes.update(writing, id, request.body),
      })
    },
  )

  app.delete(
    `/v2/${path}/:corporation/:id`,
    {
      schema: { ...posts, ...operations.delete, params, response: { 200: Success(Deleted), ...errors } },
      config: write,
    },
    async (request) => {
      const { corporation, id } = request.params
      await deleteItem(writeContextOf(request, context, corporation), kind, id)
      return ok({ id, deleted: true })
    },
  )
}

type Api = typeof CONTENT_API

/** Each kind's services, typed by its own schemas: a post's route cannot hand a question's body on. */
const WRITES: { [K in ContentKind]: ItemWrites<Api[K]['create'], Api[K]['update']> } = {
  spotlight: {
    create: (write, input) => createItem(write, 'spotlight', input),
    update: (write, id, input) => updateItem(write, { kind: 'spotlight', id, input }),
  },
  question: {
    create: (write, input) => createItem(write, 'question', input),
    update: (write, id, input) => updateItem(write, { kind: 'question', id, input }),
  },
}

function kindRoutes<K extends ContentKind>(app: TypedApp, context: AppContext, kind: K) {
  itemRoutes<Api[K]['create'], Api[K]['update']>(app, context, kind, CONTENT_API[kind], WRITES[kind])
}

/** Writing posts (`/v2/spotlight/:corporation`) and Q&A items with their answers (`/v2/qanda/:corporation`). */
export async function publishingRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  for (const kind of CONTENT_KIND_NAMES) kindRoutes(app, context, kind)

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
