import { randomUUID } from 'node:crypto'
import type { FastifyInstance, HTTPMethods } from 'fastify'
import { sendError } from './error-handler.js'
import { ApiError } from './errors.js'

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Echo a client's `X-Request-Id` when it is safe to log, else make one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID()
}

/**
 * Request id header, one structured log line per request, 503 while closing, and the tracking
 * of which methods each path has (for 405s).
 */
export function registerConventions(app: FastifyInstance): void {
  let closing = false
  // Connections that already carried a request. While closing, only their further (keep-alive)
  // requests are refused: a connection's first request was accepted before the close and is served.
  const reused = new WeakSet<object>()
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    const socket = request.raw.socket
    const again = reused.has(socket)
    reused.add(socket)
    if (closing && again) {
      reply.header('connection', 'close')
      throw new ApiError('unavailable', 'The service is shutting down; retry shortly.', {
        headers: { 'retry-after': '1' },
      })
    }
  })
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'not_found',
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    )
  })
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']

/**
 * Answers 405 with `Allow` on known paths for the methods they lack. Call it before the routes
 * are registered and `install` after.
 */
export function methodNotAllowed(app: FastifyInstance) {
  const methodsByPath = new Map<string, Set<string>>()
  app.addHook('onRoute', (route) => {
    // Only the API's own paths: the docs UI registers its static files as it likes.
    if (route.config?.methodFallback || route.url.startsWith('/docs')) return
    const methods = methodsByPath.get(route.url) ?? new Set<string>()
    for (const method of [route.method].flat()) methods.add(method)
    methodsByPath.set(route.url, methods)
  })
  return {
    install() {
      for (const [url, methods] of methodsByPath) {
        const missing = ALL_METHODS.filter((method) => !methods.has(method))
        if (missing.length === 0) continue
        const allow = [...methods].sort().join(', ')
        app.route({
          method: missing,
          url,
          config: { methodFallback: true },
          schema: { hide: true },
          handler: (request, reply) =>
            sendError(
              new ApiError('method_not_allowed', `${request.method} is not allowed here; use ${allow}.`, {
                headers: { allow },
              }),
              request,
              reply,
            ),
        })
      }
    },
  }
}
