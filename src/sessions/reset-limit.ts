import type { Redis } from 'ioredis'
import { boundedEntries } from '../auth/bounded-entries.js'

/** The window of the password-reset allowances. */
export const RESET_WINDOW_MS = 60 * 60 * 1000
/** Reset emails one account receives per hour at most. */
export const RESET_MAILS_PER_ACCOUNT = 3
/**
 * Reset requests one client address makes per hour at most, known addresses or not: higher than the
 * per-account count, so that an office behind one address is not stopped by one person.
 */
export const RESET_REQUESTS_PER_ADDRESS = 20

/**
 * Counts in fixed windows of an hour: the password-reset allowances per account and per client
 * address. Over the allowance a request is dropped silently: the answer stays the same.
 */
export interface ResetLimit {
  /** Counts one use of `key`; false when that use is over `max` in the current window. */
  take(key: string, max: number): Promise<boolean>
}

/** In-process counts (one server process). Bounded: the oldest keys go first. */
export function memoryResetLimit(now: () => number, maxEntries = 100_000): ResetLimit {
  const windows = boundedEntries<{ count: number; resetAt: number }>(maxEntries)
  return {
    async take(key, max) {
      const current = windows.get(key)
      const window =
        current && current.resetAt > now() ? current : { count: 0, resetAt: now() + RESET_WINDOW_MS }
      window.count += 1
      windows.set(key, window)
      return window.count <= max
    },
  }
}

/**
 * Counts shared by every server process through Redis. A failing Redis refuses the email (logged):
 * a reset can be asked for again, an unbounded stream of emails cannot be taken back.
 */
export function redisResetLimit(redis: Redis, prefix: string, onError: (error: unknown) => void): ResetLimit {
  return {
    async take(key, max) {
      const stored = `${prefix}password-reset:${key}`
      try {
        const results = await redis.multi().set(stored, 0, 'PX', RESET_WINDOW_MS, 'NX').incr(stored).exec()
        return Number(results?.[1]?.[1] ?? Number.POSITIVE_INFINITY) <= max
      } catch (error) {
        onError(error)
        return false
      }
    },
  }
}
