import { errorCodes, type FastifyInstance, type FastifyRequest, type RouteOptions } from 'fastify'
import FindMyWay from 'find-my-way'
import { ApiError } from '../errors.js'
import { nodeHttp } from './node-http.js'

type Method = FindMyWay.HTTPMethod

const HTTP_METHODS = new Set<string>(nodeHttp.METHODS)
/** The routers take the methods Node knows, which are all a route can have. */
const isMethod = (method: string): method is Method => HTTP_METHODS.has(method)
type Router = FindMyWay.Instance<FindMyWay.HTTPVersion.V1>
type RouterOptions = Pick<
  FindMyWay.Config<FindMyWay.HTTPVersion.V1>,
  'caseSensitive' | 'ignoreTrailingSlash' | 'ignoreDuplicateSlashes' | 'maxParamLength' | 'allowUnsafeRegex'
> & { useSemicolonDelimiter?: boolean }

/** A path's methods: those `Allow` lists, and those a catch-all route answers (not listed, and no 405). */
interface PathMethods {
  listed: Set<string>
  taken: Set<string>
}

/** What the matcher keeps per path. */
interface KnownPath extends PathMethods {
  allow: string
}

/** A 405 route that must stay in the router: see `KnownPaths.seal`. */
export interface FallbackRoute {
  url: string
  methods: string[]
  allow: string
}

export function methodNotAllowedError(method: string, allow: string): ApiError {
  return new ApiError('method_not_allowed', `${method} is not allowed here; use ${allow}.`, {
    headers: { allow },
  })
}

/** The options the app's own router runs with, so that the matcher reads a URL as the router does. */
export function routerOptionsOf(app: FastifyInstance): RouterOptions {
  const initial = app.initialConfig
  const own: RouterOptions = initial.routerOptions ?? {}
  return {
    caseSensitive: own.caseSensitive ?? initial.caseSensitive,
    ignoreTrailingSlash: own.ignoreTrailingSlash ?? initial.ignoreTrailingSlash,
    ignoreDuplicateSlashes: own.ignoreDuplicateSlashes ?? initial.ignoreDuplicateSlashes,
    maxParamLength: own.maxParamLength ?? initial.maxParamLength,
    allowUnsafeRegex: own.allowUnsafeRegex ?? initial.allowUnsafeRegex,
    useSemicolonDelimiter: own.useSemicolonDelimiter ?? initial.useSemicolonDelimiter,
  }
}

const noop = () => {}

/**
 * The API's paths and their methods, for the 405s: a request no route takes is looked up here by the
 * not-found handlers (`refusedMethod`), one router entry per path, instead of the router holding a
 * route for each method a path lacks.
 */
export class KnownPaths {
  /** Per API path (no /docs, no wildcard). */
  private readonly paths = new Map<string, PathMethods>()
  /** Every route by method and path, until `seal`: what a 405 route could stand in front of. */
  private routes = new Map<string, { method: string; url: string; readable: boolean }>()
  private matcher: Router | undefined
  /** The wildcard routes (see `refusal`). */
  private wildcards: Router | undefined

  constructor(private readonly options: RouterOptions) {}

  record(route: RouteOptions): void {
    if (route.config?.methodFallback) return
    const methods = [route.method].flat()
    const constrained = route.constraints !== undefined && Object.keys(route.constraints).length > 0
    for (const method of methods)
      this.routes.set(`${method} ${route.url}`, { method, url: route.url, readable: !constrained })
    // Only the API's own paths: the docs UI registers its static files as it likes, and a wildcard
    // route (CORS preflights, the dashboard's files) names no path.
    if (route.url.startsWith('/docs') || route.url.includes('*')) return
    const path = this.paths.get(route.url) ?? { listed: new Set<string>(), taken: new Set<string>() }
    for (const method of methods) path[route.config?.catchAll ? 'taken' : 'listed'].add(method)
    this.paths.set(route.url, path)
  }

  /**
   * Builds the matcher once every route is registered, and returns the 405s that must remain routes:
   * a method's 405 on a path that would win, in the router, over another route of that method matching
   * the same URL (`PUT .../search` is a 405 for `/search`, not a `PUT .../:id`; `DELETE .../order` is a
   * 405 for `/order`). Without its own route, such a request would reach that other route.
   */
  seal(methods: readonly string[]): FallbackRoute[] {
    const matcher = FindMyWay({ ...this.options, onMaxParamLength: noop })
    const known = new Map<string, KnownPath>()
    for (const [url, { listed, taken }] of this.paths) {
      if (listed.size === 0) continue
      const path = { listed, taken, allow: [...listed].sort().join(', ') }
      known.set(url, path)
      matcher.on('GET', url, noop, path)
    }
    const kept = new Map<string, string[]>()
    for (const method of methods) {
      const lacking = [...known].filter(([, path]) => !path.listed.has(method) && !path.taken.has(method))
      if (!isMethod(method)) continue
      for (const url of this.shadowing(method, lacking)) kept.set(url, [...(kept.get(url) ?? []), method])
    }
    const wildcards = FindMyWay(this.options)
    for (const { method, url } of this.routes.values())
      if (url.includes('*') && isMethod(method)) wildcards.on(method, url, noop)
    this.matcher = matcher
    this.wildcards = wildcards
    this.routes.clear()
    return [...kept].map(([url, methods]) => ({ url, methods, allow: known.get(url)?.allow ?? '' }))
  }

  /**
   * The 405 (or the router's error for an over-long path segment) for a request no route took, when
   * its path is a known one; undefined for a 404.
   */
  refusal(method: string, url: string): Error | undefined {
    const found = this.matcher?.find('GET', url)
    if (!found) return undefined
    // An over-long path segment where the path has a parameter: the router refused it (400) when it
    // held a route for each method; unless a wildcard route took the request (the only kind of route
    // that can match such a URL), which handed it on to the not-found handler (404).
    if (found.store === null)
      return isMethod(method) && this.wildcards?.find(method, url)
        ? undefined
        : new errorCodes.FST_ERR_MAX_PARAM_LENGTH(url)
    const path = found.store as KnownPath
    if (path.listed.has(method) || path.taken.has(method)) return undefined
    return methodNotAllowedError(method, path.allow)
  }

  /**
   * Those of the paths lacking `method` whose 405 would, on some URL, stand in front of a route of
   * `method`. Each URL that could show it is tried (below) in two routers: the routes of `method`
   * alone, and with the 405s added.
   */
  private shadowing(method: Method, lacking: [string, KnownPath][]): string[] {
    // @fastify/cors's `OPTIONS *` (it answers preflights in its hook, `preflightContinue` being off)
    // hands every request that reaches it to the not-found handler (`reply.callNotFound()`), which
    // answers the 405 itself.
    const routes = [...this.routes.values()].filter(
      (route) => route.method === method && !(method === 'OPTIONS' && route.url === '*'),
    )
    if (routes.length === 0 || lacking.length === 0) return []
    const shapes = routes.map((route) => (route.readable ? segmentsOf(route.url, this.options) : undefined))
    // A route these segments cannot describe: its method's 405s stay routes, as before.
    if (shapes.some((shape) => shape === undefined)) return lacking.map(([url]) => url)
    const known = shapes.filter((shape) => shape !== undefined)
    const real = FindMyWay(this.options)
    const all = FindMyWay(this.options)
    for (const route of routes) {
      real.on(method, route.url, noop)
      all.on(method, route.url, noop)
    }
    for (const [url, path] of lacking) all.on(method, url, noop, path)
    const statics = new Set(
      known.flat().flatMap((segment) => (typeof segment === 'object' ? [segment.text] : [])),
    )
    let neutral = '-'
    while (statics.has(neutral)) neutral += '-'
    return lacking
      .filter(([url, path]) => {
        const segments = segmentsOf(url, this.options)
        if (segments === undefined) return true
        const overlapping = known.filter((shape) => overlaps(segments, shape))
        if (overlapping.length === 0) return false
        return urlsOf(segments, overlapping, neutral).some(
          (candidate) => all.find(method, candidate)?.store === path && real.find(method, candidate) !== null,
        )
      })
      .map(([url]) => url)
  }
}

/** A whole path segment: a static text, a `:name` parameter or a final `*`. */
type Segment = { text: string } | 'param' | 'wildcard'

/**
 * A route path as the router reads it, in whole segments; undefined when a segment is more than that
 * (a regular expression, several parameters, a parameter inside a text).
 */
function segmentsOf(url: string, options: RouterOptions): Segment[] | undefined {
  if (url === '*') return ['wildcard']
  let path = url
  if (options.ignoreDuplicateSlashes) path = path.replace(/\/+/g, '/')
  if (options.ignoreTrailingSlash && path.length > 1 && path.endsWith('/')) path = path.slice(0, -1)
  const parts = path.split('/')
  const segments: Segment[] = []
  for (const [i, part] of parts.entries()) {
    if (part === '*' && i === parts.length - 1) segments.push('wildcard')
    else if (/^:[A-Za-z0-9_]+$/.test(part)) segments.push('param')
    else if (/[:*(]/.test(part)) return undefined
    else segments.push({ text: options.caseSensitive === false ? part.toLowerCase() : part })
  }
  return segments
}

/** Whether some URL matches both paths. */
function overlaps(a: Segment[], b: Segment[]): boolean {
  for (let i = 0; ; i++) {
    const [x, y] = [a[i], b[i]]
    if (x === undefined || y === undefined) return x === y
    if (x === 'wildcard' || y === 'wildcard') return true
    if (typeof x === 'object' && typeof y === 'object' && x.text !== y.text) return false
  }
}

/**
 * The URLs of `segments` worth trying against the routes it overlaps: each parameter is either a text
 * those routes have at its place or a text none of them has (`neutral`). Any URL on which the 405 would
 * stand in front of a route has such a counterpart, which matches the same routes in the same order.
 */
function urlsOf(segments: Segment[], overlapping: Segment[][], neutral: string): string[] {
  let urls = ['']
  for (const [i, segment] of segments.entries()) {
    const choices =
      typeof segment === 'object'
        ? [segment.text]
        : [
            ...new Set(
              overlapping.flatMap((other) => {
                const at = other[i]
                return typeof at === 'object' ? [at.text] : []
              }),
            ),
            neutral,
          ]
    urls = urls.flatMap((url) => choices.map((choice) => (i === 0 ? choice : `${url}/${choice}`)))
  }
  return urls
}

const KNOWN_PATHS: unique symbol = Symbol('expertdir.knownPaths')

declare module 'fastify' {
  interface FastifyInstance {
    /** The API's paths and methods, for the 405s (set by `methodNotAllowed`). */
    [KNOWN_PATHS]?: KnownPaths
  }
}

/** Makes `paths` what the not-found handlers of `app` and of its plugins consult. */
export function consultOnNotFound(app: FastifyInstance, paths: KnownPaths): void {
  app.decorate(KNOWN_PATHS, paths)
}

/**
 * For a not-found handler: the 405 when the request's path is a known one (the path exists, the method
 * does not), the router's error for an over-long path segment; undefined when the path is unknown (404).
 */
export function refusedMethod(request: FastifyRequest): Error | undefined {
  return request.server[KNOWN_PATHS]?.refusal(request.method, request.raw.url ?? request.url)
}
