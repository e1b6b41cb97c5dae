import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply } from 'fastify'

/** The strong ETag of a response body. */
export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`
}

/** Whether an `If-None-Match` header names `etag` (weakly compared) or is `*`. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  return (
    ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*') ??
    false
  )
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** The read responses' `Cache-Control`: the data is per-organization and must be revalidated. */
export const READ_CACHE_CONTROL = 'private, no-cache'

/**
 * Sends a stored read document: bytes already serialized, with the ETag stored beside them (the
 * hook below answers 304 from it without hashing the body again).
 */
export function sendDocument(reply: FastifyReply, document: { body: Buffer; etag: string }): FastifyReply {
  return reply.header('content-type', JSON_CONTENT_TYPE).header('etag', document.etag).send(document.body)
}

/**
 * Strong ETags on successful reads, and 304 for a matching `If-None-Match`, so a site that re-reads a
 * profile on every page view gets an empty answer when nothing changed. (@fastify/etag tags every
 * response, errors and writes included, and can turn a 404 into a 304; reads only are wanted here.)
 * `Cache-Control: private, no-cache`: the data is per-organization and must be revalidated.
 */
export function registerReadEtags(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (
      (request.method !== 'GET' && request.method !== 'HEAD') ||
      reply.statusCode !== 200 ||
      (typeof payload !== 'string' && !Buffer.isBuffer(payload))
    )
      return done(null, payload)
    const stored = reply.getHeader('etag')
    const etag = typeof stored === 'string' ? stored : etagOf(payload)
    reply.header('etag', etag).header('cache-control', READ_CACHE_CONTROL)
    if (matchesEtag(request.headers['if-none-match'], etag)) {
      reply.code(304)
      return done(null, '')
    }
    done(null, payload)
  })
}
