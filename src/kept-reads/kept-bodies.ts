import { LRUCache } from 'lru-cache'

/** A read's response as sent: the body bytes and their ETag. */
export interface KeptBody {
  body: Buffer
  etag: string
}

/** What one kept body costs besides its bytes: the key, the ETag, the objects. */
const OVERHEAD_BYTES = 200

/**
 * Response bodies of reads, kept in the process under keys that name the versions they were built from
 * (src/kept-reads/kept-reads.ts), so nothing is ever invalidated by time: a write raises a version, the next
 * read asks for a new key, and the old entry is simply never asked for again until the least recently
 * used ones make room. Bounded by bytes (`EXPERTDIR_READ_CACHE_BYTES`).
 */
export class KeptBodies {
  readonly #entries: LRUCache<string, KeptBody>

  constructor(readonly maxBytes: number) {
    this.#entries = new LRUCache<string, KeptBody>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (kept, key) => kept.body.length + 2 * key.length + OVERHEAD_BYTES,
    })
  }

  get(key: string): KeptBody | undefined {
    return this.#entries.get(key)
  }

  set(key: string, kept: KeptBody): void {
    if (this.maxBytes > 0) this.#entries.set(key, kept)
  }

  /** Entries and their counted bytes (tests, metrics). */
  get stats(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#entries.calculatedSize }
  }
}
