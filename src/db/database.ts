import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, sql, type Transaction } from 'kysely'
import { LRUCache } from 'lru-cache'
import pg from 'pg'
import type { DB } from './schema.js'

export type DialectName = 'sqlite' | 'postgres'

/** A query target: the database itself or an open transaction. */
export type Queryable = Kysely<DB> | Transaction<DB>

export interface Database {
  readonly db: Kysely<DB>
  readonly dialect: DialectName
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>
  /** Refreshes the planner's statistics (after a bulk load). */
  refreshStatistics(): Promise<void>
  close(): Promise<void>
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

/** Settings come from the config (src/config.ts); these defaults serve tests and tools. */
export interface DatabaseOptions {
  /** PostgreSQL: connection pool size. */
  poolSize?: number
  /** PostgreSQL: how long to wait for a new connection before failing (503) rather than hanging. */
  connectTimeoutMs?: number
  /** SQLite: how long a write waits for another connection's lock before failing (503). */
  busyTimeoutMs?: number
}

/**
 * Opens the database named by `url`: a `postgres://` URL or an SQLite file path
 * (`:memory:` and `file:` paths included).
 */
export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  return isPostgresUrl(url) ? openPostgres(url, options) : openSqlite(url, options)
}

/** The pool behind each PostgreSQL Kysely instance, for named statements (src/db/reusable-query.ts). */
const pools = new WeakMap<Queryable, pg.Pool>()

/** The pg pool of `db` when it is a PostgreSQL database (not a transaction); otherwise undefined. */
export function postgresPoolOf(db: Queryable): pg.Pool | undefined {
  return pools.get(db)
}

const INT8_OID = 20
const NUMERIC_OID = 1700

function openPostgres(url: string, options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    // Our bigint columns hold unix milliseconds and ids, all below 2^53.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? Number
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  // Nor a checked-out one: pg rejects the running query *and* emits 'error' on the client, which
  // would be an uncaught exception. The query's rejection is the one we answer (503); the pool
  // drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
  pools.set(db, pool)
  return {
    db,
    dialect: 'postgres',
    async ping() {
      const client = await pool.connect()
      try {
        await client.query('select 1')
      } finally {
        client.release()
      }
    },
    refreshStatistics: async () => {
      await sql`analyze`.execute(db)
    },
    close: () => db.destroy(),
  }
}

function openSqlite(url: string, options: DatabaseOptions): Database {
  const path = url.replace(/^sqlite:(\/\/)?/, '')
  if (path !== ':memory:' && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true })
  const sqlite = new SQLite(path)
  sqlite.pragma('journal_mode = WAL')
  // FULL: a commit is on disk before we answer, so an acknowledged inquiry survives even a power cut.
  sqlite.pragma('synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`)
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: reusingStatements(sqlite) }) })
  return {
    db,
    dialect: 'sqlite',
    async ping() {
      sqlite.prepare('select 1').get()
    },
    refreshStatistics: async () => {
      sqlite.exec('analyze')
    },
    close: () => db.destroy(),
  }
}

/**
 * Kysely prepares every query anew; preparing costs more than running a small indexed query. Keep
 * prepared statements by SQL text (bounded: SQL with variable-length lists varies). Safe because
 * Kysely runs one query at a time on its single SQLite connection.
 */
function reusingStatements(sqlite: SQLite.Database, maxStatements = 1000): SqliteDatabase {
  const statements = new LRUCache<string, SQLite.Statement>({ max: maxStatements })
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      let statement = statements.get(sql)
      if (!statement) {
        statement = sqlite.prepare(sql)
        statements.set(sql, statement)
      }
      return statement
    },
  }
}

/** True when `error` is a unique or primary-key violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08006',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
])

/** True when `error` means the database cannot be reached now (a 503, not a 500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|driver has already been destroyed/i.test(
      message,
    )
  )
}
