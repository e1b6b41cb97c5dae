import type { Readable } from 'node:stream'

/** A stored object as `list` sees it. */
export interface StoredObject {
  key: string
  /** Unix milliseconds of the last write. */
  modifiedAt: number
}

/** A stored object opened for reading. */
export interface OpenedObject {
  body: Readable
  bytes: number
}

/**
 * Where photos and documents live: a folder (default) or an S3-compatible bucket. Keys are
 * `<org id>/<name>.<ext>` (keys.ts); the storage trusts nothing else and refuses other keys.
 *
 * Failure: every method rejects with the underlying error (disk, network); callers that must leave
 * nothing behind delete what they wrote (`delete` of a missing key succeeds).
 */
export interface MediaStorage {
  /** Where media live, for operators (`expertdir backup`): a folder path, or the bucket without credentials. */
  readonly location: string
  /** Writes all of `bytes` under `key`, atomically: a reader sees the old object, none, or the whole new one. */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>
  /** The object, or undefined when there is none. */
  open(key: string): Promise<OpenedObject | undefined>
  /** Deletes the objects; keys that do not exist are ignored. */
  delete(keys: readonly string[]): Promise<void>
  /** Every stored object, including leftovers of interrupted writes (for `expertdir media gc`). */
  list(): AsyncIterable<StoredObject>
  close(): Promise<void>
}
