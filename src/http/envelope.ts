import { type TSchema, Type } from 'typebox'

/** `{ success: true, data }`: the success envelope of every endpoint, as a response schema. */
export function Success<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data }, { additionalProperties: false })
}

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      request_id: Type.Optional(Type.String()),
      details: Type.Optional(
        Type.Array(
          Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: true }),
        ),
      ),
    }),
  },
  { description: 'Every failure: success false and an error with a code from the catalogue.' },
)

/**
 * Failures of the OAuth endpoints, shaped as RFC 6749 §5.2 says so that OAuth client libraries can
 * read them: `error` is the code itself, `error_description` the sentence.
 */
export const OAuthErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'RFC 6749 §5.2 error code, e.g. invalid_client' }),
    error_description: Type.String(),
    request_id: Type.Optional(Type.String()),
  },
  { title: 'OAuthError', description: 'A failure of the token or revocation endpoint (RFC 6749 §5.2).' },
)

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data }
}
