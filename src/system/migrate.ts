import type { Database } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { rebuildSearchWhereMissing } from '../derived/search-rebuild.js'

export interface MigrationRun {
  /** Schema migrations applied by this run, in order. */
  applied: string[]
  /** Organizations whose search index this run rebuilt. */
  rebuiltSearch: number[]
}

/**
 * What every process that migrates runs (`serve`, `migrate`, the other commands): the schema
 * migrations (frozen: they create and change tables only), then the derived state they leave empty,
 * rebuilt by today's code: the search index of data that predates it. Idempotent; the second step
 * costs a few reads when nothing is missing.
 */
export async function migrateDatabase(database: Database): Promise<MigrationRun> {
  const applied = await migrateToLatest(database.db)
  const rebuiltSearch = await rebuildSearchWhereMissing(database.db)
  return { applied, rebuiltSearch }
}
