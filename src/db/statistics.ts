import { PostgresAdapter, sql } from 'kysely'
import type { Queryable } from './database.js'
import type { DB } from './schema.js'

/**
 * PostgreSQL plans each statement from the statistics ANALYZE keeps, and the rows a transaction wrote
 * have none until something analyzes them. A bulk write that reads back what it wrote (`org_id = ? and
 * expert_id in (...)`) is then planned as if `org_id = ?` picked a few hundred rows: it reads every row
 * of the organization and filters, once per batch, which is quadratic over the whole write. ANALYZE run
 * inside the transaction samples the rows the transaction itself inserted, so the statements after it
 * are planned for the tables as they are. It holds the tables' SHARE UPDATE EXCLUSIVE lock until the
 * transaction ends: reads and writes go on, another ANALYZE, VACUUM or concurrent index build of those
 * tables waits for the commit. Nothing is done on SQLite, whose planner picks these indexes by shape.
 */
export async function analyzeWrittenTables(
  db: Queryable,
  tables: readonly (keyof DB & string)[],
): Promise<void> {
  if (tables.length === 0 || !(db.getExecutor().adapter instanceof PostgresAdapter)) return
  await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(db)
}
