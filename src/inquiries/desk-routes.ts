import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { listAssignable } from './assignees.js'
import { handleInquiry } from './handle.js'
import { inquiryView } from './mapping.js'
import {
  NotificationSettingsUpdate,
  type NotificationSettingsUpdateInput,
  NotificationSettingsView,
} from './notification-schemas.js'
import {
  type NotificationSettings,
  readNotificationSettings,
  updateNotificationSettings,
} from './notifications.js'
import { eraseSenderData } from './privacy.js'
import {
  AssigneeList,
  ErasureQuery,
  ErasureResult,
  InquiryParams,
  InquiryPatch,
  type InquiryPatchInput,
  InquiryView,
} from './schemas.js'

const errors = { '4xx': ErrorEnvelope }

function settingsView(settings: NotificationSettings) {
  return Object.fromEntries(settings)
}

/**
 * The inquiry desk (CONTRACT §17): notification settings (`GET|PUT .../notifications`, scope admin),
 * handling (`PATCH .../inquiry/:id`, scope inquiries:handle) and erasure by sender
 * (`DELETE .../inquiry?email=`, scope admin). The export is the inbox's `?email=` (routes.ts).
 */
export async function deskRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get<{ Params: { corporation: number } }>(
    '/v2/organization/:corporation/notifications',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'getNotificationSettings',
        tags: ['inquiries'],
        summary: 'Who is emailed about each inquiry kind',
        description:
          "Per kind: the desk addresses, and whether the expert, the expert's assistant and the desk are emailed. " +
          'A kind never set emails the expert only.',
        params: CorporationParams,
        response: { 200: Success(NotificationSettingsView), ...errors },
      },
    },
    async (request) =>
      ok(settingsView(await readNotificationSettings(context.db, request.params.corporation))),
  )

  app.put<{ Params: { corporation: number }; Body: NotificationSettingsUpdateInput }>(
    '/v2/organization/:corporation/notifications',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'updateNotificationSettings',
        tags: ['inquiries'],
        summary: 'Change who is emailed about some inquiry kinds',
        description:
          'Partial: only the kinds given change, and of each only the fields given. Applies to inquiries ' +
          "received afterwards (each inquiry keeps the recipients it was addressed to). Answers every kind's settings.",
        params: CorporationParams,
        body: NotificationSettingsUpdate,
        response: { 200: Success(NotificationSettingsView), ...errors },
      },
    },
    async (request) => {
      const settings = await updateNotificationSettings(
        writeContextOf(request, context, request.params.corporation),
        request.body,
      )
      return ok(settingsView(settings))
    },
  )

  app.get<{ Params: { corporation: number } }>(
    '/v2/organization/:corporation/inquiry/assignees',
    {
      config: { scope: 'inquiries:read' },
      schema: {
        operationId: 'listInquiryAssignees',
        tags: ['inquiries'],
        summary: 'Who inquiries may be assigned to',
        description:
          'The people of the organization whose role handles inquiries (owner, admin, inquiries), by name: ' +
          'the values of assignee in PATCH .../inquiry/:id and of the inbox filter.',
        params: CorporationParams,
        response: { 200: Success(AssigneeList), ...errors },
      },
    },
    async (request) => ok({ assignees: await listAssignable(context.db, request.params.corporation) }),
  )

  app.patch<{ Params: { corporation: number; id: number }; Body: InquiryPatchInput }>(
    '/v2/organization/:corporation/inquiry/:id',
    {
      config: { scope: 'inquiries:handle' },
      schema: {
        operationId: 'handleInquiry',
        tags: ['inquiries'],
        summary: "Change an inquiry's status, assignee or internal notes",
        description:
          "assignee is a person's id (GET .../inquiry/assignees lists who may handle inquiries; null unassigns); " +
          'assigning a new inquiry without a status makes it assigned. Answers the inquiry as the inbox shows it.',
        params: InquiryParams,
        body: InquiryPatch,
        response: { 200: Success(InquiryView), ...errors },
      },
    },
    async (request) => {
      const { corporation, id } = request.params
      const found = await handleInquiry(writeContextOf(request, context, corporation), id, request.body)
      return ok(inquiryView(found))
    },
  )

  app.delete<{ Params: { corporation: number }; Querystring: { email: string } }>(
    '/v2/organization/:corporation/inquiry',
    {
      config: { scope: 'admin' },
      schema: {
        operationId: 'eraseSenderData',
        tags: ['inquiries'],
        summary: 'Erase the personal data of every inquiry sent from one address',
        description:
          "Empties the sender's fields of each inquiry from this address (case-insensitive), its internal notes " +
          'and delivery log texts, cancels its pending deliveries; the records (kind, expert, date, status) stay ' +
          'so that counts do not change. The erasure is recorded (who, when, how many), never the address. ' +
          'See docs/privacy.md.',
        params: CorporationParams,
        querystring: ErasureQuery,
        response: { 200: Success(ErasureResult), ...errors },
      },
    },
    async (request) => {
      const erased = await eraseSenderData(
        writeContextOf(request, context, request.params.corporation),
        request.query.email,
        request.principal.clientId,
      )
      return ok({ erased })
    },
  )
}
