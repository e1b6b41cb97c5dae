import { type TSchema, Type } from 'typebox'
import { ERROR_STATUS } from '../errors.js'

/** `{ success: true, data }`: the success envelope of every endpoint, as a response schema. */
export function Success<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false })
}

export const ErrorDetail = Type.Object(
  {
    field: Type.String({ description: 'The offending field, as named in the request' }),
    message: Type.String({ description: 'What is wrong with it, as a sentence' }),
  },
  { additionalProperties: true, title: 'ErrorDetail' },
)

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.Enum(Object.keys(ERROR_STATUS), {
        description: 'From the closed catalogue of error codes (docs/api.md); each has one HTTP status',
      }),
      message: Type.String({ description: 'A sentence a person can act on' }),
      request_id: Type.Optional(Type.String({ description: 'On 500: the request id to quote' })),
      details: Type.Optional(Type.Array(ErrorDetail, { description: 'Validation: every offending field' })),
    }),
  },
  {
    title: 'Error',
    description: 'Every failure: success false and an error with a code from the catalogue.',
  },
)

/** RFC 6749 §5.2 error codes. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const

/**
 * The service's own codes that the OAuth endpoints answer in the RFC 6749 shape, for failures outside
 * OAuth: a body of another media type (415), too large (413), the rate limit (429), and 5xx.
 */
export const OAUTH_SERVICE_ERROR_CODES = [
  'unsupported_media_type',
  'payload_too_large',
  'rate_limited',
  'internal_error',
  'unavailable',
] as const

/** Errors of the OAuth endpoints, in the shape RFC 6749 §5.2 gives them (CONTRACT §13). */
export const OAuthErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Enum([...OAUTH_ERROR_CODES, ...OAUTH_SERVICE_ERROR_CODES], {
      description:
        'RFC 6749 §5.2 error code; for a failure outside OAuth, the service’s own code: ' +
        'unsupported_media_type (415), payload_too_large (413), rate_limited (429), internal_error (500), ' +
        'unavailable (503)',
    }),
    error_description: Type.String({ description: 'A sentence a person can act on' }),
    request_id: Type.Optional(
      Type.String({ description: 'Sent with 5xx errors, to quote when reporting them' }),
    ),
  },
  {
    title: 'OAuthError',
    description: 'An OAuth endpoint refused the request (RFC 6749 §5.2).',
  },
)

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data }
}

/** The `data` of a write's answer: the record's id and what the write did. */
export const Created = Type.Object({ id: Type.Integer() }, { title: 'Created' })
export const Updated = Type.Object({ id: Type.Integer(), updated: Type.Boolean() }, { title: 'Updated' })
export const Deleted = Type.Object({ id: Type.Integer(), deleted: Type.Boolean() }, { title: 'Deleted' })
