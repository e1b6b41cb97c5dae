import type { CounterStore, Window } from '../limits/counter-store.js'

/** After this many consecutive bad secrets for one client id from one IP, that pair is locked out... */
export const MAX_FAILURES = 10
/** ...for this long. */
export const LOCKOUT_MS = 15 * 60_000
/** Each failure renews the lock-out: it ends 15 minutes after the latest one. */
const WINDOW: Window = { windowMs: LOCKOUT_MS, ends: 'renewed' }

/** Counts consecutive failed authentications per key: (client id, IP) for clients; account or address for people. */
export interface Lockout {
  isLocked(key: string): Promise<boolean>
  recordFailure(key: string): Promise<void>
  reset(key: string): Promise<void>
}

/**
 * Locks a key out after `maxFailures` failures, until 15 minutes after the latest (`lockout:<key>`).
 * A store that cannot count lets the request through (the token rate limit still bounds guessing)
 * rather than locking everyone out while Redis is down.
 */
export function createLockout(store: CounterStore, maxFailures = MAX_FAILURES): Lockout {
  const failures = store.counters('lockout')
  return {
    async isLocked(key) {
      return ((await failures.read(key))?.count ?? 0) >= maxFailures
    },
    async recordFailure(key) {
      await failures.increment(key, WINDOW)
    },
    async reset(key) {
      await failures.reset(key)
    },
  }
}
