import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { CorporationParams } from '../experts/schemas.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import {
  DonorInquiry,
  type DonorInquiryInput,
  EventInquiry,
  type EventInquiryInput,
  IdempotencyHeaders,
  InquiryCreated,
  type InquiryKind,
} from './schemas.js'
import { createInquiry } from './service.js'

const errors = { '4xx': ErrorEnvelope }

const SCHEMAS = {
  donor: {
    body: DonorInquiry,
    operationId: 'createDonorInquiry',
    summary: 'Send a donor inquiry to an expert',
  },
  event: {
    body: EventInquiry,
    operationId: 'createEventInquiry',
    summary: 'Send an event inquiry to an expert',
  },
} as const

/** `POST /v2/organization/:corporation/inquiry/{donor,event}`. */
export async function inquiryRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  for (const kind of ['donor', 'event'] as InquiryKind[]) {
    app.post<{
      Params: { corporation: number }
      Body: DonorInquiryInput | EventInquiryInput
      Headers: { 'idempotency-key'?: string }
    }>(
      `/v2/organization/:corporation/inquiry/${kind}`,
      {
        config: { scope: 'inquiries:create' },
        schema: {
          operationId: SCHEMAS[kind].operationId,
          tags: ['inquiries'],
          summary: SCHEMAS[kind].summary,
          description:
            'Stores the inquiry durably before answering, then notifies the expert by email and the ' +
            "organization's webhook. Send an Idempotency-Key header to make retries safe.",
          params: CorporationParams,
          headers: IdempotencyHeaders,
          body: SCHEMAS[kind].body,
          response: { 200: Success(InquiryCreated), ...errors },
        },
      },
      async (request, reply) => {
        const input = { ...request.body, kind } as Parameters<typeof createInquiry>[2]
        const created = await createInquiry(
          context.db,
          request.params.corporation,
          input,
          request.headers['idempotency-key'],
          context.now(),
        )
        if (created.replayed) reply.header('idempotent-replayed', 'true')
        return ok({ id: created.id })
      },
    )
  }
}
