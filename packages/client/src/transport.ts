import { ExpertdirError, errorFromResponse, isObject, jsonBodyOf, retryAfterSeconds } from './errors.js'
import type { EtagCache } from './etag-cache.js'
import type { TokenSource } from './tokens.js'

export interface TransportOptions {
  tokens: TokenSource
  cache: EtagCache
  fetch: typeof fetch
  now: () => number
  sleep: (ms: number) => Promise<void>
  /** Further attempts after a 429/503 or a dropped connection (default 2). */
  maxRetries: number
  /** A `Retry-After` longer than this is not waited for: the error is thrown at once (default 30). */
  maxRetryAfterSeconds: number
  /** Wait before retrying a dropped connection (milliseconds, doubled each time; default 200). */
  retryDelayMs: number
  /** Makes a new `Idempotency-Key` (default `crypto.randomUUID`). */
  newIdempotencyKey: () => string
}

/** Inquiry creation is the one POST the API makes idempotent with a key. */
const isInquiryPost = (request: Request) =>
  request.method === 'POST' &&
  /\/v2\/organization\/[^/]+\/inquiry\/[^/]+$/.test(new URL(request.url).pathname)

const isSafe = (request: Request) => request.method === 'GET' || request.method === 'HEAD'

/** A 401 that a fresh token may cure: the token expired or was revoked meanwhile. */
async function isInvalidToken(response: Response): Promise<boolean> {
  if (response.status !== 401) return false
  if (/error="invalid_token"/.test(response.headers.get('www-authenticate') ?? '')) return true
  const body = await jsonBodyOf(response)
  return isObject(body) && isObject(body.error) && body.error.code === 'invalid_token'
}

/**
 * The `fetch` that openapi-fetch calls: adds the bearer token (renewed once on `invalid_token`),
 * revalidates GETs from the ETag cache, gives inquiry POSTs an `Idempotency-Key`, and retries what is
 * safe to retry (GETs and keyed POSTs after a dropped connection or a 503; anything after a 429), waiting
 * as `Retry-After` says.
 */
export function policyFetch(options: TransportOptions): (input: Request) => Promise<Response> {
  const { tokens, cache } = options
  return async (input: Request) => {
    const request = input.clone()
    if (isInquiryPost(request) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', options.newIdempotencyKey())
    }
    const retriable = isSafe(request) || request.headers.has('idempotency-key')
    const cacheKey = request.method === 'GET' ? request.url : undefined
    let renewedToken = false
    let delay = options.retryDelayMs

    for (let attempt = 0; ; attempt++) {
      const attemptRequest = request.clone()
      const token = await tokens.get()
      attemptRequest.headers.set('authorization', `Bearer ${token}`)
      const etag = cacheKey ? cache.etagOf(cacheKey) : undefined
      if (etag && !attemptRequest.headers.has('if-none-match'))
        attemptRequest.headers.set('if-none-match', etag)

      let response: Response
      try {
        response = await options.fetch(attemptRequest)
      } catch (error) {
        // The connection dropped: the server may or may not have acted. Only a request that cannot
        // act twice is sent again.
        if (!retriable || attempt >= options.maxRetries) throw error
        await options.sleep(delay)
        delay *= 2
        continue
      }

      if (!renewedToken && (await isInvalidToken(response))) {
        renewedToken = true
        tokens.invalidate(token)
        attempt--
        continue
      }
      if (response.status === 304 && cacheKey && etag) {
        const cached = cache.replay(cacheKey, response)
        if (cached) return cached
      }
      if (response.status === 429 || (response.status === 503 && retriable)) {
        const wait = retryAfterSeconds(response.headers.get('retry-after'), options.now()) ?? 1
        if (attempt < options.maxRetries && wait <= options.maxRetryAfterSeconds) {
          await options.sleep(wait * 1000)
          continue
        }
      }
      if (cacheKey && response.status === 200) {
        cache.misses++
        await cache.store(cacheKey, response)
      }
      return response
    }
  }
}

/** Throws the typed error of a failed call; returns the data of a successful one. */
export async function unwrap<T>(
  result: { data?: T; error?: unknown; response: Response },
  now: number,
): Promise<T> {
  if (result.response.ok && result.data !== undefined) return result.data
  throw result.error instanceof ExpertdirError
    ? result.error
    : errorFromResponse(result.response, result.error, now)
}
