/**
 * Search results kept in the process, each under its organization's index version (migration
 * 0011_search_versions). Every change to an organization's expert index raises the version in its own
 * transaction, so a result kept under the current version is the result a fresh evaluation would give,
 * whichever process made the change; results under an older version are never read again and age out.
 */

const MAX_ENTRIES = 2_000

export class VersionedCache {
  readonly #entries = new Map<string, Promise<unknown>>()

  constructor(private readonly maxEntries = MAX_ENTRIES) {}

  /**
   * The value under `key`, else `compute()`'s, kept (least recently used entries go first). Requests
   * arriving while it is computed share the one computation; a failed one is not kept.
   */
  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const kept = this.#entries.get(key) as Promise<T> | undefined
    if (kept) {
      this.#entries.delete(key)
      this.#entries.set(key, kept)
      return kept
    }
    const value = compute()
    this.#entries.set(key, value)
    value.catch(() => {
      if (this.#entries.get(key) === value) this.#entries.delete(key)
    })
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#entries.delete(oldest)
    }
    return value
  }
}

const caches = new WeakMap<object, VersionedCache>()

/** One cache per database handle: two databases in one process (tests) never share entries. */
export function cacheOf(db: object): VersionedCache {
  let cache = caches.get(db)
  if (!cache) {
    cache = new VersionedCache()
    caches.set(db, cache)
  }
  return cache
}
