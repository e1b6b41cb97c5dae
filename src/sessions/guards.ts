import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'

/**
 * The CSRF defence of the cookie-authenticated routes (docs/security.md). A state-changing request
 * must come from the service's own origin (`Origin` equal to `EXPERTDIR_PUBLIC_URL`'s origin, else to
 * the request's own scheme and host; a missing `Origin` is refused too) and be JSON: a cross-site form
 * can send neither, and a cross-site `fetch` with JSON needs a CORS preflight that this origin never
 * grants for these routes.
 */
export function checkSameOrigin(request: FastifyRequest, publicUrl: string | undefined): void {
  const origin = request.headers.origin
  const expected = publicUrl ? new URL(publicUrl).origin : `${request.protocol}://${request.host}`
  if (origin !== expected || request.headers['sec-fetch-site'] === 'cross-site') {
    throw new ApiError(
      'forbidden',
      'This request must come from the dashboard itself: its Origin header is missing or names another site.',
    )
  }
}

/** JSON only: a form content type (what a cross-site form sends) is 415. */
export function checkJson(request: FastifyRequest): void {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/json') {
    throw new ApiError('unsupported_media_type', 'Send this request as application/json.')
  }
}
