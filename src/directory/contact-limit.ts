import type { CounterStore, Window } from '../limits/counter-store.js'

/** The window of the per-address limit on contact-form submissions. */
export const CONTACT_WINDOW_MS = 60 * 60 * 1000
const WINDOW: Window = { windowMs: CONTACT_WINDOW_MS, ends: 'fixed' }

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

/**
 * At most `max` submissions per address in fixed windows of an hour (`directory-contact:<address>`);
 * `max` 0: no limit. A store that cannot count lets the submission through.
 */
export function createContactLimit(store: CounterStore, max: number): ContactLimit {
  if (max === 0) return unlimited
  const submissions = store.counters('directory-contact')
  return {
    async take(address) {
      const counted = await submissions.increment(address, WINDOW)
      return counted && counted.count > max ? counted.remainingMs : undefined
    },
  }
}
