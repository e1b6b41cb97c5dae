import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import secureJson from 'secure-json-parse'
import type { AuthContext } from '../auth/context.js'
import { decodeUtf8 } from '../http/url-encoding.js'
import { mediaBaseOf } from '../media/base.js'
import { authenticateMcp, checkOrigin, MCP_PATH } from './auth.js'
import { resourceMetadataRoutes } from './resource-metadata.js'

/** A body that is not JSON (or not UTF-8, or has a `__proto__` key): JSON-RPC's parse error. */
const UNPARSABLE = Symbol('unparsable JSON-RPC body')

/** The request headers the Streamable HTTP transport reads; nothing else (the token least of all) reaches it. */
const TRANSPORT_HEADERS = [
  'accept',
  'content-type',
  'mcp-protocol-version',
  'mcp-session-id',
  'last-event-id',
]

function parseBody(bytes: Buffer): unknown {
  const text = decodeUtf8(bytes)
  if (text === undefined) return UNPARSABLE
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch {
    return UNPARSABLE
  }
}

/** The request as the SDK's web-standard transport takes it; the body is handed over already parsed. */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers()
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers.set(name, value)
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers })
}

/**
 * The transport's answer sent through Fastify's reply rather than written to the socket, so that what
 * every response gets (request id, security headers, rate-limit headers, CORS, the request log and
 * metrics) applies here too. Without streaming (JSON responses), the answer is complete once it resolves.
 */
async function send(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status)
  response.headers.forEach((value, name) => {
    if (name !== 'content-type' && name !== 'content-length') reply.header(name, value)
  })
  const body = await response.text()
  if (body === '') return reply.send()
  return reply.type('application/json; charset=utf-8').send(body)
}

/** A JSON-RPC error that answers the whole request (no message of it ran), with HTTP 400. */
function protocolError(reply: FastifyReply, code: number, message: string): FastifyReply {
  return reply
    .code(400)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', error: { code, message }, id: null })
}

let loaded: ReturnType<typeof importServer> | undefined
const importServer = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./server.js'),
  ])
/**
 * The SDK and the tools (with their schemas) load with the first MCP request, not with every process;
 * later requests reuse the loaded modules (an `import()` of a loaded module still costs a lookup and a
 * promise per call).
 */
const loadServer = () => {
  loaded ??= importServer()
  return loaded
}

async function handle(context: AuthContext, request: FastifyRequest, reply: FastifyReply) {
  if (request.body === UNPARSABLE)
    return protocolError(reply, -32700, 'Parse error: the body is not a JSON object in UTF-8.')
  // MCP 2025-06-18 removed JSON-RPC batches. Refused whole, since each request counts once against the
  // token's rate limit: a batch of a hundred tool calls would run a hundred for the price of one.
  if (Array.isArray(request.body))
    return protocolError(
      reply,
      -32600,
      'Invalid Request: JSON-RPC batches are not accepted; send one message per request.',
    )
  const [{ WebStandardStreamableHTTPServerTransport }, { mcpServer }] = await loadServer()
  const server = mcpServer(
    { context, principal: request.principal, mediaBase: mediaBaseOf(context.config.publicUrl, request) },
    request.log,
  )
  // Stateless: no session id, one transport per request, JSON responses rather than an SSE stream.
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await send(
      reply,
      await transport.handleRequest(webRequestOf(request), { parsedBody: request.body }),
    )
  } finally {
    await server.close()
  }
}

/**
 * The Model Context Protocol server (CONTRACT §18) at `POST /mcp`, Streamable HTTP without sessions,
 * and its RFC 9728 metadata. `GET` and `DELETE /mcp` answer 405 (the app's method fallback), as the
 * transport allows a server that offers no server-initiated stream and no sessions. Authorization is
 * the API's: the same bearer tokens, the body limit, and `tokenLimit`, the per-token rate limit the
 * API's routes count against too; the organization is the token's.
 */
export async function mcpRoutes(
  app: FastifyInstance,
  context: AuthContext,
  tokenLimit: onRequestAsyncHookHandler | undefined,
): Promise<void> {
  await resourceMetadataRoutes(app, context)
  await app.register(async (scope) => {
    scope.decorateRequest('principal', null, [])
    // JSON-RPC only: a body that does not parse is JSON-RPC's parse error, not the API's envelope.
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser<Buffer>('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, parseBody(body)),
    )
    scope.addHook('onRequest', async (request) => {
      checkOrigin(request, context)
      request.principal = await authenticateMcp(request, context)
    })
    if (tokenLimit) scope.addHook('onRequest', tokenLimit)
    scope.post(MCP_PATH, { schema: { hide: true } }, (request, reply) => handle(context, request, reply))
  })
}
