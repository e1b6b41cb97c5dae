import type { SQLInputValue } from 'node:sqlite'
import type { CompiledQuery } from 'kysely'
import { postgresPoolOf, type Queryable } from './database.js'
import type { ReadConnection } from './read-connection.js'

const PLACEHOLDERS: readonly unknown[] = Array.from({ length: 8 }, (_, i) => Symbol(`parameter ${i}`))

/** A reusable query: run on a database, or on SQLite's read connection. */
export interface ReusableQuery<A extends unknown[], R> {
  (db: Queryable, ...args: A): Promise<R[]>
  /**
   * The same query, compiled for `db` (an SQLite database), run synchronously on its read connection
   * (src/db/read-connection.ts); throws an SqliteError when that connection cannot answer now.
   */
  readOn(connection: ReadConnection, db: Queryable, ...args: A): R[]
}

/**
 * A query compiled once per database and run with new parameter values: Kysely's query building
 * and compiling cost more than running a small indexed query, on the reads done on every page view.
 * `build` receives placeholders in place of its arguments and must use each as a plain value (no
 * lists, no values that change the SQL text). Transactions compile anew each time.
 *
 * With a `name`, a query run on a PostgreSQL database (not in a transaction) goes to pg as a named
 * statement: parsed and planned once per connection, then one Bind/Execute round trip per run.
 * (Kysely does not name statements.) The name must be unique in the application.
 */
export function reusableQuery<A extends unknown[], R>(
  build: (db: Queryable, ...args: A) => { compile(): CompiledQuery<R> },
  name?: string,
): ReusableQuery<A, R> {
  const compiled = new WeakMap<Queryable, { query: CompiledQuery<R>; slots: number[] }>()
  const prepared = (db: Queryable, args: A) => {
    let entry = compiled.get(db)
    if (!entry) {
      const query = build(db, ...(PLACEHOLDERS.slice(0, args.length) as unknown as A)).compile()
      const slots = query.parameters.map((value) => PLACEHOLDERS.indexOf(value))
      entry = { query, slots }
      compiled.set(db, entry)
    }
    const { query, slots } = entry
    const parameters = query.parameters.map((value, i) => {
      const slot = slots[i] ?? -1
      return slot >= 0 ? args[slot] : value
    })
    return { query, parameters }
  }
  const run = async (db: Queryable, ...args: A) => {
    const { query, parameters } = prepared(db, args)
    const pool = name === undefined ? undefined : postgresPoolOf(db)
    if (pool) return (await pool.query({ name, text: query.sql, values: parameters })).rows as R[]
    return (await db.executeQuery<R>({ ...query, parameters })).rows
  }
  return Object.assign(run, {
    readOn(connection: ReadConnection, db: Queryable, ...args: A): R[] {
      const { query, parameters } = prepared(db, args)
      return connection.all(query.sql, parameters as SQLInputValue[]) as R[]
    },
  })
}
