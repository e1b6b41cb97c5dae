import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import {
  clearWebhook,
  listWebhookDeliveries,
  readWebhook,
  setWebhook,
  testWebhook,
} from '../delivery/settings.js'
import { webhookNetwork } from '../delivery/webhook-network.js'
import { notFound } from '../errors.js'
import { ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import type { TypedApp } from '../http/typed-routes.js'
import { toSeconds } from '../time.js'
import { adminErrors } from './context.js'
import {
  DEFAULT_PAGE_SIZE,
  DeliveryQuery,
  WebhookCleared,
  WebhookDeliveryList,
  WebhookSaved,
  WebhookSet,
  WebhookTestResult,
  WebhookView,
} from './schemas.js'

const PATH = '/v2/organization/:corporation/webhook'

/**
 * `GET|PUT|DELETE .../webhook` (what `expertdir webhook show|set|clear` do), a signed test event
 * (`POST .../webhook/test`) and the webhook channel's delivery log (`GET .../webhook/deliveries`).
 */
export function webhookRoutes(app: TypedApp, context: AppContext): void {
  const { db } = context
  const network = webhookNetwork(context.config)

  app.get(
    PATH,
    {
      schema: {
        operationId: 'getWebhook',
        tags: ['admin'],
        summary: "The organization's webhook URL (never its secret)",
        params: CorporationParams,
        response: { 200: Success(WebhookView), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const settings = await readWebhook(db, request.params.corporation)
      return ok({ ...settings, updated_at: toSeconds(settings.updated_at) })
    },
  )

  app.put(
    PATH,
    {
      schema: {
        operationId: 'setWebhook',
        tags: ['admin'],
        summary: 'Set the webhook URL; the answer holds a new signing secret, once',
        description:
          'Each PUT generates a new signing secret (rotation) unless keep_secret is 1. The secret signs ' +
          'X-Expertdir-Signature (docs/webhooks.md); it is not shown again.',
        params: CorporationParams,
        body: WebhookSet,
        response: { 200: Success(WebhookSaved), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request, reply) => {
      const saved = await setWebhook(
        writeContextOf(request, context, request.params.corporation),
        { url: request.body.url, keepSecret: request.body.keep_secret === 1 },
        network,
      )
      reply.header('cache-control', 'no-store')
      return ok(saved)
    },
  )

  app.delete(
    PATH,
    {
      schema: {
        operationId: 'clearWebhook',
        tags: ['admin'],
        summary: 'Remove the webhook: later deliveries of the webhook channel are skipped',
        params: CorporationParams,
        response: { 200: Success(WebhookCleared), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const { corporation } = request.params
      if (!(await clearWebhook(writeContextOf(request, context, corporation)))) {
        throw notFound('The webhook of this organization')
      }
      return ok({ cleared: true as const })
    },
  )

  app.post(
    `${PATH}/test`,
    {
      schema: {
        operationId: 'testWebhook',
        tags: ['admin'],
        summary: 'Send a signed test event (ping) to the webhook now and say how it went',
        description:
          'The request carries X-Expertdir-Event: ping and X-Expertdir-Delivery: test, signed as every delivery; ' +
          'it is not retried, and the audit log records who sent it.',
        params: CorporationParams,
        response: { 200: Success(WebhookTestResult), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) =>
      ok(await testWebhook(writeContextOf(request, context, request.params.corporation), network)),
  )

  app.get(
    `${PATH}/deliveries`,
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['admin'],
        summary: "The webhook channel's delivery log, newest first, a page at a time",
        params: CorporationParams,
        querystring: DeliveryQuery,
        response: { 200: Success(WebhookDeliveryList), ...adminErrors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const page = await listWebhookDeliveries(db, request.params.corporation, {
        pageSize: request.query.page_size ?? DEFAULT_PAGE_SIZE,
        cursor: request.query.cursor,
      })
      return ok({
        next_cursor: page.next_cursor,
        deliveries: page.deliveries.map((delivery) => ({
          ...delivery,
          created_at: toSeconds(delivery.created_at),
          delivered_at: toSeconds(delivery.delivered_at),
          next_attempt_at: toSeconds(delivery.next_attempt_at),
        })),
      })
    },
  )
}
