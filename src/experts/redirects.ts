import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import type { AppContext } from '../app-context.js'
import { audienceOf, profileVisibleTo } from '../derived/audience.js'
import { ApiError } from '../errors.js'
import { STAFF_KIND } from './profile-type.js'
import { findRenamedExpert } from './repository.js'

const USERNAME = ':username'

/**
 * The URL `request` asked for with the `:username` segment of `routeUrl` replaced by `username`,
 * query string included.
 */
function renamedUrl(request: FastifyRequest, routeUrl: string, username: string): string {
  const raw = request.raw.url ?? request.url
  const queryAt = raw.indexOf('?')
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt)
  const query = queryAt === -1 ? '' : raw.slice(queryAt)
  const segments = path.split('/')
  segments[routeUrl.split('/').indexOf(USERNAME)] = encodeURIComponent(username)
  return segments.join('/') + query
}

/**
 * An old username of a renamed expert keeps answering (CONTRACT §17): a request to any route under
 * `.../expert/:username` whose answer would be 404 because no expert has that name now, but one had
 * it before a rename, gets `308 Permanent Redirect` to the same URL under the expert's current name
 * (renames in a row lead straight to the last one; a name another expert took since leads to that
 * expert, as it is its name). The same holds for staff members under `.../staff/:username`. A reader
 * gets the redirect only to a profile it may see. Call it on a scope before its routes are added.
 */
export function redirectRenamedExperts(app: FastifyInstance, context: AppContext): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.split('/').includes(USERNAME)) return
    const handler: RouteHandlerMethod = route.handler
    const routeUrl = route.url
    route.handler = async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      try {
        return await handler.call(this, request, reply)
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'not_found') throw error
        const { params } = request
        if (
          typeof params !== 'object' ||
          params === null ||
          !('corporation' in params && typeof params.corporation === 'number') ||
          !('username' in params && typeof params.username === 'string')
        )
          throw error
        const type = routeUrl.startsWith(`${STAFF_KIND.path}/`) ? 'staff' : 'expert'
        const renamed = await findRenamedExpert(context.db, params.corporation, params.username, type)
        const audience =
          request.routeOptions.config.scope === 'read:public' ? audienceOf(request.principal.scopes) : 'all'
        if (!renamed || !profileVisibleTo(audience, renamed)) throw error
        return reply
          .code(308)
          .header('location', renamedUrl(request, routeUrl, renamed.username))
          .send()
      }
    }
  })
}
