import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { ApiError, notFound, validationError } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { deskRoutes } from './desk-routes.js'
import { readInbox } from './inbox.js'
import { INQUIRY_KINDS, type InquiryKind, KIND_NAMES } from './kinds.js'
import { inquiryView } from './mapping.js'
import { exportSenderData } from './privacy.js'
import { findInquiryWithDeliveries } from './repository.js'
import {
  IdempotencyHeaders,
  INQUIRY_SCHEMAS,
  InboxQuery,
  InquiryCreated,
  InquiryList,
  InquiryParams,
  InquiryView,
  titleOf,
  toInquiryInput,
} from './schemas.js'
import { createInquiry } from './service.js'

const errors = { '4xx': ErrorEnvelope }

/** `media` -> `createMediaInquiry`, from the body schema's title. */
const operationIdOf = (kind: InquiryKind) => `create${titleOf(kind)}`

/**
 * `POST /v2/organization/:corporation/inquiry/<kind>` for every kind, and the inbox:
 * `GET /v2/organization/:corporation/inquiry` and `GET .../inquiry/:id`.
 */
export async function inquiryRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  for (const kind of KIND_NAMES) {
    app.post(
      `/v2/organization/:corporation/inquiry/${kind}`,
      {
        config: { scope: 'inquiries:create' },
        schema: {
          operationId: operationIdOf(kind),
          tags: ['inquiries'],
          summary: INQUIRY_KINDS[kind].summary,
          description:
            'Stores the inquiry durably before answering, then notifies the expert by email and the ' +
            "organization's webhook. Send an Idempotency-Key header to make retries safe.",
          params: CorporationParams,
          headers: IdempotencyHeaders,
          body: INQUIRY_SCHEMAS[kind],
          response: { 200: Success(InquiryCreated), ...errors },
        },
      },
      async (request, reply) => {
        const created = await createInquiry(
          context.database,
          request.params.corporation,
          toInquiryInput(kind, request.body),
          request.headers['idempotency-key'],
          context.now(),
        )
        if (created.replayed) reply.header('idempotent-replayed', 'true')
        return ok({ id: created.id })
      },
    )
  }

  // POST to any other name below /inquiry/ would otherwise be a 405 of `GET .../inquiry/:id`.
  app.post(
    '/v2/organization/:corporation/inquiry/:id',
    {
      config: { scope: 'inquiries:create', catchAll: true },
      schema: { hide: true, params: Type.Object({ ...CorporationParams.properties, id: Type.String() }) },
    },
    async (request) => {
      throw new ApiError(
        'not_found',
        `There is no inquiry kind "${request.params.id}": send one of ${KIND_NAMES.join(', ')}.`,
      )
    },
  )

  app.get(
    '/v2/organization/:corporation/inquiry',
    {
      config: {
        scope: 'inquiries:read',
        queryScope: { parameter: 'email', scope: 'admin' },
        expertReach: 'inquiry-list',
      },
      schema: {
        operationId: 'listInquiries',
        tags: ['inquiries'],
        summary: "The organization's inquiries, newest first, with each delivery's status",
        description:
          'Pages through the inbox with an opaque cursor: pass next_cursor back as cursor until it is null. ' +
          'Inquiries that arrive during a walk do not shift later pages: each inquiry received before the ' +
          'first page is seen exactly once. since and until (unix seconds) select received_at >= since and < until. ' +
          'With email (alone, scope admin instead of inquiries:read) it exports every inquiry sent from that ' +
          'address on one page, and records the export (docs/privacy.md).',
        params: CorporationParams,
        querystring: InboxQuery,
        response: { 200: Success(InquiryList), ...errors },
      },
    },
    async (request) => {
      const { page_size, email, ...query } = request.query
      if (email !== undefined) {
        const others = Object.keys(request.query).filter((name) => name !== 'email' && name !== 'page_size')
        if (others.length > 0) {
          throw validationError(
            others.map((field) => ({
              field,
              message: 'cannot be combined with email: an export is everything',
            })),
          )
        }
        const items = await exportSenderData(
          writeContextOf(request, context, request.params.corporation),
          email,
          request.principal.clientId,
        )
        return ok({
          inquiries: items.map((item) => inquiryView(item)),
          next_cursor: null,
        })
      }
      const page = await readInbox(context.db, request.params.corporation, { ...query, pageSize: page_size })
      return ok({
        inquiries: page.items.map((item) => inquiryView(item)),
        next_cursor: page.next_cursor,
      })
    },
  )

  app.get(
    '/v2/organization/:corporation/inquiry/:id',
    {
      config: { scope: 'inquiries:read', expertReach: 'inquiry' },
      schema: {
        operationId: 'getInquiry',
        tags: ['inquiries'],
        summary: 'One inquiry with its fields and the status of each delivery',
        params: InquiryParams,
        response: { 200: Success(InquiryView), ...errors },
      },
    },
    async (request) => {
      const found = await findInquiryWithDeliveries(context.db, request.params.corporation, request.params.id)
      if (!found) throw notFound(`Inquiry ${request.params.id}`)
      return ok(inquiryView(found))
    },
  )

  await deskRoutes(app, context)
}
