import swagger from '@fastify/swagger'
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify'
import { SCOPE_DESCRIPTIONS } from '../auth/scopes.js'
import type { Config } from '../config.js'
import { ErrorEnvelope, OAuthErrorBody } from '../http/envelope.js'
import { isObject, propertyOf, stringsOf } from '../validation/guards.js'
import { registerDocsPage } from './docs-page.js'
import { forEachOperation, hoistTitledSchemas, objectAt } from './openapi-document.js'

const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'OAuth 2.0 client-credentials tokens and their revocation',
  experts: 'Expert profiles: read, create, update, delete',
  content: 'Posts ("spotlights") and Q&A items, with their page metadata',
  inquiries: 'Inquiries sent to experts (stored durably, delivered by email and webhook)',
  system: 'Health probes for process managers and load balancers',
  admin: 'Administering an organization (scope admin): API clients, the webhook, people and the audit log',
}

const BODY_MEDIA_TYPES = ['application/json', 'application/x-www-form-urlencoded']

const header = (description: string, schema: Record<string, unknown>) => ({ description, schema })
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` })

const HEADERS = {
  'X-Request-Id': header(
    'The request id (echoed when the client sent a safe one); quote it in support requests',
    {
      type: 'string',
    },
  ),
  'RateLimit-Limit': header('Requests allowed in the current window', { type: 'integer' }),
  'RateLimit-Remaining': header('Requests left in the current window', { type: 'integer' }),
  'RateLimit-Reset': header('Seconds until the window resets', { type: 'integer' }),
  'Retry-After': header('Seconds to wait before retrying', { type: 'integer' }),
  ETag: header('Strong validator of the representation; send it back as If-None-Match', { type: 'string' }),
  Location: header("The same path and query string under the expert's current username", {
    type: 'string',
    format: 'uri-reference',
  }),
  'WWW-Authenticate': header(
    'The authentication challenge: `Bearer realm="expertdir"`, with `error` when a token was sent',
    {
      type: 'string',
    },
  ),
  'Idempotent-Replayed': header(
    'Present when the response replays the first result of this Idempotency-Key',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
}

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': ref('headers', 'RateLimit-Limit'),
  'RateLimit-Remaining': ref('headers', 'RateLimit-Remaining'),
  'RateLimit-Reset': ref('headers', 'RateLimit-Reset'),
}

const errorContent = { 'application/json': { schema: ref('schemas', 'Error') } }
/** The OAuth endpoints answer every failure in the RFC 6749 §5.2 shape, the rate limit and 503 too. */
const oauthErrorContent = { 'application/json': { schema: ref('schemas', 'OAuthError') } }

const RESPONSES = {
  RenamedExpert: {
    description:
      'Permanent Redirect: the username is an old name of a renamed expert or staff member; repeat the request (same method and body) at Location, its current name',
    headers: { Location: ref('headers', 'Location'), 'X-Request-Id': ref('headers', 'X-Request-Id') },
  },
  NotModified: {
    description: 'Not modified: the If-None-Match header names the current ETag',
    headers: { ETag: ref('headers', 'ETag'), 'X-Request-Id': ref('headers', 'X-Request-Id') },
  },
  TooManyRequests: {
    description: 'Rate limit reached (`rate_limited`): retry after the given number of seconds',
    headers: {
      'Retry-After': ref('headers', 'Retry-After'),
      ...RATE_LIMIT_HEADERS,
      'X-Request-Id': ref('headers', 'X-Request-Id'),
    },
    content: errorContent,
  },
  Unauthorized: {
    description: 'No bearer token (`unauthorized`), or an unknown, expired or revoked one (`invalid_token`)',
    headers: {
      'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
      'X-Request-Id': ref('headers', 'X-Request-Id'),
    },
    content: errorContent,
  },
  Forbidden: {
    description:
      "The token's organization is not `:corporation` (`forbidden`), or the token lacks the operation's scope",
    headers: {
      'WWW-Authenticate': ref('headers', 'WWW-Authenticate'),
      'X-Request-Id': ref('headers', 'X-Request-Id'),
    },
    content: errorContent,
  },
  OAuthTooManyRequests: {
    description:
      'Rate limit reached (`rate_limited`, in the OAuth error shape): retry after the given number of seconds',
    headers: {
      'Retry-After': ref('headers', 'Retry-After'),
      ...RATE_LIMIT_HEADERS,
      'X-Request-Id': ref('headers', 'X-Request-Id'),
    },
    content: oauthErrorContent,
  },
  OAuthUnavailable: {
    description:
      'The database is unreachable or the service is shutting down (`unavailable`, in the OAuth error shape): retry later',
    headers: { 'Retry-After': ref('headers', 'Retry-After'), 'X-Request-Id': ref('headers', 'X-Request-Id') },
    content: oauthErrorContent,
  },
  ClientError: {
    description:
      'The request could not be served as sent (for example 408 `request_timeout`, 431 ' +
      '`request_header_fields_too_large`)',
    headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
    content: errorContent,
  },
  PreconditionFailed: {
    description:
      'The profile changed since the read whose ETag `If-Match` names (`precondition_failed`): nothing was written',
    headers: { 'X-Request-Id': ref('headers', 'X-Request-Id') },
    content: errorContent,
  },
  Unavailable: {
    description: 'The database is unreachable or the service is shutting down (`unavailable`): retry later',
    headers: { 'Retry-After': ref('headers', 'Retry-After'), 'X-Request-Id': ref('headers', 'X-Request-Id') },
    content: errorContent,
  },
}

/** The base URL the document names: `EXPERTDIR_PUBLIC_URL`, else the address the server listens on. */
function serverUrl(app: FastifyInstance, config: Config): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '')
  const listening = app.server.listening ? app.server.address() : null
  // A string is a pipe or socket path: no host and port to name.
  const address = typeof listening === 'string' ? null : listening
  const host = address?.address ?? config.host
  const port = address?.port ?? config.port
  const named = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${named}:${port}`
}

const isProtected = (url: string, route: RouteOptions) =>
  url.startsWith('/v2/') && !route.config?.oauth && url !== '/v2/openapi.json'

/**
 * Per route, before conversion: both body media types, who may call it (`security`), and the
 * OAuth error shape on the token endpoints.
 */
function transformRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  if (!schema) return { schema, url }
  const documented: FastifySchema & Json = { ...schema }
  // The cookie-authenticated sign-in routes take JSON only (their CSRF defence, docs/security.md).
  if (schema.body) documented.consumes = route.config?.sameOrigin ? ['application/json'] : BODY_MEDIA_TYPES
  if (route.config?.oauth) {
    // Client authentication: HTTP Basic, or client_id and client_secret in the body.
    documented.security = [{ clientBasic: [] }, {}]
    // Documents the RFC 6749 error body until the route's own response schema declares it.
    const responses = isObject(schema.response) ? schema.response : {}
    if (responses['4xx'] === ErrorEnvelope) documented.response = { ...responses, '4xx': OAuthErrorBody }
  } else if (isProtected(url, route)) {
    const scope = route.config?.scope
    documented.security = [{ oauth2: scope ? [scope] : [] }]
  } else {
    documented.security = []
  }
  return { schema: documented, url }
}

type Json = Record<string, unknown>

/** Whether an operation takes the parameter `name` (a header's name in any case). */
function hasParameter(operation: Json, name: string): boolean {
  const parameters = Array.isArray(operation.parameters) ? operation.parameters : []
  return parameters.some((parameter) => String(propertyOf(parameter, 'name')).toLowerCase() === name)
}

function securitySchemes(tokenUrl: string) {
  return {
    oauth2: {
      type: 'oauth2' as const,
      description:
        'Client credentials (RFC 6749 §4.4): exchange a client id and secret for a bearer token; a token ' +
        'carries the scopes its request asked for (default: every scope of its client)',
      flows: { clientCredentials: { tokenUrl, scopes: { ...SCOPE_DESCRIPTIONS } } },
    },
    clientBasic: {
      type: 'http' as const,
      scheme: 'basic',
      description:
        'Client authentication at the token and revocation endpoints (RFC 6749 §2.3.1): the client id and ' +
        'secret, form-URL-encoded, as HTTP Basic credentials. Alternatively send client_id and client_secret ' +
        'in the body, not both.',
    },
  }
}

/** After conversion: named schemas, the headers we send, the responses every route can give, tags. */
function completeDocument(document: Json, app: FastifyInstance, config: Config): Json {
  const server = serverUrl(app, config)
  document.servers = [{ url: server, description: 'This service' }]
  const components = objectAt(document, 'components')
  components.securitySchemes = securitySchemes(`${server}/v2/oauth/token`)
  components.headers = HEADERS
  components.responses = RESPONSES
  hoistTitledSchemas(document)

  const tags = new Map<string, string[]>()
  forEachOperation(document, (operation, method, path) => {
    for (const tag of stringsOf(operation.tags)) {
      tags.set(tag, [...(tags.get(tag) ?? []), String(operation.summary ?? `${method} ${path}`)])
    }
    const responses = objectAt(operation, 'responses')
    const isApi = path.startsWith('/v2/')
    const bearer = Array.isArray(operation.security) && operation.security.some((s) => 'oauth2' in s)
    for (const [status, response] of Object.entries(responses)) {
      if (!isObject(response) || '$ref' in response) continue
      if (response.description === 'Default Response' && status === '200') {
        response.description = path.startsWith('/v2/oauth/') ? 'Success' : 'Success: `{success: true, data}`'
      }
      const headers = objectAt(response, 'headers')
      headers['X-Request-Id'] = ref('headers', 'X-Request-Id')
      if (!status.startsWith('2')) continue
      if (isApi) Object.assign(headers, RATE_LIMIT_HEADERS)
      if (bearer && method === 'get') headers.ETag = ref('headers', 'ETag')
      if (hasParameter(operation, 'idempotency-key')) {
        headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed')
      }
    }
    if (bearer && method === 'get') responses['304'] = ref('responses', 'NotModified')
    if (hasParameter(operation, 'if-match')) responses['412'] = ref('responses', 'PreconditionFailed')
    if (bearer && path.split('/').includes('{username}')) responses['308'] = ref('responses', 'RenamedExpert')
    if (bearer) {
      responses['401'] = ref('responses', 'Unauthorized')
      responses['403'] = ref('responses', 'Forbidden')
    }
    if (!Object.keys(responses).some((status) => status.startsWith('4'))) {
      responses['4XX'] = ref('responses', 'ClientError')
    }
    const oauth = path.startsWith('/v2/oauth/')
    if (isApi) responses['429'] = ref('responses', oauth ? 'OAuthTooManyRequests' : 'TooManyRequests')
    responses['503'] = ref('responses', oauth ? 'OAuthUnavailable' : 'Unavailable')
  })
  const schemas = objectAt(components, 'schemas')
  components.schemas = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((name) => [name, schemas[name]]),
  )
  document.tags = [...tags].map(([name, summaries]) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operations: ${summaries.join('; ')}`,
  }))
  return document
}

/**
 * The OpenAPI 3.1 document is generated from the route schemas (the same ones that validate),
 * served at `/v2/openapi.json`, and browsable at `/docs`, which can obtain a token itself.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'expertdir API',
        version: '2',
        description:
          'Expert Directory Service, API v2. Every response is `{success, data}` or `{success: false, error}`; ' +
          'the OAuth endpoints answer errors as RFC 6749 §5.2 says. Request bodies may be JSON or ' +
          'form-URL-encoded.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Replaced with the real token URL when the document is built (the address is known then).
      components: { securitySchemes: securitySchemes('/v2/oauth/token') },
    },
    transform: transformRoute,
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject
      // Completed as plain JSON on a shallow copy, whose members then replace the document's own.
      const { openapiObject } = documentObject
      return Object.assign(openapiObject, completeDocument({ ...openapiObject }, app, config))
    },
  })
  await registerDocsPage(app)
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
