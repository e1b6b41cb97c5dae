import type { Redis } from 'ioredis'
import { boundedEntries } from '../auth/bounded-entries.js'

/** The window of the per-address limit on contact-form submissions. */
export const CONTACT_WINDOW_MS = 60 * 60 * 1000

/**
 * Contact-form submissions per sender address and hour (CONTRACT §18): every submission counts, sent or
 * refused, so that a flood costs the sender its allowance whatever it sends.
 */
export interface ContactLimit {
  /** Counts one submission of `address`; milliseconds until it may send again when over the limit. */
  take(address: string): Promise<number | undefined>
}

const unlimited: ContactLimit = {
  async take() {
    return undefined
  },
}

/** In-process counts in fixed windows (one server process). Bounded: the oldest addresses go first. */
export function memoryContactLimit(max: number, now: () => number, maxEntries = 100_000): ContactLimit {
  if (max === 0) return unlimited
  const windows = boundedEntries<{ count: number; resetAt: number }>(maxEntries)
  return {
    async take(address) {
      const current = windows.get(address)
      const window =
        current && current.resetAt > now() ? current : { count: 0, resetAt: now() + CONTACT_WINDOW_MS }
      window.count += 1
      windows.set(address, window)
      return window.count > max ? window.resetAt - now() : undefined
    },
  }
}

/** Counts shared by every server process; a failing Redis lets the submission through (logged). */
export function redisContactLimit(
  redis: Redis,
  max: number,
  prefix: string,
  onError: (error: unknown) => void,
): ContactLimit {
  if (max === 0) return unlimited
  return {
    async take(address) {
      const key = `${prefix}directory-contact:${address}`
      try {
        const results = await redis
          .multi()
          .set(key, 0, 'PX', CONTACT_WINDOW_MS, 'NX')
          .incr(key)
          .pttl(key)
          .exec()
        const count = Number(results?.[1]?.[1] ?? 0)
        const ttl = Number(results?.[2]?.[1])
        if (count <= max) return undefined
        return ttl > 0 ? ttl : CONTACT_WINDOW_MS
      } catch (error) {
        onError(error)
        return undefined
      }
    },
  }
}
