import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { ApiError } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'

const Health = Success(Type.Object({ status: Type.String() }, { title: 'Health' }))

/** Unauthenticated probes for process managers and load balancers. */
export async function healthRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getLiveness',
        tags: ['system'],
        summary: 'The process is alive',
        response: { 200: Health },
      },
    },
    async () => ok({ status: 'ok' }),
  )
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['system'],
        summary: 'The database answers',
        response: { 200: Health, '5xx': ErrorEnvelope },
      },
    },
    async () => {
      try {
        await context.database.ping()
      } catch {
        throw new ApiError('unavailable', 'The database is not reachable.', {
          headers: { 'retry-after': '5' },
        })
      }
      return ok({ status: 'ready' })
    },
  )
}
