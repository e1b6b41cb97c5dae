import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { ErrorEnvelope } from '../http/envelope.js'
import { ApiError } from '../http/errors.js'
import { findClient } from './clients.js'
import { DECOY_SECRET_HASH, verifySecret } from './secrets.js'
import { issueToken } from './tokens.js'

const TokenRequest = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ description: 'Must be client_credentials' })),
    client_id: Type.Optional(Type.String({ description: 'Client ID from `expertdir client create`' })),
    client_secret: Type.Optional(Type.String({ description: 'Client secret (or send both as HTTP Basic)' })),
    scope: Type.Optional(
      Type.String({ description: 'Ignored: a token carries its organization’s full access' }),
    ),
  },
  { additionalProperties: true },
)

const TokenResponse = Type.Object({
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
})

function invalidRequest(message: string): ApiError {
  return new ApiError('invalid_request', message)
}

const INVALID_CLIENT = 'Client authentication failed: unknown client, wrong secret or revoked client.'

interface Credentials {
  clientId: string
  clientSecret: string
  viaBasic: boolean
}

function basicCredentials(request: FastifyRequest): Credentials | undefined {
  const header = request.headers.authorization
  if (!header) return undefined
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : ''
  const colon = decoded.indexOf(':')
  if (colon < 0) {
    throw new ApiError(
      'invalid_client',
      'The Authorization header is not valid HTTP Basic credentials.',
      undefined,
      {
        'www-authenticate': 'Basic realm="expertdir"',
      },
    )
  }
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before being joined.
    const decode = (part: string) => decodeURIComponent(part.replaceAll('+', ' '))
    return {
      clientId: decode(decoded.slice(0, colon)),
      clientSecret: decode(decoded.slice(colon + 1)),
      viaBasic: true,
    }
  } catch {
    throw invalidRequest('The HTTP Basic credentials are not correctly encoded.')
  }
}

function credentialsOf(request: FastifyRequest, body: Record<string, unknown>): Credentials {
  const basic = basicCredentials(request)
  const inBody = body.client_id !== undefined || body.client_secret !== undefined
  if (basic && inBody)
    throw invalidRequest('Send the client credentials either in the body or as HTTP Basic, not both.')
  if (basic) return basic
  const missing = ['client_id', 'client_secret'].filter(
    (key) => typeof body[key] !== 'string' || body[key] === '',
  )
  if (missing.length > 0) throw invalidRequest(`Missing parameter: ${missing.join(', ')}.`)
  return { clientId: body.client_id as string, clientSecret: body.client_secret as string, viaBasic: false }
}

/** `POST /v2/oauth/token` (and `/oauth/token`): the client-credentials grant of RFC 6749 §4.4. */
export async function tokenRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  for (const url of ['/v2/oauth/token', '/oauth/token']) {
    app.post(
      url,
      {
        attachValidation: true,
        schema: {
          tags: ['auth'],
          summary: 'Create an access token (client credentials)',
          hide: url === '/oauth/token',
          body: TokenRequest,
          response: { 200: TokenResponse, '4xx': ErrorEnvelope },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
        if (request.validationError) throw invalidRequest('The token request parameters must be strings.')
        const body = (request.body ?? {}) as Record<string, unknown>
        if (body.grant_type === undefined || body.grant_type === '')
          throw invalidRequest('Missing parameter: grant_type.')
        if (body.grant_type !== 'client_credentials') {
          throw new ApiError('unsupported_grant_type', 'Only the client_credentials grant is supported.')
        }
        const credentials = credentialsOf(request, body)
        const client = await findClient(context.db, credentials.clientId)
        const valid = await verifySecret(credentials.clientSecret, client?.secret_hash ?? DECOY_SECRET_HASH)
        if (!client || !valid || client.revoked_at !== null) {
          throw new ApiError(
            'invalid_client',
            INVALID_CLIENT,
            undefined,
            credentials.viaBasic ? { 'www-authenticate': 'Basic realm="expertdir"' } : undefined,
          )
        }
        const now = context.now()
        const ttl = context.config.tokenTtlSeconds
        const token = await issueToken(
          context.db,
          { orgId: client.org_id, clientId: client.client_id },
          now,
          ttl,
        )
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
  }
}
