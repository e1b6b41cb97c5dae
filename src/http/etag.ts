import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

/**
 * Strong ETags on successful reads, and 304 for a matching `If-None-Match`, so a site that re-reads a
 * profile on every page view gets an empty answer when nothing changed. (@fastify/etag tags every
 * response, errors and writes included, and can turn a 404 into a 304; reads only are wanted here.)
 * `Cache-Control: private, no-cache`: the data is per-organization and must be revalidated.
 */
export function registerReadEtags(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload
    const etag = `"${createHash('sha1').update(payload).digest('base64url')}"`
    reply.header('etag', etag).header('cache-control', 'private, no-cache')
    const match = request.headers['if-none-match']
    if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
      reply.code(304)
      return ''
    }
    return payload
  })
}
