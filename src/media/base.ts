import type { FastifyInstance, FastifyRequest } from 'fastify'
import { withMediaBase } from '../storage/keys.js'

/**
 * The address media references are completed with when read: `EXPERTDIR_PUBLIC_URL`, else the scheme
 * and host the request came to (as every URL the service builds for a reader).
 */
export function mediaBaseOf(publicUrl: string | undefined, request: FastifyRequest): string {
  return publicUrl ?? `${request.protocol}://${request.host}`
}

/**
 * Records, stored read documents and kept bodies hold photos as media references (`/media/...`); this
 * `onSend` hook gives each reference in a JSON answer the reader's address. Register it after the hooks
 * that keep bodies and compute ETags, so those stay the same whatever address a reader uses.
 */
export function registerMediaBase(app: FastifyInstance, publicUrl: string | undefined): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload)
    const type = reply.getHeader('content-type')
    if (typeof type !== 'string' || !type.includes('json')) return done(null, payload)
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload
    const completed = withMediaBase(body, mediaBaseOf(publicUrl, request))
    done(null, completed === body ? payload : completed)
  })
}
