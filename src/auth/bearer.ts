import type { FastifyInstance, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { Database } from '../db/database.js'
import { ApiError } from '../http/errors.js'
import { isPositiveId } from '../validation/text.js'
import { isScope, SCOPES, type Scope } from './scopes.js'
import { hashToken } from './secrets.js'
import { findPrincipal, type Principal } from './tokens.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the bearer hook on every protected route. */
    principal: Principal
  }
}

const REALM = 'Bearer realm="expertdir"'
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization
  const match = header ? /^Bearer(?:\s+(.*))?$/i.exec(header.trim()) : null
  if (!match) {
    throw new ApiError(
      'unauthorized',
      'This endpoint needs an access token: send Authorization: Bearer <token>.',
      { headers: { 'www-authenticate': REALM } },
    )
  }
  const token = match[1]?.trim() ?? ''
  if (!TOKEN_SYNTAX.test(token)) throw invalidToken()
  return token
}

function invalidToken(): ApiError {
  return new ApiError(
    'invalid_token',
    'The access token is unknown, expired or revoked: request a new one.',
    { headers: { 'www-authenticate': `${REALM}, error="invalid_token"` } },
  )
}

function insufficientScope(needed: Scope): ApiError {
  return new ApiError(
    'insufficient_scope',
    `This access token lacks the scope this request needs: ${needed}. Request a token with that scope from a client that holds it.`,
    { headers: { 'www-authenticate': `${REALM}, error="insufficient_scope", scope="${needed}"` } },
  )
}

/**
 * Makes every route of `app` (an encapsulated scope) require a bearer token that holds the scope
 * the route declares in its options (`config: { scope: 'read' }`), and checks that a `:corporation`
 * in the path is the token's organization. A malformed `:corporation` is left to the params schema
 * (400). A route registered here without a known scope stops the app from starting, so that no
 * route can be added without one.
 */
export function requireBearer(app: FastifyInstance, context: { principals: PrincipalResolver }): void {
  app.decorateRequest('principal', null as unknown as Principal)
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope
    if (typeof scope !== 'string' || !isScope(scope)) {
      const methods = [route.method].flat().join(',')
      throw new Error(
        `${methods} ${route.url} needs an access token but declares no scope: add config: { scope } with one of ${SCOPES.join(', ')} to its options.`,
      )
    }
  })
  app.addHook('onRequest', async (request) => {
    const token = bearerToken(request)
    const principal = await context.principals.resolve(token)
    if (!principal) throw invalidToken()
    request.principal = principal
    const needed = request.routeOptions.config.scope as Scope
    if (!principal.scopes.includes(needed)) throw insufficientScope(needed)
    const corporation = (request.params as { corporation?: string }).corporation
    if (corporation !== undefined && isPositiveId(corporation) && Number(corporation) !== principal.orgId) {
      throw new ApiError(
        'forbidden',
        'This access token belongs to another organization than the one in the path.',
      )
    }
  })
}

/** Resolves bearer tokens to principals. */
export interface PrincipalResolver {
  resolve(token: string): Promise<Principal | undefined>
  /** Drops what is known of a token (after its revocation). */
  forget(tokenHash: string): void
}

/**
 * Resolves tokens with one indexed query, and keeps hot ones in memory for `cacheMs` so that most
 * requests make no database round trip. A cached entry never outlives its token's expiry; a revocation
 * through this process's API takes effect at once (`forget`), one made elsewhere (the CLI, another
 * server process) within `cacheMs`. `cacheMs` 0 turns the cache off.
 */
export function databasePrincipals(
  context: { database: Database; now: () => number },
  cacheMs: number,
  maxEntries = 50_000,
): PrincipalResolver {
  const cache = new LRUCache<string, { principal: Principal; until: number }>({ max: maxEntries })
  return {
    async resolve(token) {
      const tokenHash = hashToken(token)
      const now = context.now()
      const hit = cache.get(tokenHash)
      if (hit && hit.until > now) return hit.principal
      if (hit) cache.delete(tokenHash)
      const principal = await findPrincipal(context.database, tokenHash, now)
      if (principal && cacheMs > 0) {
        cache.set(tokenHash, { principal, until: Math.min(now + cacheMs, principal.expiresAt) })
      }
      return principal
    },
    forget(tokenHash) {
      cache.delete(tokenHash)
    },
  }
}
