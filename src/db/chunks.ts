import { PostgresAdapter } from 'kysely'
import type { Queryable } from './database.js'

/** Most values bound in one `in (...)` list: well below SQLite's and PostgreSQL's parameter limits. */
export const CHUNK = 500

/** Runs `run` over the distinct `values` in chunks of CHUNK and concatenates the results. */
export async function inChunks<T, R>(values: readonly T[], run: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = []
  const unique = [...new Set(values)]
  for (let i = 0; i < unique.length; i += CHUNK) out.push(...(await run(unique.slice(i, i + CHUNK))))
  return out
}

/** Most values bound in one multi-row INSERT: SQLite takes 32,766, PostgreSQL 65,535. */
const POSTGRES_INSERT_VALUES = 30_000
const SQLITE_INSERT_VALUES = 4096

/**
 * The rows of a multi-row INSERT cut into chunks. SQLite keeps prepared statements by their text
 * (src/db/sqlite.ts), and one binding thousands of values holds about a megabyte of native memory: cut at
 * a fixed length, the last chunk's length differed from batch to batch, and each batch of a bulk import
 * left new statements behind. There a chunk is as long as the longest power of two `size` of rows binding
 * at most 4,096 values, or a multiple of size/8, or (what is left below size/8) a power of two: a table's
 * inserts take at most about twenty statement texts whatever the number of rows, and a batch's rows few
 * statements. PostgreSQL is sent each statement's text anew and keeps nothing: there the rows go in as
 * few statements as 30,000 values allow.
 */
export function insertChunks<R extends object>(db: Queryable, rows: readonly R[]): R[][] {
  const columns = Math.max(1, Object.keys(rows[0] ?? {}).length)
  const chunks: R[][] = []
  const take = (length: number, start: number) => {
    chunks.push(rows.slice(start, start + length))
    return start + length
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const size = Math.max(1, Math.floor(POSTGRES_INSERT_VALUES / columns))
    for (let start = 0; start < rows.length; ) start = take(Math.min(size, rows.length - start), start)
    return chunks
  }
  const size = 2 ** Math.floor(Math.log2(Math.max(1, Math.floor(SQLITE_INSERT_VALUES / columns))))
  const unit = Math.max(1, size / 8)
  let start = 0
  while (rows.length - start >= size) start = take(size, start)
  const units = Math.floor((rows.length - start) / unit) * unit
  if (units > 0) start = take(units, start)
  for (let power = unit; power >= 1; power /= 2) if (rows.length - start >= power) start = take(power, start)
  return chunks
}

/** Runs `insert` over the rows in `insertChunks`, one after another. */
export async function insertInChunks<R extends object>(
  db: Queryable,
  rows: readonly R[],
  insert: (chunk: R[]) => Promise<unknown>,
): Promise<void> {
  for (const chunk of insertChunks(db, rows)) await insert(chunk)
}
