import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import { tokenOf } from '../auth/bearer.js'
import { handOver } from '../auth/handed-over.js'
import type { PrincipalResolver, Resolution } from '../auth/principals.js'
import { grants } from '../auth/scopes.js'
import type { Conventions } from '../http/conventions.js'
import { requestIdOf } from '../http/conventions.js'
import { JSON_CONTENT_TYPE, matchesEtag, READ_CACHE_CONTROL } from '../http/etag.js'
import { hasMediaReference, withMediaBase } from '../storage/keys.js'
import type { KeptBodies, KeptBody } from './kept-bodies.js'
import { type KeptRoute, type KeptRoutes, keptKey } from './kept-reads.js'

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void

export interface KeptReadLaneOptions {
  principals: PrincipalResolver
  bodies: KeptBodies
  routes: KeptRoutes
  conventions: Conventions
  /** How the request reached us (src/http/protocol.ts). */
  protocolOf: (request: IncomingMessage) => string
  /**
   * `EXPERTDIR_PUBLIC_URL`, which kept bodies' media references are given on the way out (as Fastify
   * does, src/media/base.ts); unset, a body holding one goes on to Fastify, which knows the request's host.
   */
  publicUrl?: string
  /** Counts a response answered here (the HTTP metrics, when on). */
  observe?: (labels: { method: string; route: string; status: string }, seconds: number) => void
  /**
   * SQLite: runs its work with one change check of the read connection (`checkingOnce`). The lane then
   * answers the kept reads received in one turn of the event loop together, at the turn's end, with
   * one check for them all instead of one each.
   */
  checkingOnce?: (work: () => void) => void
}

/**
 * The kept-read lane: a GET whose whole answer is a kept body (src/kept-reads/kept-reads.ts) is answered
 * here, in front of Fastify, with the response Fastify would send for it (the same status, headers in
 * the same order, and bytes), and everything else goes on to Fastify. On a kept read, Fastify's request
 * and reply objects, its router and its hook chain cost more than the rest of the request; plain
 * `node:http` with the same checks costs little more than a bare server.
 *
 * The checks are those of the bearer hook (src/auth/bearer.ts) for the route that answered the URL
 * before: a client token (dashboard tokens go on), live, of the URL's organization, holding the URL's
 * scope, with the target's current version, and a body kept under (audience, version, URL). Anything
 * else, whatever its reason (unknown URL, a malformed, expired or revoked token, a missing scope, a
 * version not kept, the app closing), goes on to Fastify, which answers as it always does. Install the
 * lane only when nothing else would run on such a request: no per-token rate limit, no CORS, no
 * request log line (src/app.ts).
 */
export class KeptReadLane {
  /** Requests answered here (tests, to tell the lane from Fastify). */
  answered = 0

  constructor(private readonly options: KeptReadLaneOptions) {}

  /** Kept reads received in this turn of the event loop, answered together at its end (`checkingOnce`). */
  #thisTurn: (() => void)[] = []

  /** `next` (Fastify's request listener) behind the lane. */
  front(next: RequestListener): RequestListener {
    const { routes, conventions, checkingOnce } = this.options
    return (request, response) => {
      const url = request.url
      const route = request.method === 'GET' && url !== undefined ? routes.get(url) : undefined
      const token = route && tokenOf(request.headers.authorization)
      if (!route || !token || url === undefined || conventions.closing()) return next(request, response)
      if (!checkingOnce) return this.#answer(request, response, next, route, token, url)
      if (this.#thisTurn.push(() => this.#answer(request, response, next, route, token, url)) === 1) {
        setImmediate(() => {
          const turn = this.#thisTurn
          this.#thisTurn = []
          checkingOnce(() => {
            for (const answer of turn) answer()
          })
        })
      }
    }
  }

  #answer(
    request: IncomingMessage,
    response: ServerResponse,
    next: RequestListener,
    route: KeptRoute,
    token: string,
    url: string,
  ): void {
    const { principals, conventions } = this.options
    let resolved: ReturnType<PrincipalResolver['resolve']>
    try {
      resolved = principals.resolve(token, route.target)
    } catch {
      next(request, response)
      return
    }
    const answer = (resolution: Resolution | undefined) => {
      const kept = conventions.closing()
        ? undefined
        : this.#withMediaBase(this.#keptFor(route, resolution, url))
      if (!kept) {
        handOver(request, token, route.target, resolution)
        return next(request, response)
      }
      try {
        this.#send(request, response, route, kept)
      } catch (error) {
        // Nothing sent yet: Fastify answers (and logs) it; else the response cannot be completed.
        if (response.headersSent) response.destroy(error instanceof Error ? error : undefined)
        else next(request, response)
      }
    }
    if (resolved instanceof Promise) resolved.then(answer, () => next(request, response))
    else answer(resolved)
  }

  /** A kept body with its media references made URLs; undefined when that needs the request's host. */
  #withMediaBase(kept: KeptBody | undefined): KeptBody | undefined {
    if (!kept) return undefined
    const { publicUrl } = this.options
    if (publicUrl) return { body: withMediaBase(kept.body, publicUrl), etag: kept.etag }
    return hasMediaReference(kept.body) ? undefined : kept
  }

  /** The kept body this request may be sent, if any. */
  #keptFor(route: KeptRoute, resolution: Resolution | undefined, url: string): KeptBody | undefined {
    if (!resolution || typeof resolution.version !== 'string') return undefined
    const { principal } = resolution
    if (principal.person || principal.orgId !== route.target.orgId || !grants(principal.scopes, route.scope))
      return undefined
    return this.options.bodies.get(keptKey(principal.scopes, resolution.version, url))
  }

  #send(request: IncomingMessage, response: ServerResponse, route: KeptRoute, kept: KeptBody) {
    const { conventions, protocolOf, observe } = this.options
    const started = observe ? performance.now() : 0
    conventions.reused(request.socket)
    const unchanged = matchesEtag(request.headers['if-none-match'], kept.etag)
    response.writeHead(unchanged ? 304 : 200, {
      ...conventions.headers[protocolOf(request) === 'https' ? 'https' : 'http'],
      'x-request-id': requestIdOf(request.headers['x-request-id']),
      'content-type': JSON_CONTENT_TYPE,
      etag: kept.etag,
      'cache-control': READ_CACHE_CONTROL,
      'content-length': unchanged ? 0 : kept.body.length,
    })
    response.end(unchanged ? undefined : kept.body)
    this.answered++
    observe?.(
      { method: 'GET', route: route.route, status: unchanged ? '304' : '200' },
      (performance.now() - started) / 1000,
    )
  }
}
