import type { FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'

/** Where the service is reached from outside: the configured public URL, else the request's own. */
export function baseUrl(context: Pick<AppContext, 'config'>, request: FastifyRequest): string {
  return context.config.publicUrl ?? `${request.protocol}://${request.host}`
}
