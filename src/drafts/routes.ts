import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { requestTrail } from '../audit/request.js'
import { writeContextOf } from '../audit/write-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { createNoticeMailer } from '../people/mail.js'
import { type DraftEvent, type DraftNotices, sendDraftNotice } from './notices.js'
import { DraftApproval, DraftList, DraftParams, DraftQuery, DraftReturn, DraftView } from './schemas.js'
import {
  approveDraft,
  type DraftSummary,
  listDrafts,
  readDraft,
  returnDraft,
  submitDraft,
} from './service.js'

const errors = { '4xx': ErrorEnvelope }
const tags = ['editorial']

/**
 * Drafts and review (CONTRACT §21, docs/editorial.md): the review queue, one draft with its diff, and
 * the steps of a draft. An `expert` person reaches these routes and sees only its own drafts.
 */
export async function draftRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db, config } = context
  const notices: DraftNotices = {
    mailer: createNoticeMailer(config.smtpUrl, config.mailFrom, (error) =>
      untyped.log.warn({ err: error }, 'draft review email failed'),
    ),
    publicUrl: config.publicUrl,
    onError: (error) => untyped.log.error({ err: error }, 'draft review email failed'),
  }
  untyped.addHook('onClose', async () => notices.mailer.close())
  /** Emails the step's people in the background: the step has committed whatever the email does. */
  const notify = <T extends DraftSummary>(orgId: number, event: DraftEvent, draft: T): T => {
    void sendDraftNotice(notices, db, orgId, event, draft)
    return draft
  }

  app.get(
    '/v2/organization/:corporation/drafts',
    {
      schema: {
        operationId: 'listDrafts',
        tags,
        summary: 'The review queue: drafts in a state (every waiting one without `state`)',
        description:
          'Reviewers (editors, admins, owners) and API clients see every draft; other people their own.',
        params: CorporationParams,
        querystring: DraftQuery,
        response: { 200: Success(DraftList), ...errors },
      },
      config: { scope: 'read', expertReach: 'own' },
    },
    async (request) => {
      const { actor } = requestTrail(request)
      return ok({ drafts: await listDrafts(db, request.params.corporation, actor, request.query.state) })
    },
  )

  app.get(
    '/v2/organization/:corporation/drafts/:id',
    {
      schema: {
        operationId: 'getDraft',
        tags,
        summary:
          'One draft, with its field-level diff against the live record and the live changes since it was opened',
        params: DraftParams,
        response: { 200: Success(DraftView), ...errors },
      },
      config: { scope: 'read', expertReach: 'own' },
    },
    async (request) => {
      const { corporation, id } = request.params
      return ok(await readDraft(db, corporation, requestTrail(request).actor, id))
    },
  )

  app.post(
    '/v2/organization/:corporation/drafts/:id/submit',
    {
      schema: {
        operationId: 'submitDraft',
        tags,
        summary: 'Submit an open or returned draft for review (its author)',
        params: DraftParams,
        response: { 200: Success(DraftView), ...errors },
      },
      config: { scope: 'write', expertReach: 'own' },
    },
    async (request) => {
      const { corporation, id } = request.params
      return ok(
        notify(
          corporation,
          'submitted',
          await submitDraft(writeContextOf(request, context, corporation), id),
        ),
      )
    },
  )

  app.post(
    '/v2/organization/:corporation/drafts/:id/approve',
    {
      schema: {
        operationId: 'approveDraft',
        tags,
        summary: 'Approve a submitted draft: it is published through the ordinary write',
        description:
          'Editors, admins and owners (never the author) and API clients holding `write`. A draft whose record changed live since it was opened is 409 `conflict` listing those changes, unless `force` is true.',
        params: DraftParams,
        body: DraftApproval,
        response: { 200: Success(DraftView), ...errors },
      },
      config: { scope: 'write', expertReach: false },
    },
    async (request) => {
      const { corporation, id } = request.params
      return ok(
        notify(
          corporation,
          'approved',
          await approveDraft(writeContextOf(request, context, corporation), id, request.body),
        ),
      )
    },
  )

  app.post(
    '/v2/organization/:corporation/drafts/:id/return',
    {
      schema: {
        operationId: 'returnDraft',
        tags,
        summary: 'Send a submitted draft back to its author with a comment',
        params: DraftParams,
        body: DraftReturn,
        response: { 200: Success(DraftView), ...errors },
      },
      config: { scope: 'write', expertReach: false },
    },
    async (request) => {
      const { corporation, id } = request.params
      return ok(
        notify(
          corporation,
          'returned',
          await returnDraft(writeContextOf(request, context, corporation), id, request.body.comment),
        ),
      )
    },
  )
}
