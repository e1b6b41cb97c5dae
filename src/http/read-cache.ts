import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

interface Entry {
  payload: string | Buffer
  contentType: string
  etag: string
  until: number
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Read-cache generation when the request arrived; a response is stored only if no write came between. */
    readCacheGeneration?: number
    /** The ETag of a response served from the read cache (so it is not hashed again). */
    cachedEtag?: string
  }
}

/**
 * An optional in-memory cache of successful GET responses of an encapsulated scope, keyed by the
 * principal's organization and the URL; registered after the bearer hook, so every request is still
 * authenticated and authorized. Off when `ttlMs` is 0 (the default): it trades freshness for speed.
 * A successful write through this process empties it at once; a change made elsewhere (the CLI,
 * another server process) shows within `ttlMs`, as a revocation does with the token cache.
 */
export function registerReadCache(
  app: FastifyInstance,
  ttlMs: number,
  now: () => number,
  maxEntries = 10_000,
): void {
  if (ttlMs <= 0) return
  const entries = new Map<string, Entry>()
  let generation = 0
  const keyOf = (request: FastifyRequest) => `${request.principal.orgId} ${request.url}`

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'GET') return
    request.readCacheGeneration = generation
    const key = keyOf(request)
    const hit = entries.get(key)
    if (!hit) return
    if (hit.until <= now()) {
      entries.delete(key)
      return
    }
    request.cachedEtag = hit.etag
    reply.header('content-type', hit.contentType)
    return reply.send(hit.payload)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      // Written and committed by now: no response read before this write may be served after it.
      if (reply.statusCode < 400) {
        generation++
        entries.clear()
      }
      return payload
    }
    const etag = reply.getHeader('etag')
    if (
      request.method !== 'GET' ||
      request.cachedEtag !== undefined ||
      reply.statusCode !== 200 ||
      request.readCacheGeneration !== generation ||
      typeof etag !== 'string' ||
      (typeof payload !== 'string' && !Buffer.isBuffer(payload))
    ) {
      return payload
    }
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string)
    entries.set(keyOf(request), {
      payload,
      etag,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      until: now() + ttlMs,
    })
    return payload
  })
}
