import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { baseUrl } from './base-url.js'
import { SCOPES } from './scopes.js'

const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post']

const UrlString = Type.String({ format: 'uri' })

const AuthorizationServerMetadata = Type.Object(
  {
    issuer: UrlString,
    token_endpoint: UrlString,
    revocation_endpoint: UrlString,
    grant_types_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String(), {
      description: 'Empty: there is no authorization endpoint',
    }),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    service_documentation: UrlString,
  },
  { title: 'AuthorizationServerMetadata' },
)

/** `GET /.well-known/oauth-authorization-server`: OAuth 2.0 Authorization Server Metadata (RFC 8414). */
export async function metadataRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        operationId: 'getAuthorizationServerMetadata',
        tags: ['auth'],
        summary: 'OAuth 2.0 authorization server metadata (RFC 8414)',
        description:
          'Lets OAuth client libraries find the token and revocation endpoints, the supported grant, ' +
          'client authentication methods and scopes. A plain JSON object, not in the `{success, data}` envelope.',
        security: [],
        response: { 200: AuthorizationServerMetadata },
      },
    },
    async (request) => {
      const base = baseUrl(context, request)
      return {
        issuer: base,
        token_endpoint: `${base}/v2/oauth/token`,
        revocation_endpoint: `${base}/v2/oauth/revoke`,
        grant_types_supported: ['client_credentials'],
        response_types_supported: [],
        token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
        revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
        scopes_supported: [...SCOPES],
        service_documentation: `${base}/docs`,
      }
    },
  )
}
