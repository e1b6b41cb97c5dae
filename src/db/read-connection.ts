import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
import { LRUCache } from 'lru-cache'
import { nodeSqlite, withSqliteErrors } from './sqlite.js'

/**
 * A second, read-only SQLite connection for the answers a read is validated with (the token check, a
 * record's versions). It never writes, so its `PRAGMA data_version` changes exactly when another
 * connection commits: any process's, this process's own writer included. An answer read here stays
 * true for as long as that number does (src/derived/validated-answers.ts).
 *
 * It waits for no lock: a read that finds the database busy (a WAL recovery, rare) fails at once with
 * SQLITE_BUSY and its caller falls back to the main connection, so the event loop is never held.
 */
export interface ReadConnection {
  /** SQLite's `data_version` of this connection: changes whenever anyone else commits. */
  dataVersion(): number
  /** The rows of one read statement (prepared once per SQL text); throws an SqliteError. */
  all(sql: string, parameters: readonly SQLInputValue[]): Record<string, SQLInputValue>[]
  close(): void
}

export function openReadConnection(path: string): ReadConnection {
  const sqlite: DatabaseSync = withSqliteErrors(
    () => new nodeSqlite.DatabaseSync(path, { readOnly: true, enableForeignKeyConstraints: true }),
  )
  sqlite.exec('pragma busy_timeout = 0')
  const version = sqlite.prepare('pragma data_version')
  const statements = new LRUCache<string, StatementSync>({ max: 100 })
  const prepared = (sql: string) => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = sqlite.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }
  return {
    dataVersion: () => withSqliteErrors(() => Number(version.get()?.data_version)),
    all: (sql, parameters) => withSqliteErrors(() => prepared(sql).all(...parameters)),
    close: () => sqlite.close(),
  }
}
