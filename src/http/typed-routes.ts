import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteShorthandOptionsWithHandler,
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

/**
 * One route's options (schemas, config, handler) with its request and reply types taken from its
 * schemas, for a route that several resources register under their own paths (experts and staff
 * share the profile routes): `app.put('/v2/.../expert/:username', updateProfileRoute(...))`.
 */
export type RouteOf<S extends FastifySchema> = RouteShorthandOptionsWithHandler<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider,
  FastifyBaseLogger
>

/** Types a route's options by its schemas (see RouteOf); returns them unchanged. */
export const route = <const S extends FastifySchema>(options: RouteOf<S>): RouteOf<S> => options

/**
 * The body Fastify gives a route whose body schema is `S`: a route registered for several resources
 * (each content kind) types its service calls with it, so that each resource's writes keep their own type.
 */
export type BodyOf<S> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  { body: S },
  TypeBoxTypeProvider
>['body']
