import type { CounterStore, Window } from '../limits/counter-store.js'

/** "Refresh now" per expert and hour (CONTRACT §19): every source is asked again, so it is kept scarce. */
export const REFRESH_NOW_PER_HOUR = 4
const WINDOW: Window = { windowMs: 60 * 60 * 1000, ends: 'fixed' }

export interface RefreshLimit {
  /** Counts one refresh of the expert; milliseconds until another is allowed when over the limit. */
  take(orgId: number, expertId: number): Promise<number | undefined>
}

/** At most `max` refreshes now per expert in fixed windows of an hour (`works-refresh:<org>:<expert>`). */
export function createRefreshLimit(store: CounterStore, max = REFRESH_NOW_PER_HOUR): RefreshLimit {
  const refreshes = store.counters('works-refresh')
  return {
    async take(orgId, expertId) {
      const counted = await refreshes.increment(`${orgId}:${expertId}`, WINDOW)
      return counted && counted.count > max ? Math.max(1000, counted.remainingMs) : undefined
    },
  }
}
