import type { Duplex } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/database.js'
import { isWriteConflict } from '../db/transactions.js'
import { ApiError, type ErrorCode, validationError } from '../errors.js'
import { InvalidFields } from '../validation/errors.js'
import { propertyOf } from '../validation/guards.js'
import { refusedMethod } from './allowed-methods.js'

/** Fastify's own errors (body parsing, limits) mapped onto the catalogue. */
const FASTIFY_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    'unsupported_media_type',
    'Send the body as application/json or application/x-www-form-urlencoded.',
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    'validation_failed',
    'The Content-Length header does not match the body.',
  ],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'The request body is not valid JSON.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'The request body is empty.'],
}

/** Errors Fastify raises before routing (bad URL encoding, over-long path segment). */
const FRAMEWORK_CODES: Record<string, [ErrorCode, string]> = {
  FST_ERR_BAD_URL: ['validation_failed', 'The URL is not correctly percent-encoded.'],
  FST_ERR_MAX_PARAM_LENGTH: ['validation_failed', 'A path segment is too long.'],
}

const STATUS_CODES: Record<number, [ErrorCode, string]> = {
  413: ['payload_too_large', 'The request body is larger than the limit.'],
  415: ['unsupported_media_type', 'Send the body as application/json or application/x-www-form-urlencoded.'],
  431: ['request_header_fields_too_large', 'The request headers are too large.'],
}

/** `1048576` -> `1 MiB`, `2000` -> `2000 bytes`. */
function sizeOf(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

export function toApiError(error: FastifyError | Error, bodyLimit?: number): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof InvalidFields) return validationError(error.issues.map((issue) => ({ ...issue })))
  const code = propertyOf(error, 'code')
  const statusCode = propertyOf(error, 'statusCode')
  const status = typeof statusCode === 'number' ? statusCode : undefined
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ApiError(
      'payload_too_large',
      bodyLimit
        ? `The request body is larger than the ${sizeOf(bodyLimit)} limit.`
        : 'The request body is too large.',
    )
  const known =
    (typeof code === 'string' ? (FASTIFY_CODES[code] ?? FRAMEWORK_CODES[code]) : undefined) ??
    STATUS_CODES[status ?? 0]
  if (known) return new ApiError(known[0], known[1])
  if (isWriteConflict(error)) {
    return new ApiError('unavailable', 'The database is busy with other writes; retry shortly.', {
      headers: { 'retry-after': '5' },
    })
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('unavailable', 'The service cannot reach its database right now; retry shortly.', {
      headers: { 'retry-after': '5' },
    })
  }
  if (status !== undefined && status >= 400 && status < 500)
    return new ApiError('validation_failed', 'The request could not be understood.')
  return new ApiError(
    'internal_error',
    'Something went wrong on our side. Quote the request id if you report it.',
  )
}

/**
 * OAuth endpoints (route config `oauth: true`) speak RFC 6749: a malformed request is `invalid_request`,
 * and every failure there has the §5.2 shape (`sendError`).
 */
function asRouteError(error: ApiError, request: FastifyRequest): ApiError {
  const oauth = request.routeOptions.config?.oauth
  if (!oauth || (error.code !== 'validation_failed' && error.code !== 'invalid_json')) return error
  return new ApiError('invalid_request', error.message, error.details ? { details: error.details } : {})
}

export function sendError(error: ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (error.headers) reply.headers(error.headers)
  if (request.routeOptions.config?.oauth) {
    return reply.code(error.statusCode).send({
      success: false,
      error: error.code,
      error_description: error.message,
      ...(error.statusCode >= 500 ? { request_id: String(request.id) } : {}),
    })
  }
  return reply.code(error.statusCode).send({
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.statusCode >= 500 ? { request_id: String(request.id) } : {}),
      ...(error.details ? { details: error.details } : {}),
    },
  })
}

/**
 * Errors found while reading the request line and headers, before Fastify has a request: over-large
 * headers (431) and clients too slow to send their request (408). Answered in the envelope, then closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request_header_fields_too_large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request was not received in time.']
        : [400, 'validation_failed', 'The request is not valid HTTP.']
  const body = JSON.stringify({ success: false, error: { code, message } })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}

const STATUS_CODES_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
}

/** Fastify's `frameworkErrors` hook: routing-time errors in the envelope. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id)
  return sendError(toApiError(error), request, reply)
}

/** The error handler and the not-found handler; `bodyLimit` (bytes) is named in 413 messages. */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = asRouteError(toApiError(error, bodyLimit), request)
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed')
    return sendError(apiError, request, reply)
  })
  app.setNotFoundHandler((request, reply) => {
    // A known path with another method: 405 with `Allow` (see `methodNotAllowed`).
    const refused = refusedMethod(request)
    if (refused) return sendError(toApiError(refused), request, reply)
    return sendError(
      new ApiError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`),
      request,
      reply,
    )
  })
}
