import type { FastifyInstance } from 'fastify'
import { typedRoutes } from '../http/typed-routes.js'
import { auditRoutes } from './audit-routes.js'
import { clientRoutes } from './client-routes.js'
import type { AdminContext } from './context.js'
import { peopleRoutes } from './people-routes.js'
import { webhookRoutes } from './webhook-routes.js'

/**
 * The admin API (CONTRACT §14), every route behind scope `admin`: client credentials, the webhook,
 * people and the audit log. Each write goes through the same service as the CLI's and is audited there.
 */
export async function adminRoutes(app: FastifyInstance, context: AdminContext): Promise<void> {
  const typed = typedRoutes(app)
  clientRoutes(typed, context)
  webhookRoutes(typed, context)
  peopleRoutes(typed, context)
  auditRoutes(typed, context)
}
