import type { components } from './schema.js'

type Schemas = components['schemas']

/** One offending field of a validation error (`field`, `message`, and any extra the server adds). */
export type ErrorDetail = Schemas['ErrorDetail']

/**
 * The codes the service documents: its closed catalogue (the error envelope's `code`), the RFC 6749
 * codes of the OAuth endpoints, and `unknown_error` for an answer in neither shape (a proxy's page,
 * say). Typed as open-ended too, so a code added by a newer server still type-checks.
 */
export type ErrorCode =
  | Schemas['Error']['error']['code']
  | Schemas['OAuthError']['error']
  | 'unknown_error'
  | (string & {})

/**
 * Any refusal by the API, from either error shape it uses: the envelope
 * `{success: false, error: {code, message, details?, request_id?}}` of every endpoint, or the
 * RFC 6749 §5.2 body `{error, error_description}` of the OAuth endpoints.
 */
export class ExpertdirError extends Error {
  override readonly name = 'ExpertdirError'
  constructor(
    /** HTTP status. */
    readonly status: number,
    /** The API's error code (`not_found`, `validation_failed`, `invalid_client`, ...). */
    readonly code: ErrorCode,
    message: string,
    /** Validation: every offending field. */
    readonly details: ErrorDetail[] = [],
    /** The request id to quote in a support request (from the body on 500s, else `X-Request-Id`). */
    readonly requestId: string | undefined = undefined,
    /** Seconds the server asked to wait (`Retry-After` on 429 and 503). */
    readonly retryAfter: number | undefined = undefined,
  ) {
    super(message)
  }
}

/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isErrorDetail = (value: unknown): value is ErrorDetail =>
  isObject(value) && typeof value.field === 'string' && typeof value.message === 'string'

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim())
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000))
}

/** Builds the typed error from a failed response and its parsed body (either error shape, or none). */
export function errorFromResponse(response: Response, body: unknown, now = Date.now()): ExpertdirError {
  const headerId = response.headers.get('x-request-id') ?? undefined
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'), now)
  if (isObject(body) && isObject(body.error)) {
    const { code, message, details, request_id } = body.error
    return new ExpertdirError(
      response.status,
      typeof code === 'string' ? code : 'unknown_error',
      typeof message === 'string' ? message : `HTTP ${response.status}`,
      Array.isArray(details) ? details.filter(isErrorDetail) : [],
      typeof request_id === 'string' ? request_id : headerId,
      retryAfter,
    )
  }
  if (isObject(body) && typeof body.error === 'string') {
    const description = typeof body.error_description === 'string' ? body.error_description : body.error
    return new ExpertdirError(response.status, body.error, description, [], headerId, retryAfter)
  }
  return new ExpertdirError(
    response.status,
    'unknown_error',
    `HTTP ${response.status} ${response.statusText}`.trim(),
    [],
    headerId,
    retryAfter,
  )
}

/** Reads a response body as JSON when it is JSON; undefined otherwise. Leaves the response readable. */
export async function jsonBodyOf(response: Response): Promise<unknown> {
  if (!(response.headers.get('content-type') ?? '').includes('json')) return undefined
  try {
    return await response.clone().json()
  } catch {
    return undefined
  }
}
