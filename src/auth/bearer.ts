import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify'
import type { Database } from '../db/database.js'
import { ApiError } from '../errors.js'
import type { TargetOf } from '../kept-reads/read-targets.js'
import { propertyOf } from '../validation/guards.js'
import { isPositiveId } from '../validation/text.js'
import { takeHandedOver } from './handed-over.js'
import type { PrincipalResolver, Resolution } from './principals.js'
import { grants, isScope, SCOPES, type Scope } from './scopes.js'
import type { Principal } from './tokens.js'

export { databasePrincipals, type PrincipalResolver } from './principals.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the bearer hook on every protected route. */
    principal: Principal
    /**
     * The version of the record a kept read reads (its route's `readTarget`), as the bearer check
     * found it: null when there is no such record, undefined when not known (src/kept-reads/kept-reads.ts).
     */
    readVersion: string | null | undefined
  }
  interface FastifyContextConfig {
    /** The record a read route's body is built from, named from its path parameters (kept reads). */
    readTarget?: TargetOf
    /**
     * How a token limited to one expert (an `expert` person's, CONTRACT §14) may use this route. By
     * default a route whose path names `:username` is within reach for that expert's username and
     * every other route is out of reach. `inquiry`: the `:id` inquiry must be addressed to that
     * expert; `inquiry-list`: the `username` query parameter must name it; `own`: the route itself
     * narrows what it answers to the person's own records (drafts); `false`: never.
     */
    expertReach?: 'inquiry' | 'inquiry-list' | 'own' | false
  }
}

const REALM = 'Bearer realm="expertdir"'
const TOKEN_SYNTAX = /^[A-Za-z0-9\-._~+/]+=*$/

/** The token of an `Authorization` header: null without a Bearer one, '' for a malformed token. */
export function tokenOf(header: string | undefined): string | null {
  const match = header ? /^Bearer(?:\s+(.*))?$/i.exec(header.trim()) : null
  if (!match) return null
  const token = match[1]?.trim() ?? ''
  return TOKEN_SYNTAX.test(token) ? token : ''
}

function bearerToken(request: FastifyRequest): string {
  const token = tokenOf(request.headers.authorization)
  if (token === null) {
    throw new ApiError(
      'unauthorized',
      'This endpoint needs an access token: send Authorization: Bearer <token>.',
      { headers: { 'www-authenticate': REALM } },
    )
  }
  if (token === '') throw invalidToken()
  return token
}

function invalidToken(): ApiError {
  return new ApiError(
    'invalid_token',
    'The access token is unknown, expired or revoked: request a new one.',
    { headers: { 'www-authenticate': `${REALM}, error="invalid_token"` } },
  )
}

/**
 * The principal of the request's bearer token: 401 `unauthorized` without one, 401 `invalid_token`
 * for a malformed, unknown, expired or revoked one (each with its `WWW-Authenticate` challenge).
 */
export async function authenticate(
  request: FastifyRequest,
  principals: PrincipalResolver,
): Promise<Principal> {
  const resolved = await principals.resolve(bearerToken(request))
  if (!resolved) throw invalidToken()
  return resolved.principal
}

/** 403 for a request that needs `needed`, which the token lacks. */
export function insufficientScope(needed: Scope): ApiError {
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
export function requireBearer(
  app: FastifyInstance,
  context: { principals: PrincipalResolver; inquiryRecipient: InquiryRecipient },
): void {
  // Set on every request before a handler runs (the onRequest hook below); no dependencies.
  app.decorateRequest('principal', null, [])
  app.decorateRequest('readVersion', undefined)
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope
    if (typeof scope !== 'string' || !isScope(scope)) {
      const methods = [route.method].flat().join(',')
      throw new Error(
        `${methods} ${route.url} needs an access token but declares no scope: add config: { scope } with one of ${SCOPES.join(', ')} to its options.`,
      )
    }
  })
  // Callback style: a token answered from what the process keeps (src/auth/principals.ts) is checked
  // without a promise; one read from the database continues when it arrives.
  app.addHook('onRequest', (request, _reply, done) => {
    // Fastify builds `routeOptions` anew at each access: read the route's config once.
    const { config } = request.routeOptions
    let resolved: ReturnType<PrincipalResolver['resolve']>
    try {
      const token = bearerToken(request)
      const target = config.readTarget?.(request.params)
      const handed = takeHandedOver(request.raw, token, target)
      resolved = handed ? handed.resolution : context.principals.resolve(token, target)
    } catch (error) {
      return done(error instanceof Error ? error : new Error(String(error)))
    }
    const finish = (resolution: Resolution | undefined) => {
      const reach = authorize(request, config, resolution)
      if (!reach) return done()
      checkExpertReach(context.inquiryRecipient, request, reach.orgId, reach.username).then(
        () => done(),
        done,
      )
    }
    if (resolved instanceof Promise) {
      resolved.then(finish).catch(done)
      return
    }
    try {
      finish(resolved)
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)))
    }
  })
}

/**
 * Checks a resolved token against the request: known, holding the route's scope, of the path's
 * organization. Returns what is left to check asynchronously: an expert-limited token's reach.
 */
function authorize(
  request: FastifyRequest,
  config: FastifyContextConfig,
  resolved: Resolution | undefined,
): { orgId: number; username: string | null } | undefined {
  if (!resolved) throw invalidToken()
  const { principal } = resolved
  request.principal = principal
  request.readVersion = resolved.version
  const needed = neededScope(request, config)
  if (!grants(principal.scopes, needed)) throw insufficientScope(needed)
  const corporation = propertyOf(request.params, 'corporation')
  if (
    typeof corporation === 'string' &&
    isPositiveId(corporation) &&
    Number(corporation) !== principal.orgId
  ) {
    throw new ApiError(
      'forbidden',
      'This access token belongs to another organization than the one in the path.',
    )
  }
  const reach = principal.person?.reach
  return reach ? { orgId: principal.orgId, username: reach.username } : undefined
}

function outOfReach(): ApiError {
  return new ApiError(
    'forbidden',
    "This access token reaches only its own expert's profile and inquiries: this request is outside it.",
  )
}

/** A param or query value by name, when it is a string. */
function stringField(source: unknown, name: string): string | undefined {
  if (typeof source !== 'object' || source === null || !(name in source)) return undefined
  const value: unknown = Reflect.get(source, name)
  return typeof value === 'string' ? value : undefined
}

/**
 * The reach check of a token limited to one expert, closed by default: a route is within reach only
 * when it addresses that expert (see `expertReach`). Another expert's inquiry answers 404, as a
 * record out of sight does.
 */
async function checkExpertReach(
  inquiryRecipient: InquiryRecipient,
  request: FastifyRequest,
  orgId: number,
  username: string | null,
): Promise<void> {
  if (username === null) throw outOfReach()
  const mode = request.routeOptions.config.expertReach
  if (mode === false) throw outOfReach()
  if (mode === 'own') return
  if (mode === 'inquiry-list') {
    if (stringField(request.query, 'username') !== username) {
      throw new ApiError(
        'forbidden',
        `This access token reaches only the inquiries of its own expert: add username=${username} to the query.`,
      )
    }
    return
  }
  if (mode === 'inquiry') {
    const id = stringField(request.params, 'id')
    if (id === undefined || !isPositiveId(id)) return // the params schema answers 400
    if ((await inquiryRecipient(orgId, Number(id))) !== username) {
      throw new ApiError('not_found', 'The inquiry was not found.')
    }
    return
  }
  const target = stringField(request.params, 'username')
  if (target === undefined || target !== username) throw outOfReach()
}

/** The username an inquiry of the organization was sent to, if there is such an inquiry. */
export type InquiryRecipient = (orgId: number, id: number) => Promise<string | undefined>

/** Reads an inquiry's recipient from the table (the reach check of expert tokens). */
export function databaseInquiryRecipient(database: Database): InquiryRecipient {
  return async (orgId, id) => {
    const row = await database.db
      .selectFrom('inquiries')
      .select('username')
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst()
    return row?.username ?? undefined
  }
}

/** The route's scope, or its `queryScope` when the request carries that query parameter. */
export function neededScope(request: FastifyRequest, config: FastifyContextConfig): Scope {
  const { scope, queryScope } = config
  const query = request.query
  if (
    queryScope &&
    typeof query === 'object' &&
    query !== null &&
    Object.hasOwn(query, queryScope.parameter)
  ) {
    return queryScope.scope
  }
  // Unreachable: the onRoute check refuses a route without a scope.
  if (scope === undefined) throw new Error(`${request.routeOptions.url} declares no scope`)
  return scope
}
