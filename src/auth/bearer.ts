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
    /**
     * `false`: a delegate's grant (CONTRACT §21) never reaches this route, even though it addresses the
     * profile (the delegates routes: a delegate does not grant further). By default a grant reaches the
     * routes an expert's own token reaches for its profile, with the scopes of profile editing.
     */
    delegates?: false
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
  context: { principals: PrincipalResolver; inquiryRecipient: InquiryRecipient; delegation: DelegationCheck },
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
      const pending = authorize(request, config, resolution)
      if (!pending) return done()
      const check =
        'refusal' in pending
          ? checkDelegation(context.delegation, request, pending.refusal)
          : checkExpertReach(context.inquiryRecipient, request, pending.orgId, pending.username).catch(
              (refusal: unknown) => checkDelegation(context.delegation, request, refusal),
            )
      check.then(() => done(), done)
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
 * Checks a resolved token against the request: known, of the path's organization, holding the route's
 * scope. Returns what is left to check asynchronously: an expert-limited token's reach, or, for a
 * person whose own role falls short, whether a delegate's grant lets it through (else `refusal`).
 */
function authorize(
  request: FastifyRequest,
  config: FastifyContextConfig,
  resolved: Resolution | undefined,
): { orgId: number; username: string | null } | { refusal: ApiError } | undefined {
  if (!resolved) throw invalidToken()
  const { principal } = resolved
  request.principal = principal
  request.readVersion = resolved.version
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
  const needed = neededScope(request, config)
  if (!grants(principal.scopes, needed)) {
    if (principal.person && delegableUsername(request, config, needed) !== undefined)
      return { refusal: insufficientScope(needed) }
    throw insufficientScope(needed)
  }
  const reach = principal.person?.reach
  return reach ? { orgId: principal.orgId, username: reach.username } : undefined
}

/** What a delegate's grant may do on the profile: read it and edit it, as its expert could (CONTRACT §21). */
const DELEGATE_SCOPES: readonly Scope[] = ['read', 'write']

/**
 * The profile a delegate's grant could let this request reach: the route's `:username`, when the route
 * is one an expert's own token reaches for its profile (no `expertReach` mode, no `delegates: false`) and
 * needs no more than profile editing. Undefined otherwise.
 */
function delegableUsername(
  request: FastifyRequest,
  config: FastifyContextConfig,
  needed: Scope,
): string | undefined {
  if (config.delegates === false || config.expertReach !== undefined) return undefined
  if (!grants(DELEGATE_SCOPES, needed)) return undefined
  return stringField(request.params, 'username')
}

/**
 * The second chance of a person's request that its role does not reach: it passes when the person holds
 * a live grant on the profile the route addresses, read from the database now (a revoke or the end of
 * the grant takes effect on the next request); the request then acts with the scopes of profile editing
 * and its audit entries name the profile (`on_behalf_of`). Otherwise `refusal` stands.
 */
async function checkDelegation(
  delegation: DelegationCheck,
  request: FastifyRequest,
  refusal: unknown,
): Promise<void> {
  const { principal } = request
  const person = principal.person
  const username = delegableUsername(
    request,
    request.routeOptions.config,
    neededScope(request, request.routeOptions.config),
  )
  if (!person || username === undefined || !(await delegation(principal.orgId, person.id, username)))
    throw refusal
  request.principal = {
    ...principal,
    scopes: [...new Set([...principal.scopes, ...DELEGATE_SCOPES])],
    person: { id: person.id, role: person.role, reach: { username }, onBehalfOf: username },
  }
}

/** Whether the person `personId` of `orgId` holds a live grant on the expert `username` now. */
export type DelegationCheck = (orgId: number, personId: number, username: string) => Promise<boolean>

/** Reads grants from the table, at the clock's time of each request (no answer is kept). */
export function databaseDelegation(database: Database, now: () => number): DelegationCheck {
  return async (orgId, personId, username) => {
    const row = await database.db
      .selectFrom('expert_delegates as d')
      .innerJoin('experts as e', 'e.id', 'd.expert_id')
      .select('d.person_id')
      .where('d.org_id', '=', orgId)
      .where('e.org_id', '=', orgId)
      .where('d.person_id', '=', personId)
      .where('e.username', '=', username)
      .where('e.type', '=', 'expert')
      .where('d.until', '>', now())
      .executeTakeFirst()
    return row !== undefined
  }
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
