import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ApiError } from '../errors.js'
import { OAuthErrorBody, ok, Success } from '../http/envelope.js'
import { perMinute } from '../http/rate-limits.js'
import { typedRoutes } from '../http/typed-routes.js'
import { authenticateClient, claimedClientId, invalidRequest } from './client-auth.js'
import type { AuthContext } from './context.js'
import { formatScopes, hasEveryScope, parseScopes, SCOPES, type Scope, storedScopes } from './scopes.js'
import { hashToken } from './secrets.js'
import { issueToken, revokeToken } from './tokens.js'

const ClientCredentials = {
  client_id: Type.Optional(Type.String({ description: 'Client ID from `expertdir client create`' })),
  client_secret: Type.Optional(Type.String({ description: 'Client secret (or send both as HTTP Basic)' })),
}

const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ minLength: 1, description: 'Must be client_credentials' }),
    ...ClientCredentials,
    scope: Type.Optional(
      Type.String({
        description: `Space-separated subset of the client's scopes (${SCOPES.join(', ')}); without it the token gets every scope of its client`,
      }),
    ),
  },
  {
    additionalProperties: true,
    title: 'TokenRequest',
    description: 'Client credentials in the body, or as HTTP Basic (not both)',
  },
)

const TokenResponse = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      accessToken: Type.String(),
      accessTokenExpiresAt: Type.String({ format: 'date-time' }),
      client: Type.String(),
      user: Type.Integer({ description: 'Organization ID' }),
      scope: Type.Union([Type.Literal(true), Type.String()], {
        description: 'true when the token holds every scope, else the granted scopes, space-separated',
      }),
    }),
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    scope: Type.String({ description: 'The granted scopes, space-separated (RFC 6749 §5.1)' }),
  },
  { title: 'TokenResponse' },
)

const RevokeRequest = Type.Object(
  {
    token: Type.String({ minLength: 1, description: 'The access token to revoke' }),
    token_type_hint: Type.Optional(Type.String({ description: 'Ignored: only access tokens exist' })),
    ...ClientCredentials,
  },
  {
    additionalProperties: true,
    title: 'RevokeRequest',
    description: 'Client credentials in the body, or as HTTP Basic (not both)',
  },
)

/**
 * A body that failed its schema, as RFC 6749 says: `invalid_request` naming the missing or
 * malformed parameters.
 */
function invalidParameters(error: Error): ApiError {
  const details = error instanceof ApiError ? (error.details ?? []) : []
  const missing = details
    .filter((detail) => detail.message === 'is required' || detail.message === 'must not be empty')
    .map((detail) => detail.field)
  if (missing.length > 0) return invalidRequest(`Missing parameter: ${missing.join(', ')}.`)
  const malformed = details.map((detail) => detail.field).filter((field) => field !== 'body')
  if (malformed.length > 0)
    return invalidRequest(`These parameters must be strings: ${malformed.join(', ')}.`)
  return invalidRequest('Send the parameters as a form-encoded (or JSON) body.')
}

/** The scopes a token request asks for: its `scope` parameter narrows the client's (RFC 6749 §3.3). */
function grantedScopes(requested: unknown, held: readonly Scope[]): readonly Scope[] {
  if (typeof requested !== 'string' || requested.trim() === '') return held
  const { scopes, unknown } = parseScopes(requested)
  if (unknown.length > 0) {
    throw new ApiError(
      'invalid_scope',
      `Unknown scope: ${unknown.join(', ')}. The scopes are: ${SCOPES.join(', ')}.`,
    )
  }
  const lacking = scopes.filter((scope) => !held.includes(scope))
  if (lacking.length > 0) {
    throw new ApiError(
      'invalid_scope',
      `This client may not request: ${lacking.join(', ')}. It holds: ${formatScopes(held)}.`,
    )
  }
  return scopes
}

/**
 * `POST /v2/oauth/token` (and `/oauth/token`): the client-credentials grant of RFC 6749 §4.4;
 * `POST /v2/oauth/revoke` (and `/oauth/revoke`): token revocation, RFC 7009.
 */
export async function tokenRoutes(untyped: FastifyInstance, context: AuthContext): Promise<void> {
  const app = typedRoutes(untyped)
  const limit = perMinute(
    app,
    context.config.rateLimitToken,
    (request) => `token:${claimedClientId(request)}|${request.ip}`,
  )
  const preHandler = limit ? [limit] : []

  /** Each endpoint answers under /v2 and at the root (hidden from the document there). */
  const urls = (name: string) => [`/v2/oauth/${name}`, `/oauth/${name}`]
  const options = { attachValidation: true, config: { oauth: true }, preHandler }
  const documented = (url: string) => ({ tags: ['auth'], hide: !url.startsWith('/v2/') })

  for (const url of urls('token')) {
    app.post(
      url,
      {
        ...options,
        schema: {
          ...documented(url),
          operationId: 'createAccessToken',
          summary: 'Create an access token (client credentials)',
          body: TokenRequest,
          response: { 200: TokenResponse, '4xx': OAuthErrorBody },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
        if (request.validationError) throw invalidParameters(request.validationError)
        const { body } = request
        if (body.grant_type !== 'client_credentials') {
          throw new ApiError('unsupported_grant_type', 'Only the client_credentials grant is supported.')
        }
        const client = await authenticateClient(context, request)
        const scopes = grantedScopes(body.scope, storedScopes(client.scope))
        const ttl = context.config.tokenTtlSeconds
        const principal = { orgId: client.org_id, clientId: client.client_id, scopes }
        const token = await issueToken(context.db, principal, context.now(), ttl)
        const scope = formatScopes(scopes)
        return {
          success: true as const,
          data: {
            accessToken: token.accessToken,
            accessTokenExpiresAt: new Date(token.expiresAt).toISOString(),
            client: client.client_id,
            user: client.org_id,
            scope: hasEveryScope(scopes) ? (true as const) : scope,
          },
          access_token: token.accessToken,
          token_type: 'Bearer' as const,
          expires_in: ttl,
          scope,
        }
      },
    )
  }

  for (const url of urls('revoke')) {
    app.post(
      url,
      {
        ...options,
        schema: {
          ...documented(url),
          operationId: 'revokeAccessToken',
          summary: 'Revoke an access token (RFC 7009)',
          description: 'Answers 200 whether or not the token was live, as RFC 7009 asks.',
          body: RevokeRequest,
          response: { 200: Success(Type.Object({})), '4xx': OAuthErrorBody },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store')
        if (request.validationError) throw invalidParameters(request.validationError)
        const { token } = request.body
        const client = await authenticateClient(context, request)
        const tokenHash = hashToken(token)
        await revokeToken(context.db, client.client_id, tokenHash)
        return ok({})
      },
    )
  }
}
