import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
import { LRUCache } from 'lru-cache'
import { nodeSqlite, withBuffers, withSqliteErrors } from './sqlite.js'
import { WalIndexHeader } from './wal-index.js'

/**
 * A second, read-only SQLite connection for the answers a read is validated with (the token check, a
 * record's versions). It never writes, so its `PRAGMA data_version` changes exactly when another
 * connection commits: any process's, this process's own writer included. An answer read here stays
 * true for as long as that number does (src/kept-reads/validated-answers.ts); in WAL mode the number is
 * taken from the WAL-index header instead, which moves with the same commits for less.
 *
 * It waits for no lock: a read that finds the database busy (a WAL recovery, rare) fails at once with
 * SQLITE_BUSY and its caller falls back to the main connection, so the event loop is never held.
 */
export interface ReadConnection {
  /** A number that changes whenever anyone commits (see `commitCounter`). */
  dataVersion(): number
  /**
   * Runs `work` with one change check: the first `dataVersion()` inside it reads the count and the
   * others take that answer. Sound because `work` is synchronous: no request can arrive while it runs,
   * so each one it answers was received before the check, and sees every commit made before it was sent.
   */
  checkingOnce<T>(work: () => T): T
  /** The rows of one read statement (prepared once per SQL text), BLOBs as Buffers; throws an SqliteError. */
  all(sql: string, parameters: readonly SQLInputValue[]): Record<string, SQLInputValue>[]
  close(): void
}

export function openReadConnection(path: string): ReadConnection {
  const sqlite: DatabaseSync = withSqliteErrors(
    () => new nodeSqlite.DatabaseSync(path, { readOnly: true, enableForeignKeyConstraints: true }),
  )
  sqlite.exec('pragma busy_timeout = 0')
  const dataVersion = commitCounter(sqlite)
  const statements = new LRUCache<string, StatementSync>({ max: 100 })
  const prepared = (sql: string) => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = sqlite.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }
  /** Inside `checkingOnce`: the count read there, once read. */
  let scope: { count?: number } | undefined
  return {
    dataVersion: () => {
      if (!scope) return withSqliteErrors(dataVersion)
      scope.count ??= withSqliteErrors(dataVersion)
      return scope.count
    },
    checkingOnce: (work) => {
      if (scope) return work()
      scope = {}
      try {
        return work()
      } finally {
        scope = undefined
      }
    },
    all: (sql, parameters) =>
      withSqliteErrors(() =>
        prepared(sql)
          .all(...parameters)
          .map(withBuffers),
      ),
    close: () => {
      dataVersion.close()
      sqlite.close()
    },
  }
}

/**
 * Counts the commits this connection can see, by anyone: `PRAGMA data_version` until the connection has
 * read once in WAL mode, then the WAL-index header (src/db/wal-index.ts), the same answer for one `pread`.
 * Should that file become unreadable, the pragma again, and the count moves: nothing kept is trusted
 * across the switch.
 */
function commitCounter(sqlite: DatabaseSync): (() => number) & { close(): void } {
  const pragma = sqlite.prepare('pragma data_version')
  let walIndex: WalIndexHeader | undefined
  let watched = false
  let dataVersion = Number.NaN
  let count = 0
  const fromPragma = () => {
    const current = Number(pragma.get()?.data_version)
    if (current !== dataVersion) {
      dataVersion = current
      count++
    }
  }
  const counter = () => {
    if (walIndex) {
      try {
        if (walIndex.changed()) count++
        return count
      } catch {
        walIndex.close()
        walIndex = undefined
        count++
      }
    }
    // Throws SQLITE_BUSY while another connection holds the file (callers fall back); once it has
    // answered, this connection holds the -shm open in WAL mode for as long as it lives.
    fromPragma()
    if (!watched) {
      watched = true
      if (sqlite.prepare('pragma journal_mode').get()?.journal_mode === 'wal') walIndex = openHeader(sqlite)
      if (walIndex) walIndex.changed()
    }
    return count
  }
  return Object.assign(counter, { close: () => walIndex?.close() })
}

function openHeader(sqlite: DatabaseSync): WalIndexHeader | undefined {
  const main = sqlite
    .prepare('pragma database_list')
    .all()
    .find((row) => row.name === 'main')
  return typeof main?.file === 'string' && main.file !== '' ? WalIndexHeader.open(main.file) : undefined
}
