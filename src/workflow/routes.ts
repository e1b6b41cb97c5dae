import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../app-context.js'
import { writeContextOf } from '../audit/write-context.js'
import { ROLES } from '../auth/roles.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { WorkflowUpdated, workflowSchema } from './schemas.js'
import { readWorkflow, setWorkflow } from './settings.js'

const errors = { '4xx': ErrorEnvelope }

const WorkflowSettings = workflowSchema(ROLES)

/** The organization's editorial workflow settings (CONTRACT §21, docs/editorial.md): review rules and the publish gate. */
export async function workflowRoutes(untyped: FastifyInstance, context: AppContext): Promise<void> {
  const app = typedRoutes(untyped)
  const { db } = context

  app.get(
    '/v2/organization/:corporation/workflow',
    {
      schema: {
        operationId: 'getWorkflow',
        tags: ['editorial'],
        summary: 'Get the editorial workflow settings: which changes need review, and the publish gate',
        params: CorporationParams,
        response: { 200: Success(WorkflowSettings), ...errors },
      },
      config: { scope: 'admin' },
    },
    async (request) => ok(await readWorkflow(db, request.params.corporation)),
  )

  app.put(
    '/v2/organization/:corporation/workflow',
    {
      schema: {
        operationId: 'setWorkflow',
        tags: ['editorial'],
        summary: 'Set the editorial workflow settings (both parts, whole)',
        description:
          'Review rules are stored now and take effect with drafts; the publish gate applies at once: publishing a profile (`is_published` 0 to 1) that fails it is 409 `conflict` naming each thing missing.',
        params: CorporationParams,
        body: WorkflowSettings,
        response: { 200: Success(WorkflowUpdated), ...errors },
      },
      config: { scope: 'admin' },
    },
    async (request) => {
      const updated = await setWorkflow(
        writeContextOf(request, context, request.params.corporation),
        request.body,
      )
      return ok({ updated })
    },
  )
}
