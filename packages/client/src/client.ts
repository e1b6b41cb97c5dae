import createClient, { type Client } from 'openapi-fetch'
import { ExpertdirError, errorFromResponse, jsonBodyOf } from './errors.js'
import { EtagCache } from './etag-cache.js'
import type { components, paths } from './schema.js'
import { TokenSource } from './tokens.js'
import { policyFetch, unwrap } from './transport.js'

type Schemas = components['schemas']
export type Profile = Schemas['Profile']
export type SpotlightRead = Schemas['SpotlightRead']
export type QuestionRead = Schemas['QuestionRead']
export type DonorInquiry = Schemas['DonorInquiry']
export type EventInquiry = Schemas['EventInquiry']

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

/** Query of `GET /v2/organization/:corporation/expert` (CONTRACT §10). */
export interface ExpertSearchQuery {
  q?: string
  searchfield?: 'fullname'
  access?: 'public' | 'private' | 'all'
  status?: 'published' | 'unpublished' | 'all'
  countries?: string[]
  topics?: string[]
  industries?: string[]
  categories?: string[]
  tags?: string[]
  companies?: string | string[]
  sort?: 'relevance' | 'name' | 'modified' | 'featured'
  page_size?: number
  page_from?: number
}

export interface ExpertSearchHit {
  username: string
  corporation_id: number
  firstname: string
  lastname: string
  fullname: string
  job_title: string
  company: string
  department: string | null
  location_country: string | null
  location_state: string | null
  location_city: string | null
  tagline: string
  topics: { title: string }[]
  avatar: { small: string; medium: string; large: string; original: string }
  is_published: number
  is_private: number
  modified: number
}

export interface FacetCount {
  key: string
  count: number
}

export interface ExpertSearchResult {
  experts: ExpertSearchHit[]
  total: number
  aggregations: Record<'countries' | 'topics' | 'industries' | 'categories' | 'tags', FacetCount[]>
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
  /** Sends an inquiry; retries are safe (an `Idempotency-Key` is added when not given). */
  sendInquiry(
    kind: 'donor',
    body: DonorInquiry,
    options?: { idempotencyKey?: string },
  ): Promise<InquiryResult>
  sendInquiry(
    kind: 'event',
    body: EventInquiry,
    options?: { idempotencyKey?: string },
  ): Promise<InquiryResult>
  /** Counters: token requests sent, ETag cache hits (304s answered from the cache) and misses. */
  stats(): { tokenRequests: number; cacheHits: number; cacheMisses: number; cacheSize: number }
}

/** The search query as the API reads it: arrays as repeated keys. */
function searchParams(query: ExpertSearchQuery): URLSearchParams {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item))
  }
  return params
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
    async searchExperts(query = {}) {
      const url = `${baseUrl}/v2/organization/${corporation}/expert?${searchParams(query)}`
      const response = await send(new Request(url, { headers: { accept: 'application/json' } }))
      const body = (await jsonBodyOf(response)) as { data?: ExpertSearchResult } | undefined
      if (!response.ok || !body?.data) throw errorFromResponse(response, body, now())
      return body.data
    },
    async sendInquiry(kind: 'donor' | 'event', body: DonorInquiry | EventInquiry, inquiry = {}) {
      const headers = inquiry.idempotencyKey ? { 'idempotency-key': inquiry.idempotencyKey } : {}
      const params = { path: { corporation }, header: headers }
      const result =
        kind === 'donor'
          ? await api.POST('/v2/organization/{corporation}/inquiry/donor', {
              params,
              body: body as DonorInquiry,
            })
          : await api.POST('/v2/organization/{corporation}/inquiry/event', {
              params,
              body: body as EventInquiry,
            })
      const data = await unwrapData(result)
      return { id: data.id, replayed: result.response.headers.get('idempotent-replayed') === 'true' }
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
