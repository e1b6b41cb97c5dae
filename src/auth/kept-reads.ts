import type { FastifyInstance, FastifyRequest } from 'fastify'
import { audienceOf } from '../derived/audience.js'
import type { KeptBodies } from '../derived/kept-bodies.js'
import { etagOf } from '../http/etag.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The key its body is kept under once answered (a read with a known target version). */
    keptKey: string | undefined
  }
}

/**
 * The key of a read's body: the URL (path and query string, so the route and every parameter), the
 * audience the token reads as (CONTRACT §17) and the version of the record the body is built from.
 * The organization is in the URL and the bearer check has already matched it with the token's.
 */
function keyOf(request: FastifyRequest): string | undefined {
  const version = request.readVersion
  if (typeof version !== 'string' || request.method !== 'GET') return undefined
  return `${audienceOf(request.principal.scopes)} ${version} ${request.url}`
}

/**
 * Kept reads (docs/performance.md, "Kept reads"): a route whose options name a `readTarget` has its
 * 200 bodies kept under (URL, audience, version of the target), and a request whose key is kept is
 * answered from it before its handler runs, with the same bytes and the same ETag. The version comes
 * from the bearer check (src/auth/principals.ts), read before the handler reads anything, so a kept
 * body is never older than its key; versions only grow, so an older body is never asked for again.
 *
 * A kept body is sent from `onRequest`, so a kept request skips parsing and validating its parameters
 * and query: the key holds the whole URL, and a body is kept only after that very URL answered 200, so
 * validation would pass again. Register after the bearer hook and the per-token limit (both
 * `onRequest`, which run in registration order) and before the ETag hook (which turns a match into a
 * 304).
 */
export function registerKeptReads(app: FastifyInstance, bodies: KeptBodies): void {
  app.decorateRequest('keptKey', undefined)
  app.addHook('onRequest', (request, reply, done) => {
    const key = keyOf(request)
    if (key === undefined) return done()
    const kept = bodies.get(key)
    if (!kept) {
      request.keptKey = key
      return done()
    }
    reply.header('content-type', 'application/json; charset=utf-8').header('etag', kept.etag).send(kept.body)
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    const key = request.keptKey
    if (
      key !== undefined &&
      reply.statusCode === 200 &&
      (typeof payload === 'string' || Buffer.isBuffer(payload))
    ) {
      const body = typeof payload === 'string' ? Buffer.from(payload) : payload
      const stored = reply.getHeader('etag')
      bodies.set(key, { body, etag: typeof stored === 'string' ? stored : etagOf(body) })
    }
    done(null, payload)
  })
}
