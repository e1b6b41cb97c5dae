import createClient, { type Client } from 'openapi-fetch'
import { ExpertdirError, errorFromResponse, isObject, jsonBodyOf } from './errors.js'
import { EtagCache } from './etag-cache.js'
import type { components, operations, paths } from './schema.js'
import { TokenSource } from './tokens.js'
import { policyFetch, unwrap } from './transport.js'

type Schemas = components['schemas']
export type Profile = Schemas['Profile']
export type SpotlightRead = Schemas['SpotlightRead']
export type QuestionRead = Schemas['QuestionRead']

const INQUIRY_PREFIX = '/v2/organization/{corporation}/inquiry/'
/** The paths under `.../inquiry/` that take a POST. */
type InquiryPostPath = {
  [Path in keyof paths]: Path extends `${typeof INQUIRY_PREFIX}${string}`
    ? paths[Path] extends { post: object }
      ? Path
      : never
    : never
}[keyof paths]
/** The last segment of such a path when it is a plain name (not `{id}`, not deeper). */
type KindOf<Path> = Path extends `${typeof INQUIRY_PREFIX}${infer Kind}`
  ? Kind extends `${string}/${string}` | `{${string}`
    ? never
    : Kind
  : never

/**
 * Every inquiry kind the service accepts (`donor`, `event`, `general`, `media`, ...), read from the
 * OpenAPI document's paths, so a kind the service adds appears here when the types are regenerated.
 */
export type InquiryKind = KindOf<InquiryPostPath>

/** The request body of an inquiry of `kind`, as the service's schema for that kind describes it. */
export type InquiryBody<Kind extends InquiryKind> = NonNullable<
  paths[`${typeof INQUIRY_PREFIX}${Kind}`]['post']['requestBody']
>['content']['application/json']

export type DonorInquiry = InquiryBody<'donor'>
export type EventInquiry = InquiryBody<'event'>

/** Query of `GET /v2/organization/:corporation/expert` (CONTRACT §10). */
export type ExpertSearchQuery = NonNullable<operations['searchExperts']['parameters']['query']>
export type ExpertSearchResult = Schemas['ExpertSearchResult']
export type ExpertSearchHit = ExpertSearchResult['experts'][number]
export type FacetCount = ExpertSearchResult['aggregations']['topics'][number]

export interface ExpertdirClientOptions {
  /** The service's base URL, such as `https://experts.example.org` (no `/v2`). */
  baseUrl: string
  clientId: string
  clientSecret: string
  /** The organization (`:corporation`) the client's credentials belong to. */
  organization: number
  /** Space-separated scopes to ask for, such as `read:public inquiries:create` (default: all of the client's). */
  scope?: string
  /** Renew the token this many seconds before it expires (default 60). */
  refreshMarginSeconds?: number
  /** How many GET responses to keep for revalidation with `If-None-Match` (default 500; 0 turns it off). */
  etagCacheSize?: number
  /** Further attempts after a 429/503 or a dropped connection (default 2). */
  maxRetries?: number
  /** A `Retry-After` longer than this many seconds is not waited for (default 30). */
  maxRetryAfterSeconds?: number
  /** First wait before resending after a dropped connection, in milliseconds (default 200). */
  retryDelayMs?: number
  /** Replaces the global fetch (proxies, instrumentation, tests). */
  fetch?: typeof fetch
  /** Clock in unix milliseconds (tests move it). */
  now?: () => number
  /** How to wait before a retry (tests record it). */
  sleep?: (ms: number) => Promise<void>
  newIdempotencyKey?: () => string
}

export interface InquiryResult {
  id: number
  /** True when the server answered with the first result of this `Idempotency-Key`. */
  replayed: boolean
}

export interface ExpertdirClient {
  /** The typed openapi-fetch client for every operation, with the same token, cache and retry policy. */
  readonly api: Client<paths>
  readonly organization: number
  /** A valid access token (fetched or reused). */
  token(): Promise<string>
  getExpert(username: string): Promise<Profile>
  getSpotlight(id: number): Promise<SpotlightRead>
  getQuestion(id: number): Promise<QuestionRead>
  searchExperts(query?: ExpertSearchQuery): Promise<ExpertSearchResult>
  /**
   * Sends an inquiry of any kind, its body typed for that kind; retries are safe (an `Idempotency-Key`
   * is added when not given). Refusals throw `ExpertdirError` (`validation_failed` with `details`,
   * `not_found` for an unknown expert, ...).
   */
  sendInquiry<Kind extends InquiryKind>(
    kind: Kind,
    body: InquiryBody<Kind>,
    options?: { idempotencyKey?: string },
  ): Promise<InquiryResult>
  /** Counters: token requests sent, ETag cache hits (304s answered from the cache) and misses. */
  stats(): { tokenRequests: number; cacheHits: number; cacheMisses: number; cacheSize: number }
}

/** A client for one organization's credentials. */
export function createExpertdirClient(options: ExpertdirClientOptions): ExpertdirClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const now = options.now ?? Date.now
  const baseFetch = options.fetch ?? globalThis.fetch
  const tokens = new TokenSource({
    baseUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scope: options.scope,
    fetch: baseFetch,
    now,
    refreshMarginSeconds: options.refreshMarginSeconds ?? 60,
  })
  const cache = new EtagCache(options.etagCacheSize ?? 500)
  const send = policyFetch({
    tokens,
    cache,
    fetch: baseFetch,
    now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    maxRetries: options.maxRetries ?? 2,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 30,
    retryDelayMs: options.retryDelayMs ?? 200,
    newIdempotencyKey: options.newIdempotencyKey ?? (() => crypto.randomUUID()),
  })
  const api = createClient<paths>({ baseUrl, fetch: send })
  const corporation = options.organization

  const unwrapData = async <T>(result: {
    data?: { data: T }
    error?: unknown
    response: Response
  }): Promise<T> => (await unwrap(result, now())).data

  return {
    api,
    organization: corporation,
    token: () => tokens.get(),
    getExpert: async (username) =>
      unwrapData(
        await api.GET('/v2/organization/{corporation}/expert/{username}', {
          params: { path: { corporation, username } },
        }),
      ),
    getSpotlight: async (id) =>
      unwrapData(
        await api.GET('/v2/spotlight/{corporation}/{id}', { params: { path: { corporation, id } } }),
      ),
    getQuestion: async (id) =>
      unwrapData(await api.GET('/v2/qanda/{corporation}/{id}', { params: { path: { corporation, id } } })),
    searchExperts: async (query = {}) =>
      unwrapData(
        await api.GET('/v2/organization/{corporation}/expert', {
          params: { path: { corporation }, query },
        }),
      ),
    async sendInquiry(kind, body, inquiry = {}) {
      // One request shape for every kind: the body's type is checked at the call (InquiryBody<Kind>).
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json',
      }
      if (inquiry.idempotencyKey) headers['idempotency-key'] = inquiry.idempotencyKey
      const url = `${baseUrl}${INQUIRY_PREFIX.replace('{corporation}', String(corporation))}${encodeURIComponent(kind)}`
      const response = await send(new Request(url, { method: 'POST', headers, body: JSON.stringify(body) }))
      const json = await jsonBodyOf(response)
      const data = isObject(json) && isObject(json.data) ? json.data : undefined
      if (!response.ok || typeof data?.id !== 'number') throw errorFromResponse(response, json, now())
      return { id: data.id, replayed: response.headers.get('idempotent-replayed') === 'true' }
    },
    stats: () => ({
      tokenRequests: tokens.requests,
      cacheHits: cache.hits,
      cacheMisses: cache.misses,
      cacheSize: cache.size,
    }),
  }
}

export { ExpertdirError }
