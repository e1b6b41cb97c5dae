import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { baseUrl } from '../auth/base-url.js'
import { SCOPES } from '../auth/scopes.js'
import { MCP_PATH, MCP_SCOPES } from './auth.js'

const UrlString = Type.String({ format: 'uri' })

const ProtectedResourceMetadata = Type.Object(
  {
    resource: UrlString,
    authorization_servers: Type.Array(UrlString, {
      description: 'Issuers whose metadata is at /.well-known/oauth-authorization-server (RFC 8414)',
    }),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
  },
  { title: 'ProtectedResourceMetadata' },
)

interface Resource {
  path: string
  operationId: string
  summary: string
  name: string
  scopes: readonly string[]
}

/**
 * RFC 9728 §3: the metadata of a resource at `https://host/mcp` is at
 * `/.well-known/oauth-protected-resource/mcp`; the one without a path describes the whole service.
 */
const RESOURCES: Resource[] = [
  {
    path: '',
    operationId: 'getProtectedResourceMetadata',
    summary: 'OAuth 2.0 protected resource metadata of the service (RFC 9728)',
    name: 'Expert directory API',
    scopes: SCOPES,
  },
  {
    path: MCP_PATH,
    operationId: 'getMcpProtectedResourceMetadata',
    summary: 'OAuth 2.0 protected resource metadata of the MCP server (RFC 9728)',
    name: 'Expert directory MCP server',
    scopes: MCP_SCOPES,
  },
]

/**
 * `GET /.well-known/oauth-protected-resource[/mcp]`: where a client of the API or of the MCP server finds
 * the authorization server (this service's token endpoint, RFC 8414 metadata) and the scopes to ask for.
 */
export async function resourceMetadataRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  for (const resource of RESOURCES) {
    app.get(
      `/.well-known/oauth-protected-resource${resource.path}`,
      {
        schema: {
          operationId: resource.operationId,
          tags: ['auth'],
          summary: resource.summary,
          description:
            'Names the resource, its authorization server and the scopes it understands, so that an ' +
            'OAuth or MCP client can obtain a token for it. A plain JSON object, not in the `{success, data}` envelope.',
          security: [],
          response: { 200: ProtectedResourceMetadata },
        },
      },
      async (request: FastifyRequest) => {
        const base = baseUrl(context, request)
        return {
          resource: `${base}${resource.path}`,
          authorization_servers: [base],
          scopes_supported: [...resource.scopes],
          bearer_methods_supported: ['header'],
          resource_name: resource.name,
        }
      },
    )
  }
}
