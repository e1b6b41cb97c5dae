import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify'

/**
 * The app as route files use it: a route's request types (params, querystring, headers, body) and its
 * reply type come from the TypeBox schemas it declares, never from types written beside them.
 */
export type TypedApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export const typedRoutes = (app: FastifyInstance): TypedApp => app.withTypeProvider<TypeBoxTypeProvider>()
