/**
 * src/kept-reads: the read path's caches (docs/performance.md, "Kept reads"). Nothing here expires by
 * time and nothing is shared between processes; each process keeps its own, and one rule keeps them
 * all correct: an answer is kept under the version of what it was built from, read from the database
 * on every request.
 *
 * What is kept:
 * - response bodies (kept-bodies.ts): the bytes and ETag of a GET's 200 answer whose route names a
 *   `readTarget` (read-targets.ts: a profile and its sections, a post, a Q&A item, the three searches),
 *   under (audience, target version, URL); sent by the hooks below, or before Fastify by the lane
 *   (kept-read-lane.ts); bounded by `EXPERTDIR_READ_CACHE_BYTES`. Beside them, the route of each kept
 *   URL (KeptRoutes), so that the lane makes the bearer check's checks; it answers nothing by itself.
 * - search results (result-cache.ts): the page of ids, the total and the aggregations of the expert
 *   search and the staff lists, under the organization's search version, one cache per database
 *   handle. The public directory keeps its rendered pages in one too, under the versions they show
 *   (src/directory/routes.ts).
 * - on SQLite in a file, answers read on the read-only connection (validated-answers.ts): token checks
 *   and target versions (src/auth/principals.ts), the directory's lookups (src/directory/lookups.ts).
 *
 * What validates them:
 * - a body or a search result: the version in its key. An expert's `doc_version` and its
 *   organization's `profile_version`; a post's or Q&A item's `doc_version`; the organization's search
 *   version (`expert_search_versions`).
 * - an answer of the read connection: that connection's change check (src/db/read-connection.ts). When
 *   it has moved since the last check, every answer kept on it is forgotten at once.
 *
 * Why a kept answer is never stale:
 * - Every write raises the versions of what it changes, in its own transaction, through the hub of
 *   src/derived/changes.ts: a profile write bumps the expert's `doc_version` (src/derived/versions.ts),
 *   or the organization's `profile_version` for the organization profile; an account change also bumps
 *   the posts tagging the expert and the questions it answered; a post or Q&A write the item's
 *   `doc_version`; any change to the organization's experts, posts or questions raises its search
 *   version (src/derived/search-index.ts).
 * - A request reads the current version before anything is built: the bearer check reads the target's
 *   version before the handler runs (src/auth/principals.ts), a search reads the search version before
 *   it searches. What is kept under a version is never older than that version, and versions only
 *   grow: once a write has committed, no request asks for the older key again.
 * - The current version comes from the database every process commits to. The target's version: on
 *   PostgreSQL from a statement started after the request arrived (the token check's, shared by the
 *   requests of one turn of the event loop: src/auth/principal-batches.ts); on SQLite through the read
 *   connection, whose answers are trusted only while its change check has not moved, and every commit
 *   by any connection of any process moves it (src/db/wal-index.ts). A search's version: by a query of
 *   its own, on both databases.
 * - So anything that changes these tables outside the write path (a data migration, hand-written SQL)
 *   must raise the versions too.
 *
 * What is never kept: reads with a dashboard token (`p.`, resolved without a version:
 * src/sessions/principals.ts); a read of a record that does not exist (it has no version); any answer
 * but a GET's 200; a route without a `readTarget`; the SHA-256 of a token (computed on every request:
 * keeping it would take the raw token as its key). A token's expiry is checked against the clock on
 * every request, kept or not. On PostgreSQL and SQLite in memory no token check or version is kept.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import { neededScope } from '../auth/bearer.js'
import type { Scope } from '../auth/scopes.js'
import { audienceOf } from '../derived/audience.js'
import { etagOf, JSON_CONTENT_TYPE } from '../http/etag.js'
import type { KeptBodies } from './kept-bodies.js'
import type { ReadTarget } from './read-targets.js'

/** What the bearer check of a kept URL checks besides the token: the route's target and scope. */
export interface KeptRoute {
  target: ReadTarget
  /** The scope this URL needs (its route's, or its `queryScope` when the query names it). */
  scope: Scope
  /** The route's path template (metrics). */
  route: string
}

/** Bytes a kept route counts for besides its URL. */
const ROUTE_OVERHEAD_BYTES = 160

/** The routes of kept URLs, by URL (path and query string); bounded by bytes like the kept bodies. */
export class KeptRoutes {
  readonly #entries: LRUCache<string, KeptRoute>

  constructor(maxBytes: number) {
    this.#entries = new LRUCache<string, KeptRoute>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (_route, url) => 2 * url.length + ROUTE_OVERHEAD_BYTES,
    })
  }

  get(url: string): KeptRoute | undefined {
    return this.#entries.get(url)
  }

  set(url: string, route: KeptRoute): void {
    this.#entries.set(url, route)
  }

  get size(): number {
    return this.#entries.size
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** What its body is kept under once answered (a read with a known target version). */
    keptAs: { key: string; route: KeptRoute } | undefined
  }
}

/**
 * The key of a read's body: the URL (path and query string, so the route and every parameter), the
 * audience the token reads as (CONTRACT §17) and the version of the record the body is built from.
 * The organization is in the URL and the bearer check has already matched it with the token's.
 */
export function keptKey(scopes: readonly string[], version: string, url: string): string {
  return `${audienceOf(scopes)} ${version} ${url}`
}

function keyOf(request: FastifyRequest): string | undefined {
  const version = request.readVersion
  if (typeof version !== 'string' || request.method !== 'GET') return undefined
  return keptKey(request.principal.scopes, version, request.url)
}

/** What the bearer check checked for this URL, so that the lane can check the same without the router. */
function routeOf(request: FastifyRequest): KeptRoute | undefined {
  const { config, url } = request.routeOptions
  const target = config.readTarget?.(request.params)
  return target && url !== undefined ? { target, scope: neededScope(request, config), route: url } : undefined
}

/**
 * Kept reads (docs/performance.md, "Kept reads"): a route whose options name a `readTarget` has its
 * 200 bodies kept under (URL, audience, version of the target), and a request whose key is kept is
 * answered from it before its handler runs, with the same bytes and the same ETag. The version comes
 * from the bearer check (src/auth/principals.ts), read before the handler reads anything, so a kept
 * body is never older than its key; versions only grow, so an older body is never asked for again.
 *
 * A kept body is sent from `onRequest`, so a kept request skips parsing and validating its parameters
 * and query: the key holds the whole URL, and a body is kept only after that very URL answered 200, so
 * validation would pass again. Register after the bearer hook and the per-token limit (both
 * `onRequest`, which run in registration order) and before the ETag hook (which turns a match into a
 * 304). Each kept URL's route is noted in `routes`, for the lane that answers the next requests for it
 * before the framework (src/kept-reads/kept-read-lane.ts).
 */
export function registerKeptReads(app: FastifyInstance, bodies: KeptBodies, routes: KeptRoutes): void {
  app.decorateRequest('keptAs', undefined)
  app.addHook('onRequest', (request, reply, done) => {
    const key = keyOf(request)
    if (key === undefined) return done()
    const kept = bodies.get(key)
    if (!kept) {
      const route = routeOf(request)
      if (route) request.keptAs = { key, route }
      return done()
    }
    reply.header('content-type', JSON_CONTENT_TYPE).header('etag', kept.etag).send(kept.body)
  })
  app.addHook('onSend', (request, reply, payload, done) => {
    const keptAs = request.keptAs
    if (
      keptAs !== undefined &&
      reply.statusCode === 200 &&
      (typeof payload === 'string' || Buffer.isBuffer(payload))
    ) {
      const body = typeof payload === 'string' ? Buffer.from(payload) : payload
      const stored = reply.getHeader('etag')
      bodies.set(keptAs.key, { body, etag: typeof stored === 'string' ? stored : etagOf(body) })
      routes.set(request.url, keptAs.route)
    }
    done(null, payload)
  })
}
