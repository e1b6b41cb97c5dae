import type { CounterStore, Window } from '../limits/counter-store.js'

/** The window of the per-address limit on contact-form submissions. */
export const CONTACT_WINDOW_MS = 60 * 60 * 1000
/** The window of the per-address limit on "describe your story" searches. */
export const STORY_WINDOW_MS = 60 * 1000

/**
 * A per-address allowance of the public directory's forms (CONTRACT §18): every submission counts,
 * answered or refused, so that a flood costs the sender its allowance whatever it sends.
 */
export interface AddressLimit {
  /** Counts one submission of `address`; milliseconds until it may submit again when over the limit. */
  take(address: string): Promise<number | undefined>
}

const unlimited: AddressLimit = {
  async take() {
    return undefined
  },
}

/**
 * At most `max` submissions per address in fixed windows of `windowMs` (`<name>:<address>`); `max` 0:
 * no limit. A store that cannot count lets the submission through.
 */
function createAddressLimit(store: CounterStore, name: string, max: number, windowMs: number): AddressLimit {
  if (max === 0) return unlimited
  const submissions = store.counters(name)
  const window: Window = { windowMs, ends: 'fixed' }
  return {
    async take(address) {
      const counted = await submissions.increment(address, window)
      return counted && counted.count > max ? counted.remainingMs : undefined
    },
  }
}

/** Contact-form submissions per sender address and hour (`directory-contact:<address>`). */
export const createContactLimit = (store: CounterStore, max: number) =>
  createAddressLimit(store, 'directory-contact', max, CONTACT_WINDOW_MS)

/**
 * Story searches per address and minute (`directory-story:<address>`): each ranks the organization's
 * experts against up to 20,000 characters, the public pages' one costly read.
 */
export const createStoryLimit = (store: CounterStore, max: number) =>
  createAddressLimit(store, 'directory-story', max, STORY_WINDOW_MS)
