import { type ColumnDataType, type ColumnDefinitionBuilder, type Kysely, PostgresAdapter } from 'kysely'

/** The few places where the two dialects need different DDL, kept in one file. */
export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/** 64-bit integer column (ids, unix milliseconds). SQLite's INTEGER is already 64-bit. */
export function bigint(db: Kysely<unknown>): ColumnDataType {
  return isPostgres(db) ? 'bigint' : 'integer'
}

/** An auto-incrementing 64-bit primary key. */
export function idColumn(
  db: Kysely<unknown>,
): [ColumnDataType, (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder] {
  return isPostgres(db)
    ? ['bigint', (col) => col.primaryKey().generatedByDefaultAsIdentity()]
    : ['integer', (col) => col.primaryKey().autoIncrement()]
}
