import { type Config, databaseOptions, loadConfig } from '../config.js'
import { type Database, openDatabase } from '../db/database.js'
import { ApiError } from '../errors.js'
import { usePasswordMemoryCost } from '../people/passwords.js'
import { type MigrationRun, migrateDatabase } from '../system/migrate.js'
import { isPositiveId } from '../validation/text.js'

/** Failures of an operation (exit 1), as opposed to usage errors (exit 2). */
export class CliError extends Error {}

export class UsageError extends Error {}

export interface GlobalOptions {
  db?: string
}

/**
 * Where a CLI run reads its environment and writes its output: the process's own streams for the
 * `expertdir` binary, or buffers when a test runs the CLI in-process.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream
  /** `isTTY`: progress bars are drawn only on a terminal. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean }
  env: NodeJS.ProcessEnv
  /** Where `--password-stdin` reads from. */
  stdin?: NodeJS.ReadableStream
}

/** What every command gets: the streams, the global options and the helpers built on them. */
export interface Cli {
  readonly io: CliIo
  globals(): GlobalOptions
  /** The configuration from the environment, `--db` and `overrides`. */
  config(overrides?: Partial<Config>): Config
  /** `--json`: one JSON object on stdout and nothing else; otherwise the human lines. */
  report(json: boolean | undefined, value: unknown, human: () => string): void
  /**
   * Opens the database named by `--db` or `DATABASE_URL`, migrates it (schema, then derived state),
   * runs `work`, closes it.
   */
  withDatabase<T>(work: (database: Database, migration: MigrationRun) => Promise<T>): Promise<T>
}

export function createCli(io: CliIo, globals: () => GlobalOptions): Cli {
  const config = (overrides: Partial<Config> = {}) => {
    const { db } = globals()
    return loadConfig({ ...(db ? { databaseUrl: db } : {}), ...overrides }, io.env)
  }
  return {
    io,
    globals,
    config,
    report(json, value, human) {
      io.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`)
    },
    async withDatabase(work) {
      const settings = config()
      usePasswordMemoryCost(settings.passwordMemoryKib)
      const database = openDatabase(settings.databaseUrl, databaseOptions(settings))
      try {
        return await work(database, await migrateDatabase(database))
      } finally {
        await database.close()
      }
    },
  }
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

/** Runs a service call; its refusal (an `ApiError`) becomes a CLI failure naming every offending field. */
export function explained<T>(work: () => Promise<T>): Promise<T> {
  return work().catch((error: unknown) => {
    if (!(error instanceof ApiError)) throw error
    const details = (error.details ?? []).map((detail) => `${detail.field} ${detail.message}`)
    throw new CliError(details.length > 0 ? details.join('; ') : error.message)
  })
}
