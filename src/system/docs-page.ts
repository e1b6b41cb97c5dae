import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'

/**
 * The `/docs` page's content security policy: the one swagger-ui ships (with the hashes of its inline
 * code, if any), with `upgrade-insecure-requests` only for a request that came over HTTPS. Sent over
 * plain HTTP on a real host name, that directive makes the browser fetch the page's scripts over
 * HTTPS from a server that does not speak it, and the page stays blank.
 */
function docsContentSecurityPolicy(inline: { script: string[]; style: string[] }, https: boolean) {
  const directives = [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' https: data:",
    "frame-ancestors 'self'",
    "img-src 'self' data: validator.swagger.io",
    "object-src 'none'",
    ["script-src 'self'", ...inline.script].join(' '),
    "script-src-attr 'none'",
    ['style-src', "'self'", 'https:', ...inline.style].join(' '),
  ]
  if (https) directives.push('upgrade-insecure-requests')
  return directives.join('; ')
}

/**
 * `/docs`: swagger-ui over the OpenAPI document, in a scope whose hook replaces the API's CSP (which
 * forbids everything) with the page's own, chosen by how the request arrived (`request.protocol`
 * believes `X-Forwarded-Proto` only from a trusted proxy).
 */
export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(async (docs) => {
    const policies = { https: '', http: '' }
    docs.addHook('onRequest', (request, reply, done) => {
      reply.header('content-security-policy', request.protocol === 'https' ? policies.https : policies.http)
      done()
    })
    await docs.register(swaggerUi, { routePrefix: '/docs' })
    policies.https = docsContentSecurityPolicy(docs.swaggerCSP, true)
    policies.http = docsContentSecurityPolicy(docs.swaggerCSP, false)
  })
}
