import { LRUCache } from 'lru-cache'

/**
 * A map of at most `maxEntries` entries by key, the least recently used going first. Counted through
 * lru-cache's `maxSize` rather than its `max`, which allocates arrays for all `max` entries up front:
 * about 2.8 MiB for 100,000 entries, in each of the process's in-memory lock-outs and limits, before
 * the first failure is recorded. These arrays grow with the entries instead.
 */
export function boundedEntries<V extends {}>(maxEntries: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ maxSize: Math.max(1, maxEntries), sizeCalculation: () => 1 })
}
