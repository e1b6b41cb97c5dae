import { boundedEntries } from './bounded-entries.js'
import type { CounterStore, Counters, WindowCount } from './counter-store.js'
import { NO_COUNT } from './counter-store.js'

/** Keys one limit keeps in memory at most; the least recently used go first. */
const MAX_ENTRIES = 100_000

/**
 * Counts in this process (one server process, tests), on the app's clock. Each `counters(name)` keeps
 * at most `maxEntries` keys. Never unavailable.
 */
export function memoryCounters(now: () => number, maxEntries = MAX_ENTRIES): CounterStore {
  return {
    counters(): Counters {
      const entries = boundedEntries<{ count: number; endsAt: number }>(maxEntries)
      const live = (key: string) => {
        const entry = entries.get(key)
        if (entry && entry.endsAt <= now()) {
          entries.delete(key)
          return undefined
        }
        return entry
      }
      const answer = (entry: { count: number; endsAt: number }): WindowCount => ({
        count: entry.count,
        remainingMs: entry.endsAt - now(),
      })
      return {
        async increment(key, { windowMs, ends }) {
          const entry = live(key) ?? { count: 0, endsAt: now() + windowMs }
          entry.count += 1
          if (ends === 'renewed') entry.endsAt = now() + windowMs
          entries.set(key, entry)
          return answer(entry)
        },
        async read(key) {
          const entry = live(key)
          return entry ? answer(entry) : NO_COUNT
        },
        async reset(key) {
          entries.delete(key)
        },
      }
    },
  }
}
