import cors from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** What a browser page may send and read (CONTRACT §13). */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-None-Match',
  // Sent by MCP clients to POST /mcp.
  'Mcp-Protocol-Version',
]
const EXPOSED_HEADERS = [
  'ETag',
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'WWW-Authenticate',
]
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600

/**
 * CORS for the listed browser origins only. A listed origin's preflight is answered 204 before any
 * other hook (no token needed); its other requests carry the CORS headers, errors included. Any other
 * origin gets no CORS headers at all, and its OPTIONS requests are treated like any other method
 * (405 with `Allow` on a known path). No origins: nothing is registered.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return
  const allowed = new Set(origins)
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (request: FastifyRequest, callback) => {
      const origin = request.headers.origin
      if (typeof origin !== 'string' || !allowed.has(origin)) {
        callback(null, { origin: false })
        return
      }
      callback(null, {
        origin,
        methods: METHODS,
        allowedHeaders: ALLOWED_HEADERS,
        exposedHeaders: EXPOSED_HEADERS,
        maxAge: PREFLIGHT_MAX_AGE,
        // Only a real preflight (it names the method it wants) is answered here; a plain OPTIONS
        // from an allowed page goes on to the route, which answers 405 with Allow.
        preflight: request.headers['access-control-request-method'] !== undefined,
        strictPreflight: false,
      })
    },
  })
}
