/** The closed list of error codes (docs/api.md) and the HTTP status of each. */
export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_client: 401,
  invalid_credentials: 401,
  unauthorized: 401,
  invalid_token: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  request_timeout: 408,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  request_header_fields_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export interface ErrorDetail {
  field: string
  message: string
  [extra: string]: unknown
}

export interface ApiErrorOptions {
  /** The offending fields (validation), or what a conflict collided with. */
  details?: ErrorDetail[]
  /** Response headers that belong to this error (`WWW-Authenticate`, `Allow`, `Retry-After`). */
  headers?: Record<string, string>
}

/** The one error type: handlers throw it, the error handler turns it into the envelope. */
export class ApiError extends Error {
  readonly statusCode: number
  readonly details?: ErrorDetail[]
  readonly headers?: Record<string, string>
  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message)
    this.name = 'ApiError'
    this.statusCode = ERROR_STATUS[code]
    if (options.details) this.details = options.details
    if (options.headers) this.headers = options.headers
  }
}

export function validationError(details: ErrorDetail[]): ApiError {
  const fields = details.map((detail) => detail.field).filter((field, i, all) => all.indexOf(field) === i)
  return new ApiError(
    'validation_failed',
    `The request is not valid: check ${fields.length === 1 ? 'the field' : 'the fields'} ${fields.join(', ')}.`,
    { details },
  )
}

export function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} was not found.`)
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** OAuth endpoint: malformed requests are `invalid_request` (RFC 6749 §5.2). */
    oauth?: boolean
    /** A 405 fallback route added for a path's missing methods. */
    methodFallback?: boolean
    /**
     * A hidden route that only answers a clearer error (404) for names a parametric segment does not
     * know: its methods are not methods of the path, so `Allow` does not list them.
     */
    catchAll?: boolean
  }
}
