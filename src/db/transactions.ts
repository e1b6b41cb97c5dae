import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  type QueryCompiler,
  type Transaction,
  type TransactionSettings,
} from 'kysely'
import { propertyOf } from '../validation/guards.js'
import type { DB } from './schema.js'

/**
 * How concurrent writes stay correct, on both databases and under any number of processes.
 *
 * - SQLite has one writer at a time. Every transaction begins with `BEGIN IMMEDIATE`
 *   (`immediateTransactions`): it takes the write lock before its first read, waiting up to the busy
 *   timeout for another process's writer, so a transaction that reads and then writes can never find
 *   its snapshot stale (SQLITE_BUSY_SNAPSHOT) nor be refused the lock it waited for. Within one
 *   process Kysely already runs one statement at a time on the one connection.
 * - PostgreSQL runs writers side by side at READ COMMITTED. A write that reads what it then decides
 *   on (a name already in a set, a list's length, the single element of a section, fields it merges)
 *   first locks the row it belongs to (`lockedForWrite`: the expert, the post), so writers of one
 *   record wait for each other and each statement after the lock sees the previous writer's commit.
 *   Rows that several records share (an organization's tags) are created with `ON CONFLICT`.
 * - What the database may still refuse under concurrency (a deadlock 40P01, a serialization failure
 *   40001, SQLITE_BUSY_SNAPSHOT) is retried by `writeTransaction`, the owner of the transaction, a
 *   few times; what is left, and a lock not granted within the busy timeout, is a 503 with
 *   `Retry-After` (`isWriteConflict`, `isDatabaseUnavailable`), never a 500.
 */

/** A write: it runs again from the start when the database asks for a retry, so it must not act outside it. */
export type WriteWork<T> = (trx: Transaction<DB>) => Promise<T>

/** Attempts of one write transaction before its error goes to the caller (a 503). */
export const WRITE_ATTEMPTS = 5

/** Failures that mean "run the transaction again", not "the request was wrong". */
const RETRYABLE_CODES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  'SQLITE_BUSY_SNAPSHOT', // a deferred transaction's snapshot went stale (not with BEGIN IMMEDIATE)
  'SQLITE_BUSY_RECOVERY', // another connection is recovering the WAL: transient
])

const codeOf = (error: unknown) => propertyOf(error, 'code')

/** True when the database rolled the transaction back for a concurrent one and it may simply run again. */
export function isRetryableWriteFailure(error: unknown): boolean {
  const code = codeOf(error)
  return typeof code === 'string' && RETRYABLE_CODES.has(code)
}

/**
 * True when `error` comes from concurrent writers rather than from the request: a retryable failure
 * that was not retried (or failed again), a lock not granted in time (SQLITE_BUSY*, SQLITE_LOCKED*,
 * PostgreSQL 55P03). The request may be sent again as it is (503 with `Retry-After`).
 */
export function isWriteConflict(error: unknown): boolean {
  const code = codeOf(error)
  if (typeof code !== 'string') return false
  return (
    RETRYABLE_CODES.has(code) ||
    code === '55P03' ||
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED')
  )
}

/** A short random pause before the next attempt, longer each time, so the writers that collided part. */
function pause(attempt: number): Promise<void> {
  const ms = Math.random() * 5 * 2 ** attempt
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Runs `work` in one transaction and commits it; the way every write of the service opens one. When
 * the database rolls it back for a concurrent writer (`isRetryableWriteFailure`) it runs again, up to
 * `WRITE_ATTEMPTS` times; any other error (an `ApiError` thrown by `work` included) rolls back and
 * propagates at once. On SQLite the transaction holds the write lock from its start (`BEGIN
 * IMMEDIATE`, see `immediateTransactions`).
 */
export async function writeTransaction<T>(db: Kysely<DB>, work: WriteWork<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work)
    } catch (error) {
      if (attempt >= WRITE_ATTEMPTS || !isRetryableWriteFailure(error)) throw error
      await pause(attempt)
    }
  }
}

/**
 * A SELECT that, on PostgreSQL, locks the rows it reads until the transaction ends (`FOR NO KEY
 * UPDATE`: other writers of the row wait; inserts of rows that reference it do not). SQLite needs no
 * row lock: its transactions hold the database's write lock from their start.
 */
export function lockedForWrite<Q extends { forNoKeyUpdate(): Q }>(trx: Kysely<DB>, query: Q): Q {
  return trx.getExecutor().adapter instanceof PostgresAdapter ? query.forNoKeyUpdate() : query
}

/**
 * SQLite: the dialect's driver, with every read-write transaction begun by `BEGIN IMMEDIATE` (the
 * write lock first, waiting up to the busy timeout) instead of the deferred `BEGIN`. Everything else
 * is the wrapped dialect's own, whatever driver it uses.
 */
export function immediateTransactions(dialect: Dialect): Dialect {
  return {
    createDriver: () => new ImmediateTransactionDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}

class ImmediateTransactionDriver implements Driver {
  readonly #inner: Driver

  constructor(inner: Driver) {
    this.#inner = inner
  }

  init(): Promise<void> {
    return this.#inner.init()
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.#inner.acquireConnection()
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.accessMode === 'read only') return this.#inner.beginTransaction(connection, settings)
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection)
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection)
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#savepoints().savepoint(connection, name, compile)
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#savepoints().rollbackToSavepoint(connection, name, compile)
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#savepoints().releaseSavepoint(connection, name, compile)
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(connection)
  }

  destroy(): Promise<void> {
    return this.#inner.destroy()
  }

  #savepoints(): Required<Pick<Driver, 'savepoint' | 'rollbackToSavepoint' | 'releaseSavepoint'>> {
    const { savepoint, rollbackToSavepoint, releaseSavepoint } = this.#inner
    if (!savepoint || !rollbackToSavepoint || !releaseSavepoint)
      throw new Error('The SQLite driver does not support savepoints.')
    return {
      savepoint: savepoint.bind(this.#inner),
      rollbackToSavepoint: rollbackToSavepoint.bind(this.#inner),
      releaseSavepoint: releaseSavepoint.bind(this.#inner),
    }
  }
}
