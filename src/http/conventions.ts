import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../errors.js'
import { consultOnNotFound, KnownPaths, methodNotAllowedError, routerOptionsOf } from './allowed-methods.js'
import { sendError } from './error-handler.js'
import { nodeHttp } from './node-http.js'
import type { SecurityHeaders } from './security-headers.js'

/** pino's level numbers: the request line is written at `info`. */
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 }

export function logsInfo(level: string): boolean {
  return (LEVELS[level] ?? Number.POSITIVE_INFINITY) <= 30
}

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** Echo a client's `X-Request-Id` when it is safe to log, else make one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : randomUUID()
}

/** What the conventions hook knows, for the kept-read lane that answers before the framework (src/kept-reads/kept-read-lane.ts). */
export interface Conventions {
  readonly headers: SecurityHeaders
  /** True once the app has begun closing. */
  closing(): boolean
  /** Records that `socket` carried a request; true when it had carried one before (a kept-alive connection). */
  reused(socket: object): boolean
}

/**
 * One onRequest hook for what every response carries: the security headers (computed once, one set
 * for HTTPS and one for plain HTTP; `request.protocol` believes `X-Forwarded-Proto` only from a trusted
 * proxy) and the request id; 503 while closing. One structured log line per request, with no hook at all
 * when the configured level drops it.
 */
export function registerConventions(
  app: FastifyInstance,
  headers: SecurityHeaders = { https: {}, http: {} },
): Conventions {
  let closing = false
  // Connections that already carried a request. While closing, only their further (keep-alive)
  // requests are refused: a connection's first request was accepted before the close and is served.
  const seen = new WeakSet<object>()
  const conventions: Conventions = {
    headers,
    closing: () => closing,
    reused(socket) {
      if (seen.has(socket)) return true
      seen.add(socket)
      return false
    },
  }
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(request.protocol === 'https' ? headers.https : headers.http)
    reply.header('x-request-id', request.id)
    if (!conventions.reused(request.raw.socket) || !closing) {
      done()
      return
    }
    reply.header('connection', 'close')
    done(
      new ApiError('unavailable', 'The service is shutting down; retry shortly.', {
        headers: { 'retry-after': '1' },
      }),
    )
  })
  if (!logsInfo(app.log.level)) return conventions
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'not_found',
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    )
    done()
  })
  return conventions
}

/**
 * Makes the router know every method Node parses (CONNECT aside: Node hands it over as a tunnel), so
 * that an unusual one (`TRACE`, `PROPFIND`, `QUERY`, ...) on a known path is a 405 like any other.
 * None of them carries a body here: QUERY's would otherwise be parsed (and refused) before routing.
 */
function knowEveryMethod(app: FastifyInstance): void {
  for (const method of nodeHttp.METHODS) {
    if (method === 'CONNECT') continue
    if (app.supportedMethods.includes(method) && method !== 'QUERY') continue
    app.addHttpMethod(method, { hasBody: false, overrideExisting: true })
  }
}

/**
 * Answers 405 with `Allow` on known paths for the methods they lack, whatever the method. Call before
 * the routes are registered, and `install` after. The not-found handlers answer it (`refusedMethod`)
 * from one matcher entry per path; a 405 that the router must rank before another route of its method
 * on the same URL (see `KnownPaths.seal`) stays a route, answered here.
 */
export function methodNotAllowed(app: FastifyInstance) {
  knowEveryMethod(app)
  const paths = new KnownPaths(routerOptionsOf(app))
  consultOnNotFound(app, paths)
  app.addHook('onRoute', (route) => paths.record(route))
  return {
    install() {
      for (const { url, methods, allow } of paths.seal(app.supportedMethods)) {
        app.route({
          method: methods,
          url,
          config: { methodFallback: true },
          schema: { hide: true },
          handler: (request, reply) =>
            sendError(methodNotAllowedError(request.method, allow), request, reply),
        })
      }
    },
  }
}
