import type { FastifyInstance, FastifySchema, RouteHandlerMethod } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { ApiError } from '../http/errors.js'
import { perMinute } from '../http/rate-limits.js'
import { authenticateClient, claimedClientId, invalidRequest } from './client-auth.js'
import { hashToken } from './secrets.js'
import { issueToken, revokeToken } from './tokens.js'

const ClientCredentials = {
  client_id: Type.Optional(Type.String({ description: 'Client ID from `expertdir client create`' })),
  client_secret: Type.Optional(Type.String({ description: 'Client secret (or send both as HTTP Basic)' })),
}

const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ description: 'Must be client_credentials' }),
    ...ClientCredentials,
    scope: Type.Optional(
      Type.String({ description: 'Ignored: a token carries its organization’s full access' }),
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
      scope: Type.Boolean(),
    }),
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
  },
  { title: 'TokenResponse' },
)

const RevokeRequest = Type.Object(
  {
    token: Type.String({ description: 'The access token to revoke' }),
    token_type_hint: Type.Optional(Type.String({ description: 'Ignored: only access tokens exist' })),
    ...ClientCredentials,
  },
  {
    additionalProperties: true,
    title: 'RevokeRequest',
    description: 'Client credentials in the body, or as HTTP Basic (not both)',
  },
)

/** A body that failed the schema: name a missing parameter, as RFC 6749 asks, else say what is wrong. */
function malformed(error: Error, endpoint: string): ApiError {
  const details = error instanceof ApiError ? (error.details ?? []) : []
  const missing = details.find((detail) => detail.message === 'is required')
  return invalidRequest(
    missing ? `Missing parameter: ${missing.field}.` : `The ${endpoint} request parameters must be strings.`,
  )
}

/**
 * `POST /v2/oauth/token` (and `/oauth/token`): the client-credentials grant of RFC 6749 §4.4;
 * `POST /v2/oauth/revoke` (and `/oauth/revoke`): token revocation, RFC 7009.
 */
export async function tokenRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const limit = perMinute(
    app,
    context.config.rateLimitToken,
    (request) => `token:${claimedClientId(request)}|${request.ip}`,
  )
  const preHandler = limit ? [limit] : []

  const endpoint = (name: string, schema: FastifySchema, handler: RouteHandlerMethod) => {
    for (const url of [`/v2/oauth/${name}`, `/oauth/${name}`]) {
      app.post(
        url,
        {
          attachValidation: true,
          config: { oauth: true },
          preHandler,
          schema: { tags: ['auth'], hide: !url.startsWith('/v2/'), ...schema },
        },
        handler,
      )
    }
  }

  endpoint(
    'token',
    {
      operationId: 'createAccessToken',
      summary: 'Create an access token (client credentials)',
      body: TokenRequest,
      response: { 200: TokenResponse, '4xx': ErrorEnvelope },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
      if (request.validationError) throw malformed(request.validationError, 'token')
      const body = (request.body ?? {}) as Record<string, unknown>
      if (body.grant_type === undefined || body.grant_type === '')
        throw invalidRequest('Missing parameter: grant_type.')
      if (body.grant_type !== 'client_credentials') {
        throw new ApiError('unsupported_grant_type', 'Only the client_credentials grant is supported.')
      }
      const client = await authenticateClient(context, request)
      const ttl = context.config.tokenTtlSeconds
      const principal = { orgId: client.org_id, clientId: client.client_id }
      const token = await issueToken(context.db, principal, context.now(), ttl)
      return {
        success: true as const,
        data: {
          accessToken: token.accessToken,
          accessTokenExpiresAt: new Date(token.expiresAt).toISOString(),
          client: client.client_id,
          user: client.org_id,
          scope: true,
        },
        access_token: token.accessToken,
        token_type: 'Bearer' as const,
        expires_in: ttl,
      }
    },
  )

  endpoint(
    'revoke',
    {
      operationId: 'revokeAccessToken',
      summary: 'Revoke an access token (RFC 7009)',
      description: 'Answers 200 whether or not the token was live, as RFC 7009 asks.',
      body: RevokeRequest,
      response: { 200: Success(Type.Object({})), '4xx': ErrorEnvelope },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      if (request.validationError) throw malformed(request.validationError, 'revocation')
      const token = (request.body as Record<string, unknown> | undefined)?.token
      if (typeof token !== 'string' || token === '') throw invalidRequest('Missing parameter: token.')
      const client = await authenticateClient(context, request)
      const tokenHash = hashToken(token)
      await revokeToken(context.db, client.client_id, tokenHash)
      context.principals.forget(tokenHash)
      return ok({})
    },
  )
}
