import { isIPv6 } from 'node:net'
import type { Redis } from 'ioredis'
import { LRUCache } from 'lru-cache'

/** The window of the per-address limit on failed client authentications. */
export const FAILURE_WINDOW_MS = 60_000

/**
 * Failed client authentications per address and minute, whatever client id they name. Each check of a
 * secret costs a full scrypt (an unknown client id too, so that timing does not tell it apart), so the
 * lock-out per (client id, address) alone bounds nothing against random client ids; this does.
 *
 * An attempt takes a slot before its secret is checked and gives it back when the secret was right:
 * concurrent attempts cannot overshoot the limit, and successful authentications never count. So an
 * address makes the server run at most `max` failing scrypt checks per window.
 */
export interface FailureLimit {
  /** Takes a slot for one attempt from `address`: undefined when taken, else milliseconds until one frees. */
  take(address: string): Promise<number | undefined>
  /** Gives back the slot of an attempt that did not fail (right secret, or an error of ours). */
  release(address: string): Promise<void>
}

/** No limit (`EXPERTDIR_RATE_LIMIT_TOKEN_FAILURES=0`). */
export const noFailureLimit: FailureLimit = {
  async take() {
    return undefined
  },
  async release() {},
}

/** In-process counts (one server process), in fixed one-minute windows. Bounded: the oldest go first. */
export function memoryFailureLimit(max: number, now: () => number, maxEntries = 100_000): FailureLimit {
  if (max === 0) return noFailureLimit
  const windows = new LRUCache<string, { count: number; resetAt: number }>({ max: maxEntries })
  const live = (address: string) => {
    const window = windows.get(address)
    if (window && window.resetAt > now()) return window
    return undefined
  }
  return {
    async take(address) {
      const window = live(address) ?? { count: 0, resetAt: now() + FAILURE_WINDOW_MS }
      if (window.count >= max) return window.resetAt - now()
      window.count += 1
      windows.set(address, window)
      return undefined
    },
    async release(address) {
      const window = live(address)
      if (window && window.count > 0) window.count -= 1
    },
  }
}

/**
 * Counts shared by every server process through Redis: one key per address, created with the
 * window's expiry. A failing Redis lets the attempt through (logged), as the rate limits do.
 */
export function redisFailureLimit(
  redis: Redis,
  max: number,
  prefix: string,
  onError: (error: unknown) => void,
): FailureLimit {
  if (max === 0) return noFailureLimit
  const keyOf = (address: string) => `${prefix}auth-failures:${address}`
  return {
    async take(address) {
      const key = keyOf(address)
      try {
        const results = await redis
          .multi()
          .set(key, 0, 'PX', FAILURE_WINDOW_MS, 'NX')
          .incr(key)
          .pttl(key)
          .exec()
        const count = Number(results?.[1]?.[1])
        const ttl = Number(results?.[2]?.[1])
        if (!(count > max)) return undefined
        return ttl > 0 ? ttl : FAILURE_WINDOW_MS
      } catch (error) {
        onError(error)
        return undefined
      }
    },
    async release(address) {
      await redis.decr(keyOf(address)).catch(onError)
    },
  }
}

/**
 * The address a limit counts under: an IPv4 address as it is (also when IPv4-mapped), an IPv6 address
 * by its /64 prefix, the smallest block one subscriber is usually given, so that an attacker cannot
 * step through the 2^64 addresses of its own network.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  if (mapped?.[1]) return mapped[1]
  if (!isIPv6(ip)) return ip
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]))
  const [head = '', tail = ''] = ip.replace(/%.*$/, '').split('::')
  const written = [...groupsOf(head), ...groupsOf(tail)]
  const groups = ip.includes('::')
    ? [...groupsOf(head), ...Array(8 - written.length).fill('0'), ...groupsOf(tail)]
    : written
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`
}
