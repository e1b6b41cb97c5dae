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
 * swagger-ui's bundle adds one `<style>` element of its own at run time, which the hashes it ships do not
 * cover. Allowing that one text by its hash keeps every other inline style refused; docs-browser.test.ts
 * fails on any policy violation, so a swagger-ui release that changes the text is caught there.
 */
const SWAGGER_UI_RUNTIME_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"

/** The product's mark: a person in a magnifier, in the dashboard's colours (no text: it is named by `alt`). */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">
<circle cx="17" cy="17" r="14" fill="#0b3d6b"/><circle cx="17" cy="13" r="5" fill="#fff"/>
<path d="M8 26c1.5-5 5-7 9-7s7.5 2 9 7" fill="#fff"/><path d="M27 27l9 9" stroke="#b45309" stroke-width="5" stroke-linecap="round"/>
</svg>`

/** What replaces swagger-ui's own name and look: the product's title, mark and favicon, and a link back. */
const THEME = {
  title: 'Expert directory API reference',
  favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: LOGO_SVG }],
  css: [
    {
      filename: 'theme.css',
      content:
        '.swagger-ui .topbar { background: #0b3d6b; } .swagger-ui .topbar .link img { height: 40px; } ' +
        '.swagger-ui .topbar .link::after { content: "Expert directory API"; color: #fff; font: 600 1.1rem sans-serif; margin-left: .6rem; }',
    },
  ],
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
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      theme: THEME,
      logo: { type: 'image/svg+xml', content: LOGO_SVG, href: '/docs', target: '_self' },
      // A link to an operation (`/docs#/<tag>/<operationId>`) opens it and scrolls to it.
      uiConfig: { deepLinking: true },
    })
    const inline = { ...docs.swaggerCSP, style: [...docs.swaggerCSP.style, SWAGGER_UI_RUNTIME_STYLE] }
    policies.https = docsContentSecurityPolicy(inline, true)
    policies.http = docsContentSecurityPolicy(inline, false)
  })
}
