import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import type { Redis } from 'ioredis'
import type { Config } from '../config.js'
import { ApiError } from '../errors.js'
import { namedRedisStore } from './rate-limit-store.js'

const MINUTE = 60_000

/**
 * Registers @fastify/rate-limit with the contract's headers (`RateLimit-*`, `Retry-After`) and envelope.
 * With Redis the counters are shared by every server process; without, they are in-process.
 * A failing Redis lets requests through rather than refusing every client (fail open, logged).
 */
export async function registerRateLimiting(
  app: FastifyInstance,
  config: Config,
  redis?: Redis,
): Promise<void> {
  // Both limits off: no plugin, no hooks.
  if (config.rateLimitApi === 0 && config.rateLimitToken === 0) return
  await app.register(rateLimit, {
    global: false,
    enableDraftSpec: true,
    skipOnError: true,
    ...(redis ? { store: namedRedisStore(redis, `${config.redisPrefix}rate:`) } : {}),
    errorResponseBuilder: (_request, context) =>
      new ApiError('rate_limited', `Too many requests: retry in ${context.after}.`),
  })
}

/**
 * A limit of `max` requests per minute for the key `keyOf` gives; undefined when `max` is 0 (off).
 * Use as an onRequest/preHandler hook.
 */
export function perMinute(
  app: FastifyInstance,
  max: number,
  keyOf: (request: FastifyRequest) => string,
): onRequestAsyncHookHandler | undefined {
  if (max === 0) return undefined
  return app.rateLimit({ max, timeWindow: MINUTE, keyGenerator: keyOf }) as onRequestAsyncHookHandler
}
