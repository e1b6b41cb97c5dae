import { createRequire } from 'node:module'
import type {
  FastifyRateLimitOptions,
  FastifyRateLimitStore,
  FastifyRateLimitStoreCtor,
} from '@fastify/rate-limit'
import type { Redis } from 'ioredis'

type Counted = (error: Error | null, result?: { current: number; ttl: number }) => void
interface PluginRedisStore {
  incr(key: string, callback: Counted, timeWindow: number, max: number): void
  read(key: string, callback: Counted, timeWindow?: number, max?: number): void
}
type PluginRedisStoreConstructor = new (
  continueExceeding: boolean | undefined,
  exponentialBackoff: boolean | undefined,
  redis: Redis,
  key: string,
) => PluginRedisStore

/** What the plugin hands `child`: the limit's options and, for a route's own limit, the route. */
interface ChildOptions {
  continueExceeding?: boolean
  exponentialBackoff?: boolean
  routeInfo?: { method?: unknown; url?: unknown }
}

/**
 * The Redis store of @fastify/rate-limit with readable keys. The plugin's own names a limit made with
 * `app.rateLimit()` (not a route's) after a route it does not have: `<prefix>rate:undefinedundefined-<key>`.
 * Here such a limit keeps the namespace alone (`<prefix>rate:api:<token hash>`: its key generator names
 * the limit), and a route's own limit is named after its method and URL, as the plugin does.
 */
export function namedRedisStore(redis: Redis, nameSpace: string): FastifyRateLimitStoreCtor {
  // The plugin's own Redis store (its counting script), which the package ships without type declarations;
  // loaded only when Redis is configured.
  const RedisStore = createRequire(import.meta.url)(
    '@fastify/rate-limit/store/RedisStore.js',
  ) as PluginRedisStoreConstructor
  return class NamedRedisStore implements FastifyRateLimitStore {
    readonly #key: string
    readonly #store: PluginRedisStore
    constructor(given: FastifyRateLimitOptions | ChildOptions, key = nameSpace) {
      // The plugin passes its merged options, which hold these two besides what its type declares.
      const options: ChildOptions = given
      this.#key = key
      this.#store = new RedisStore(options.continueExceeding, options.exponentialBackoff, redis, key)
    }
    incr(key: string, callback: Counted, timeWindow: number, max: number): void {
      this.#store.incr(key, callback, timeWindow, max)
    }
    read(key: string, callback: Counted, timeWindow?: number, max?: number): void {
      this.#store.read(key, callback, timeWindow, max)
    }
    child(routeOptions: object): FastifyRateLimitStore {
      const options: ChildOptions = routeOptions
      const { method, url } = options.routeInfo ?? {}
      const named = typeof method === 'string' && typeof url === 'string'
      return new NamedRedisStore(options, named ? `${this.#key}${method}${url}-` : this.#key)
    }
  }
}
