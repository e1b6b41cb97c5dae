import type { Redis } from 'ioredis'
import { boundedEntries } from './bounded-entries.js'

/** After this many consecutive bad secrets for one client id from one IP, that pair is locked out... */
export const MAX_FAILURES = 10
/** ...for this long. */
export const LOCKOUT_MS = 15 * 60_000

/** Counts consecutive failed authentications per key: (client id, IP) for clients; account or address for people. */
export interface Lockout {
  isLocked(key: string): Promise<boolean>
  recordFailure(key: string): Promise<void>
  reset(key: string): Promise<void>
}

/** In-process lock-outs (one server process). Bounded: the oldest entries go first. */
export function memoryLockout(now: () => number, maxEntries = 100_000, maxFailures = MAX_FAILURES): Lockout {
  const entries = boundedEntries<{ failures: number; expiresAt: number }>(maxEntries)
  const live = (key: string) => {
    const entry = entries.get(key)
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key)
      return undefined
    }
    return entry
  }
  return {
    async isLocked(key) {
      return (live(key)?.failures ?? 0) >= maxFailures
    },
    async recordFailure(key) {
      const entry = live(key) ?? { failures: 0, expiresAt: 0 }
      entry.failures += 1
      entry.expiresAt = now() + LOCKOUT_MS
      entries.set(key, entry)
    },
    async reset(key) {
      entries.delete(key)
    },
  }
}

/**
 * Lock-outs shared by every server process through Redis. Errors let the request through (the token
 * rate limit still bounds guessing) rather than locking every client out while Redis is down.
 */
export function redisLockout(
  redis: Redis,
  prefix: string,
  onError: (error: unknown) => void,
  maxFailures = MAX_FAILURES,
): Lockout {
  const keyOf = (key: string) => `${prefix}lockout:${key}`
  const logged = (error: unknown) => {
    onError(error)
    return undefined
  }
  return {
    async isLocked(key) {
      const failures = await redis.get(keyOf(key)).catch(logged)
      return Number(failures ?? 0) >= maxFailures
    },
    async recordFailure(key) {
      await redis.multi().incr(keyOf(key)).pexpire(keyOf(key), LOCKOUT_MS).exec().catch(logged)
    },
    async reset(key) {
      await redis.del(keyOf(key)).catch(logged)
    },
  }
}
