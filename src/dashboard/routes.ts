import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'
import { sendError } from '../http/error-handler.js'

/** Where `npm run build` puts the dashboard (packages/dashboard), from src/dashboard and dist/dashboard alike. */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../packages/dashboard/dist/', import.meta.url))

/**
 * The dashboard's content security policy: its own scripts and styles only (the build emits no inline
 * code), its API calls to this origin, images from here (uploaded photos under /media) and from the
 * local files a person picks before uploading (`blob:`). `upgrade-insecure-requests` only over HTTPS, as
 * for /docs (system/docs-page.ts).
 */
export function dashboardContentSecurityPolicy(https: boolean): string {
  const directives = [
    "default-src 'self'",
    "base-uri 'none'",
    "connect-src 'self'",
    "font-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "img-src 'self' blob: https:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self'",
  ]
  if (https) directives.push('upgrade-insecure-requests')
  return directives.join('; ')
}

const POLICIES = { https: dashboardContentSecurityPolicy(true), http: dashboardContentSecurityPolicy(false) }

/**
 * `/admin/`: the single-page app (CONTRACT §15). Hashed files under `/admin/assets/` are immutable and a
 * missing one is a 404 (never the app's HTML, which a browser would run as a script); every other path
 * under `/admin/` is one of the app's routes and gets its HTML, which is never cached so that a new
 * build is picked up at once.
 */
export async function dashboardRoutes(app: FastifyInstance, root = DASHBOARD_DIR): Promise<void> {
  const built = existsSync(join(root, 'index.html'))
  if (!built) app.log.warn({ root }, 'the dashboard is not built: /admin/ answers 404 until `npm run build`')
  await app.register(async (scope) => {
    scope.addHook('onRequest', (request, reply, done) => {
      reply.header('content-security-policy', request.protocol === 'https' ? POLICIES.https : POLICIES.http)
      done()
    })
    await scope.register(fastifyStatic, { root, serve: false })

    const notBuilt = (request: FastifyRequest, reply: FastifyReply) =>
      sendError(
        new ApiError('not_found', 'The dashboard is not built here: run `npm run build`.'),
        request,
        reply,
      )
    const page = (request: FastifyRequest, reply: FastifyReply) => {
      if (!built) return notBuilt(request, reply)
      reply.header('cache-control', 'no-cache')
      return reply.sendFile('index.html', { cacheControl: false })
    }
    const hide = { schema: { hide: true } }

    scope.get('/admin', hide, (_request, reply) => reply.redirect('/admin/', 308))
    scope.get('/admin/', hide, page)
    scope.get<{ Params: { '*': string } }>('/admin/assets/*', hide, (request, reply) =>
      reply.sendFile(join('assets', request.params['*']), {
        cacheControl: true,
        immutable: true,
        maxAge: 365 * 24 * 3600 * 1000,
      }),
    )
    scope.get('/admin/favicon.svg', hide, (_request, reply) =>
      built
        ? reply.sendFile('favicon.svg', { cacheControl: true, maxAge: 24 * 3600 * 1000 })
        : notBuilt(_request, reply),
    )
    scope.get('/admin/*', hide, page)
  })
}
