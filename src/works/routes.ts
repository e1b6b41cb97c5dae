import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { requestTrail } from '../audit/request.js'
import { writeContextOf } from '../audit/write-context.js'
import { ApiError } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import type { RefreshLimit } from './refresh-limit.js'
import { listRuns, runView } from './runs.js'
import type { WorksSchedule } from './schedule.js'
import {
  DEFAULT_PAGE_SIZE,
  DecisionsResult,
  ExpertRunsQuery,
  RunList,
  RunsQuery,
  RunView,
  WorkDecision,
  WorkDecisions,
  WorkList,
  WorkParams,
  WorksQuery,
  WorkView,
} from './schemas.js'
import { decideWorks, expertOrNotFound, listWorks } from './service.js'

export interface WorksContext extends AppContext {
  works: WorksSchedule
  refreshLimit: RefreshLimit
}

const errors = { '4xx': ErrorEnvelope }
const base = '/v2/organization/:corporation/expert/:username/works'

/** The works of an expert and their decisions, refresh now, and the organization's run log (CONTRACT §19). */
export async function worksRoutes(untyped: FastifyInstance, context: WorksContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  app.get(
    base,
    {
      schema: {
        operationId: 'listExpertWorks',
        tags: ['works'],
        summary: "An expert's works found by the importer, newest first, with their state",
        description:
          'Each work with why it was found, its score, who decided and which source gave each field. Filter with state; pass next_cursor as cursor for the next page.',
        params: ExpertParams,
        querystring: WorksQuery,
        response: { 200: Success(WorkList), ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username } = request.params
      const { state, page_size, cursor } = request.query
      return ok(
        await listWorks(db, corporation, username, {
          state,
          page_size: page_size ?? DEFAULT_PAGE_SIZE,
          cursor,
        }),
      )
    },
  )

  app.patch(
    `${base}/:id`,
    {
      schema: {
        operationId: 'decideExpertWork',
        tags: ['works'],
        summary: 'Claim, reject, hide or reopen one work of an expert',
        description:
          'claimed puts it in the article section; leaving claimed takes it out; rejected keeps it from ever being offered again, whatever identifier it comes back with.',
        params: WorkParams,
        body: WorkDecision,
        response: { 200: Success(WorkView), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const { corporation, username, id } = request.params
      const result = await decideWorks(writeContextOf(request, context, corporation), username, [
        { id, state: request.body.state },
      ])
      const [work] = result.works
      if (!work) throw new ApiError('not_found', `Work ${id} of expert ${username} was not found.`)
      return ok(work)
    },
  )

  app.post(
    `${base}/decisions`,
    {
      schema: {
        operationId: 'decideExpertWorks',
        tags: ['works'],
        summary: 'Decide about many works of an expert at once, all or nothing',
        params: ExpertParams,
        body: WorkDecisions,
        response: { 200: Success(DecisionsResult), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request) => {
      const { corporation, username } = request.params
      return ok(
        await decideWorks(writeContextOf(request, context, corporation), username, request.body.decisions),
      )
    },
  )

  app.post(
    `${base}/refresh`,
    {
      schema: {
        operationId: 'refreshExpertWorks',
        tags: ['works'],
        summary: "Refresh an expert's works now",
        description:
          'Asks every configured source again; answers 202 with the run, which GET .../imports shows when it is done. Limited per expert and hour (429 with Retry-After); 409 while a refresh of the expert is under way.',
        params: ExpertParams,
        response: { 202: Success(RunView), ...errors },
      },
      config: { scope: 'write' },
    },
    async (request, reply) => {
      const { corporation, username } = request.params
      const expert = await expertOrNotFound(db, corporation, username)
      const wait = await context.refreshLimit.take(corporation, expert.id)
      if (wait !== undefined) {
        const seconds = Math.ceil(wait / 1000)
        throw new ApiError(
          'rate_limited',
          `Too many refreshes of this expert: retry in ${seconds} seconds.`,
          {
            headers: { 'retry-after': String(seconds) },
          },
        )
      }
      const started = await context.works.refreshNow(corporation, expert, {
        trigger: 'request',
        trail: requestTrail(request),
      })
      if (!started)
        throw new ApiError('conflict', `A refresh of expert ${username} is under way: wait for it to finish.`)
      return reply.code(202).send(ok(runView(started.run)))
    },
  )

  app.get(
    `${base}/runs`,
    {
      schema: {
        operationId: 'listExpertWorkRuns',
        tags: ['works'],
        summary: "An expert's works refreshes, newest first: the run log narrowed to the expert",
        description:
          "What a refresh now started shows here when it ends (status finished, failed or interrupted). A signed-in expert reads its own runs here; the organization's log (GET .../imports) is not within its reach.",
        params: ExpertParams,
        querystring: ExpertRunsQuery,
        response: { 200: Success(RunList), ...errors },
      },
      config: { scope: 'read' },
    },
    async (request) => {
      const { corporation, username } = request.params
      const { page_size, cursor } = request.query
      const expert = await expertOrNotFound(db, corporation, username)
      return ok(
        await listRuns(db, corporation, {
          page_size: page_size ?? DEFAULT_PAGE_SIZE,
          cursor,
          expertId: expert.id,
        }),
      )
    },
  )

  app.get(
    '/v2/organization/:corporation/imports',
    {
      schema: {
        operationId: 'listImportRuns',
        tags: ['works'],
        summary:
          "The organization's works refreshes, newest first: source, started, finished, counts, errors",
        params: CorporationParams,
        querystring: RunsQuery,
        response: { 200: Success(RunList), ...errors },
      },
      config: { scope: 'read', expertReach: false },
    },
    async (request) => {
      const { page_size, cursor, username } = request.query
      return ok(
        await listRuns(db, request.params.corporation, {
          page_size: page_size ?? DEFAULT_PAGE_SIZE,
          cursor,
          username,
        }),
      )
    },
  )
}
