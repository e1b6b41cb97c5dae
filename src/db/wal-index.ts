import { closeSync, openSync, readSync } from 'node:fs'

/** The first copy of the WAL-index header (https://www.sqlite.org/walformat.html#the_wal_index_header). */
const HEADER_BYTES = 48
/** Its `isInit` byte: zero while the header is being built (a recovery); the bytes then say nothing. */
const IS_INIT = 12

/**
 * The WAL-index header of an SQLite database in WAL mode, read from the first bytes of its `-shm` file,
 * which every SQLite connection to the database maps as shared memory.
 *
 * Every commit, by any connection of any process, rewrites the header (the WAL's last frame, a counter
 * of changes, the checksums; a restarted WAL has new salts) before the commit returns, the first copy
 * last: a commit is visible to readers exactly when these bytes are new. Reading them is one `pread`,
 * where `PRAGMA data_version` takes two `fcntl` and an `fstat`, which under load cost a quarter of a
 * kept read (docs/performance.md, "The read connection's change check").
 *
 * Open it only on a connection that has read in WAL mode: SQLite deletes the `-shm` file only when
 * no connection holds it, so the file read here stays the one in use while that connection is open.
 */
export class WalIndexHeader {
  readonly #current = Buffer.alloc(HEADER_BYTES)
  readonly #last = Buffer.alloc(HEADER_BYTES)

  private constructor(private readonly fd: number) {}

  /** The header of `databaseFile`'s `-shm`; undefined when it cannot be opened (not in WAL mode). */
  static open(databaseFile: string): WalIndexHeader | undefined {
    try {
      return new WalIndexHeader(openSync(`${databaseFile}-shm`, 'r'))
    } catch {
      return undefined
    }
  }

  /** True when anyone has committed since the last call (and at the first); throws when unreadable. */
  changed(): boolean {
    if (readSync(this.fd, this.#current, 0, HEADER_BYTES, 0) !== HEADER_BYTES) throw new Error('short read')
    if (this.#current[IS_INIT] !== 0 && this.#current.equals(this.#last)) return false
    this.#current.copy(this.#last)
    return true
  }

  close(): void {
    closeSync(this.fd)
  }
}
