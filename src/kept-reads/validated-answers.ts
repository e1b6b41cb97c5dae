import { LRUCache } from 'lru-cache'
import type { ReadConnection } from '../db/read-connection.js'

/**
 * Answers read through the SQLite read connection (src/db/read-connection.ts), kept in the process and
 * trusted only while that connection's `data_version` is the one they were read under. `refresh()`
 * runs first on every request: one pragma, and when anything has committed since (any connection,
 * any process, this process's own writes included), every kept answer is forgotten at once.
 *
 * Requests in one process are answered one at a time on the event loop and the connection is
 * synchronous, so `refresh()` and the reads after it see one moment of the database: an answer
 * kept under a version was read after that version was current.
 */
export class ValidatedAnswers {
  #dataVersion = Number.NaN
  /** Bumped whenever the data version moves: each map forgets what it kept under an older one. */
  #generation = 0

  constructor(readonly connection: ReadConnection) {}

  /** Checks `data_version`; throws an SqliteError (SQLITE_BUSY) the caller answers without the cache. */
  refresh(): void {
    const current = this.connection.dataVersion()
    if (current !== this.#dataVersion) {
      this.#dataVersion = current
      this.#generation++
    }
  }

  get generation(): number {
    return this.#generation
  }

  /** A map of answers of one kind, emptied whenever the data version moves; at most `maxBytes` of them. */
  map<T extends object>(maxBytes: number, sizeOf: (value: T) => number): AnswerMap<T> {
    return new AnswerMap(this, maxBytes, sizeOf)
  }
}

/** `null` is a kept answer too: no such token, no such record. */
type Answer<T> = { value: T | null }

export class AnswerMap<T extends object> {
  readonly #entries: LRUCache<string, Answer<T>>
  #generation = -1

  constructor(
    private readonly answers: ValidatedAnswers,
    maxBytes: number,
    sizeOf: (value: T) => number,
  ) {
    this.#entries = new LRUCache<string, Answer<T>>({
      maxSize: maxBytes,
      sizeCalculation: (answer, key) =>
        Math.max(1, 64 + 2 * key.length + (answer.value ? sizeOf(answer.value) : 0)),
    })
  }

  /** The answer under `key` read since the last change, else `read()`'s, kept. Call after `refresh()`. */
  get(key: string, read: (connection: ReadConnection) => T | null): T | null {
    if (this.#generation !== this.answers.generation) {
      this.#entries.clear()
      this.#generation = this.answers.generation
    }
    const kept = this.#entries.get(key)
    if (kept) return kept.value
    const value = read(this.answers.connection)
    this.#entries.set(key, { value })
    return value
  }

  get size(): number {
    return this.#entries.size
  }
}
