import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import type { Config } from '../config.js'
import { createSession, type Lifetimes } from './repository.js'

/** The session cookie (CONTRACT §14) and the one way every kind of sign-in starts a session. */

export const SESSION_COOKIE = 'expertdir_session'
/** The cookie is sent only to /auth/...: the API under /v2 never even receives it. */
const COOKIE_PATH = '/auth'

export function lifetimesOf(config: Config): Lifetimes {
  return { idleMs: config.sessionIdleSeconds * 1000, maxMs: config.sessionMaxSeconds * 1000 }
}

/** Whether cookies get `Secure`: over HTTPS, or when the public URL is https (behind a TLS proxy). */
export function secureCookies(request: FastifyRequest, config: Config): boolean {
  return request.protocol === 'https' || (config.publicUrl?.startsWith('https:') ?? false)
}

export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  config: Config,
) {
  reply.setCookie(SESSION_COOKIE, token, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookies(request, config),
    maxAge: config.sessionMaxSeconds,
  })
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply, config: Config) {
  reply.clearCookie(SESSION_COOKIE, {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookies(request, config),
  })
}

/**
 * Signs the person in: a new session and its cookie on `reply`. Password sign-in and single sign-on
 * both end here, so a session is the same whichever way it began. Returns the cookie's value.
 */
export async function startSession(
  context: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  personId: number,
): Promise<string> {
  const token = await createSession(context.db, personId, context.now(), lifetimesOf(context.config))
  setSessionCookie(request, reply, token, context.config)
  return token
}
