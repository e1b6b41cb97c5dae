import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely'
import type pg from 'pg'
import { propertyOf } from '../validation/guards.js'
import { type CommitQueue, createCommitQueue } from './commit-queue.js'
import { openReadConnection, type ReadConnection } from './read-connection.js'
import type { DB } from './schema.js'
import { kyselySqlite, openSqliteConnection } from './sqlite.js'
import { immediateTransactions } from './transactions.js'

export type DialectName = 'sqlite' | 'postgres'

/** A query target: the database itself or an open transaction. */
export type Queryable = Kysely<DB> | Transaction<DB>

export interface Database {
  readonly db: Kysely<DB>
  readonly dialect: DialectName
  /** Group commit for durable writes under concurrency (inquiries): see commit-queue.ts. */
  readonly commits: CommitQueue
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>
  /** Refreshes the planner's statistics (after a bulk load). */
  refreshStatistics(): Promise<void>
  close(): Promise<void>
  /**
   * SQLite in a file: the read-only connection of validated answers (read-connection.ts), opened on
   * first use and closed with the database. Undefined on PostgreSQL and for `:memory:`.
   */
  readConnection(): ReadConnection | undefined
  /** PostgreSQL: the connection pool's current state (metrics). SQLite has one connection and no pool. */
  readonly poolStatistics?: () => { total: number; idle: number; waiting: number }
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
  /** The most writes one group commit takes (1: each its own transaction). */
  commitBatchMax?: number
}

const DEFAULT_COMMIT_BATCH_MAX = 64
const DEFAULT_POOL_SIZE = 10

/**
 * Opens the database named by `url`: a `postgres://` URL or an SQLite file path
 * (`:memory:` and `file:` paths included).
 */
export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  return isPostgresUrl(url) ? openPostgres(url, options) : openSqlite(url, options)
}

/**
 * PostgreSQL: a unit's statements are round trips on its batch's connection, so one large batch is
 * slow; several smaller batches on their own connections overlap those round trips, and each commit
 * still covers several inquiries. Half the pool, so reads always find a connection.
 */
const POSTGRES_BATCH_MAX = 8
const postgresCommitConcurrency = (poolSize: number) => Math.max(1, Math.floor(poolSize / 2))

/** Nothing queued for a group commit is dropped: it commits (or fails) before the connections close. */
async function closeAfterCommits(db: Kysely<DB>, commits: CommitQueue): Promise<void> {
  await commits.idle()
  await db.destroy()
}

/** The pool behind each PostgreSQL Kysely instance, for named statements (reusable-query.ts). */
const pools = new WeakMap<Queryable, pg.Pool>()

/** The pg pool of `db` when it is a PostgreSQL database (not a transaction); otherwise undefined. */
export function postgresPoolOf(db: Queryable): pg.Pool | undefined {
  return pools.get(db)
}

const INT8_OID = 20
const NUMERIC_OID = 1700

/** pg's type parsers, with int8 and numeric read as JavaScript numbers instead of strings. */
/** pg, loaded when a PostgreSQL database is opened: an SQLite process never pays for it. */
const loadPg = (): typeof pg => createRequire(import.meta.url)('pg')

function numbersAsNumbers(): pg.TypeOverrides {
  const types = new (loadPg().TypeOverrides)()
  types.setTypeParser(INT8_OID, Number)
  types.setTypeParser(NUMERIC_OID, Number)
  return types
}

function openPostgres(url: string, options: DatabaseOptions): Database {
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    // Our bigint columns hold unix milliseconds and ids, all below 2^53.
    types: numbersAsNumbers(),
  })
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  // Nor a checked-out one: pg rejects the running query *and* emits 'error' on the client, which
  // would be an uncaught exception. The query's rejection is the one we answer (503); the pool
  // drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
  const commits = createCommitQueue(db, {
    maxBatch: Math.min(options.commitBatchMax ?? DEFAULT_COMMIT_BATCH_MAX, POSTGRES_BATCH_MAX),
    concurrency: postgresCommitConcurrency(options.poolSize ?? DEFAULT_POOL_SIZE),
    optimistic: true,
  })
  pools.set(db, pool)
  return {
    db,
    dialect: 'postgres',
    readConnection: () => undefined,
    poolStatistics: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    commits,
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
    close: () => closeAfterCommits(db, commits),
  }
}

/** The file path of an SQLite database URL (`./x.sqlite`, `sqlite:x.sqlite`, `:memory:`). */
export function sqlitePath(url: string): string {
  return url.replace(/^sqlite:(\/\/)?/, '')
}

function openSqlite(url: string, options: DatabaseOptions): Database {
  const path = sqlitePath(url)
  if (path !== ':memory:' && !path.startsWith('file:')) mkdirSync(dirname(path), { recursive: true })
  const sqlite = openSqliteConnection(path, options)
  sqlite.exec('pragma journal_mode = WAL')
  // FULL: a commit is on disk before we answer, so an acknowledged inquiry survives even a power cut.
  sqlite.exec('pragma synchronous = FULL')
  // Write transactions take the write lock first (BEGIN IMMEDIATE): see transactions.ts.
  const db = new Kysely<DB>({
    dialect: immediateTransactions(new SqliteDialect({ database: kyselySqlite(sqlite) })),
  })
  // One connection, one writer: one batch at a time.
  const commits = createCommitQueue(db, { maxBatch: options.commitBatchMax ?? DEFAULT_COMMIT_BATCH_MAX })
  const inFile = path !== ':memory:' && !path.includes('mode=memory')
  let reads: ReadConnection | undefined
  return {
    db,
    dialect: 'sqlite',
    commits,
    readConnection() {
      if (inFile) reads ??= openReadConnection(path)
      return reads
    },
    async ping() {
      sqlite.prepare('select 1').get()
    },
    refreshStatistics: async () => {
      sqlite.exec('analyze')
    },
    async close() {
      reads?.close()
      reads = undefined
      await closeAfterCommits(db, commits)
    },
  }
}

/** True when `error` is a unique or primary-key violation, on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const code = propertyOf(error, 'code')
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
  const code = propertyOf(error, 'code')
  const message = propertyOf(error, 'message')
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|driver has already been destroyed/i.test(
      message,
    )
  )
}
