import type { CounterStore, Window } from '../limits/counter-store.js'

/** The window of the password-reset allowances. */
export const RESET_WINDOW_MS = 60 * 60 * 1000
const WINDOW: Window = { windowMs: RESET_WINDOW_MS, ends: 'fixed' }
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

/**
 * The allowances (`password-reset:<key>`). Unlike the other limits, a store that cannot count refuses
 * the email: a reset can be asked for again, an unbounded stream of emails cannot be taken back.
 */
export function createResetLimit(store: CounterStore): ResetLimit {
  const uses = store.counters('password-reset')
  return {
    async take(key, max) {
      const counted = await uses.increment(key, WINDOW)
      return counted !== undefined && counted.count <= max
    },
  }
}
