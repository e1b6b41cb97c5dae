import type { FastifyRequest } from 'fastify'
import { baseUrl } from '../auth/base-url.js'
import { authenticate } from '../auth/bearer.js'
import type { AuthContext } from '../auth/context.js'
import type { Scope } from '../auth/scopes.js'
import type { Principal } from '../auth/tokens.js'
import { ApiError } from '../errors.js'

/** Where the MCP server is mounted. */
export const MCP_PATH = '/mcp'

/** The scopes some tool needs: a token with none of them can do nothing at `/mcp`. */
export const MCP_SCOPES: readonly Scope[] = ['read', 'read:public', 'inquiries:create']

/** What a public assistant's client needs: every tool, seeing only what the public may see. */
const PUBLIC_ASSISTANT_SCOPES = 'read:public inquiries:create'

/** The RFC 9728 metadata of the MCP server, as its 401 and 403 challenges name it. */
export function resourceMetadataUrl(context: Pick<AuthContext, 'config'>, request: FastifyRequest): string {
  return `${baseUrl(context, request)}/.well-known/oauth-protected-resource${MCP_PATH}`
}

/** `error` with the `resource_metadata` parameter added to its `WWW-Authenticate` challenge. */
function withResourceMetadata(error: unknown, metadataUrl: string): unknown {
  const challenge = error instanceof ApiError ? error.headers?.['www-authenticate'] : undefined
  if (!(error instanceof ApiError) || challenge === undefined) return error
  return new ApiError(error.code, error.message, {
    ...(error.details ? { details: error.details } : {}),
    headers: { ...error.headers, 'www-authenticate': `${challenge}, resource_metadata="${metadataUrl}"` },
  })
}

/**
 * The bearer check of `/mcp`: the API's tokens and their 401s, whose challenges also name the
 * protected-resource metadata (RFC 9728 §5.1) so that an MCP client can find the authorization server.
 * A token holding no scope any tool needs is 403 `insufficient_scope`; a dashboard token limited to one
 * expert is 403 `forbidden` (the directory is outside its reach). Which tools a token may call is
 * decided per tool (src/mcp/server.ts).
 */
export async function authenticateMcp(request: FastifyRequest, context: AuthContext): Promise<Principal> {
  const metadataUrl = resourceMetadataUrl(context, request)
  let principal: Principal
  try {
    principal = await authenticate(request, context.principals)
  } catch (error) {
    throw withResourceMetadata(error, metadataUrl)
  }
  if (principal.person?.reach) {
    throw new ApiError(
      'forbidden',
      "This access token reaches only its own expert's profile and inquiries: the directory's MCP server is outside it.",
    )
  }
  if (!MCP_SCOPES.some((scope) => principal.scopes.includes(scope))) {
    throw new ApiError(
      'insufficient_scope',
      `This access token has none of the scopes the MCP tools need (${MCP_SCOPES.join(', ')}). Request a token with ${PUBLIC_ASSISTANT_SCOPES} from a client that holds them.`,
      {
        headers: {
          'www-authenticate': `Bearer realm="expertdir", error="insufficient_scope", scope="${PUBLIC_ASSISTANT_SCOPES}", resource_metadata="${metadataUrl}"`,
        },
      },
    )
  }
  return principal
}

/**
 * The MCP transport's DNS-rebinding rule: a browser request (it carries `Origin`) is accepted only from
 * this service's own origin or an origin of `EXPERTDIR_CORS_ORIGINS`; any other is 403.
 */
export function checkOrigin(request: FastifyRequest, context: Pick<AuthContext, 'config'>): void {
  const origin = request.headers.origin
  if (origin === undefined) return
  if (origin === new URL(baseUrl(context, request)).origin || context.config.corsOrigins.includes(origin))
    return
  throw new ApiError(
    'forbidden',
    'Requests from this web page are not accepted: its origin is not among the allowed ones (EXPERTDIR_CORS_ORIGINS).',
  )
}
