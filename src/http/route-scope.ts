/** The OAuth scope a route needs (CONTRACT §13), declared in each route's `config`. */
export type RouteScope = 'read' | 'write' | 'inquiries:create' | 'inquiries:read'

declare module 'fastify' {
  interface FastifyContextConfig {
    scope?: RouteScope
  }
}
