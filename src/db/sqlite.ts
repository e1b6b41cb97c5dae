import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
import type { SqliteDatabase, SqliteStatement } from 'kysely'
import { LRUCache } from 'lru-cache'

/**
 * SQLite through Node's built-in `node:sqlite`: no native addon to compile, so nothing is tied to one
 * Node ABI and `npm install` builds nothing. Node 22 still prints an ExperimentalWarning when the
 * module loads (24 and later do not); that one warning is kept off operators' terminals, every other
 * warning is printed as before.
 */
function loadNodeSqlite(): typeof import('node:sqlite') {
  const printers = process.listeners('warning')
  process.removeAllListeners('warning')
  process.on('warning', (warning) => {
    if (warning.name === 'ExperimentalWarning' && /\bSQLite\b/.test(warning.message)) return
    for (const print of printers) print.call(process, warning)
  })
  return process.getBuiltinModule('node:sqlite')
}

export const nodeSqlite: typeof import('node:sqlite') = loadNodeSqlite()

export interface SqliteOpenOptions {
  /** How long a write waits for another connection's lock before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number
}

/** Opens an SQLite connection with the settings every connection of ours uses. */
export function openSqliteConnection(path: string, options: SqliteOpenOptions = {}): DatabaseSync {
  const sqlite = withSqliteErrors(
    () => new nodeSqlite.DatabaseSync(path, { enableForeignKeyConstraints: true }),
  )
  sqlite.exec(`pragma busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`)
  return sqlite
}

/**
 * An SQLite error named as SQLite names its result codes (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`…),
 * the `code` the rest of the data layer keys on. node:sqlite reports only the number.
 */
export class SqliteError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = 'SqliteError'
  }
}

/** Primary result codes (the low byte of an extended code). */
const PRIMARY_CODES: Record<number, string> = {
  1: 'SQLITE_ERROR',
  2: 'SQLITE_INTERNAL',
  3: 'SQLITE_PERM',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  9: 'SQLITE_INTERRUPT',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  17: 'SQLITE_SCHEMA',
  18: 'SQLITE_TOOBIG',
  19: 'SQLITE_CONSTRAINT',
  20: 'SQLITE_MISMATCH',
  21: 'SQLITE_MISUSE',
  25: 'SQLITE_RANGE',
  26: 'SQLITE_NOTADB',
}

/** The extended codes the data layer tells apart. */
const EXTENDED_CODES: Record<number, string> = {
  261: 'SQLITE_BUSY_RECOVERY',
  517: 'SQLITE_BUSY_SNAPSHOT',
  773: 'SQLITE_BUSY_TIMEOUT',
  262: 'SQLITE_LOCKED_SHAREDCACHE',
  275: 'SQLITE_CONSTRAINT_CHECK',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
}

function isNodeSqliteError(error: unknown): error is Error & { errcode: number } {
  return (
    error instanceof Error &&
    'code' in error &&
    error.code === 'ERR_SQLITE_ERROR' &&
    'errcode' in error &&
    typeof error.errcode === 'number'
  )
}

/** A node:sqlite error as an SqliteError that carries its code's name; any other error as it is. */
export function asSqliteError(error: unknown): unknown {
  if (!isNodeSqliteError(error)) return error
  const code = EXTENDED_CODES[error.errcode] ?? PRIMARY_CODES[error.errcode & 0xff] ?? 'SQLITE_ERROR'
  return new SqliteError(code, error.message, { cause: error })
}

/** Runs `run`, rethrowing a node:sqlite error as an SqliteError. */
export function withSqliteErrors<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw asSqliteError(error)
  }
}

/** node:sqlite answers BLOBs as Uint8Array; the rest of the app (and Fastify) expects Buffers. */
export function withBuffers<T extends Record<string, unknown>>(row: T): T {
  for (const key in row) {
    const value = row[key]
    if (value instanceof Uint8Array && !Buffer.isBuffer(value))
      (row as Record<string, unknown>)[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength)
  }
  return row
}

/** Kysely's parameters are what our queries bind: numbers, strings, null, Buffers. */
const bound = (parameters: ReadonlyArray<unknown>) => parameters as SQLInputValue[]

function kyselyStatement(statement: StatementSync): SqliteStatement {
  return {
    reader: statement.columns().length > 0,
    all: (parameters) => withSqliteErrors(() => statement.all(...bound(parameters)).map(withBuffers)),
    run: (parameters) => withSqliteErrors(() => statement.run(...bound(parameters))),
    *iterate(parameters) {
      const rows = withSqliteErrors(() => statement.iterate(...bound(parameters)))
      for (;;) {
        const next = withSqliteErrors(() => rows.next())
        if (next.done) return
        yield withBuffers(next.value)
      }
    },
  }
}

/**
 * The connection as Kysely's SqliteDialect wants it. Kysely prepares every query anew, and preparing
 * costs more than running a small indexed query, so prepared statements are kept by SQL text
 * (bounded: SQL with variable-length lists varies). Safe because Kysely runs one query at a time on
 * its single SQLite connection.
 */
export function kyselySqlite(sqlite: DatabaseSync, maxStatements = 1000): SqliteDatabase {
  const statements = new LRUCache<string, SqliteStatement>({ max: maxStatements })
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      let statement = statements.get(sql)
      if (!statement) {
        statement = kyselyStatement(withSqliteErrors(() => sqlite.prepare(sql)))
        statements.set(sql, statement)
      }
      return statement
    },
  }
}
