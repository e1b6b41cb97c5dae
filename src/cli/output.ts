import { databaseOptions, loadConfig } from '../config.js'
import { type Database, openDatabase } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { isPositiveId } from '../validation/text.js'

/** Failures of an operation (exit 1), as opposed to usage errors (exit 2). */
export class CliError extends Error {}

export interface GlobalOptions {
  db?: string
}

/** Opens (and migrates) the database named by `--db` or `DATABASE_URL`, runs `work`, closes it. */
export async function withDatabase<T>(
  options: GlobalOptions,
  work: (database: Database, appliedMigrations: string[]) => Promise<T>,
): Promise<T> {
  const config = loadConfig(options.db ? { databaseUrl: options.db } : {})
  const database = openDatabase(config.databaseUrl, databaseOptions(config))
  try {
    const applied = await migrateToLatest(database.db)
    return await work(database, applied)
  } finally {
    await database.close()
  }
}

/** `--json`: one JSON object on stdout and nothing else; otherwise the human lines. */
export function report(json: boolean | undefined, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`)
}

/** Parses a positive integer option or throws a usage error. */
export function positiveInt(name: string) {
  return (value: string): number => {
    if (!isPositiveId(value)) {
      throw new UsageError(`${name} must be a positive integer, got "${value}"`)
    }
    return Number(value)
  }
}

export class UsageError extends Error {}
