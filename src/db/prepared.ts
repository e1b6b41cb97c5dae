import { CompiledQuery } from 'kysely'
import { type Database, postgresPoolOf } from './database.js'

/** `$1 ... $n` placeholders rewritten as SQLite's `?`, with the parameter order they then take. */
interface SqliteForm {
  text: string
  order: number[]
}

const sqliteForms = new Map<string, SqliteForm>()

function sqliteForm(name: string, text: string): SqliteForm {
  let form = sqliteForms.get(name)
  if (!form) {
    const order: number[] = []
    form = {
      text: text.replace(/\$(\d+)/g, (_, index: string) => {
        order.push(Number(index) - 1)
        return '?'
      }),
      order,
    }
    sqliteForms.set(name, form)
  }
  return form
}

/**
 * Runs one fixed statement, written with PostgreSQL placeholders (`$1`, `$2`, ...), without Kysely's
 * query building. On PostgreSQL it is a named prepared statement: each pooled connection parses and
 * plans it once, then only binds and executes (one round trip). On SQLite it goes through Kysely's
 * connection (one query at a time) and its cache of prepared statements. `name` identifies `text`:
 * one name, one statement text, for the life of the process. Not for use inside a transaction.
 */
export async function preparedQuery<R>(
  database: Database,
  name: string,
  text: string,
  params: readonly unknown[],
): Promise<R[]> {
  const pool = postgresPoolOf(database.db)
  if (pool) {
    const result = await pool.query({ name, text, values: params as unknown[] })
    return result.rows as R[]
  }
  const form = sqliteForm(name, text)
  const values = form.order.map((index) => params[index])
  return (await database.db.executeQuery<R>(CompiledQuery.raw(form.text, values))).rows
}
