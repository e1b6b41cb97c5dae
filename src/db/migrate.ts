import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'
import * as foundation from './migrations/0001_foundation.js'
import * as content from './migrations/0002_content.js'
import * as inquiries from './migrations/0003_inquiries.js'
import * as performance from './migrations/0004_performance.js'
import * as sanitizeHtml from './migrations/0005_sanitize_html.js'
import * as search from './migrations/0006_search.js'
import * as inquiryKinds from './migrations/0007_inquiry_kinds.js'
import * as scopes from './migrations/0008_scopes.js'
import * as readDocuments from './migrations/0009_read_documents.js'
import type { DB } from './schema.js'

/** Migrations are listed here rather than read from disk, so they work from `src/` and `dist/` alike. */
export const MIGRATIONS: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_content': content,
  '0003_inquiries': inquiries,
  '0004_performance': performance,
  '0005_sanitize_html': sanitizeHtml,
  '0006_search': search,
  '0007_inquiry_kinds': inquiryKinds,
  '0008_scopes': scopes,
  '0009_read_documents': readDocuments,
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

/** Migrates up or down to `name` (tests of a migration's data step). */
export async function migrateTo(db: Kysely<DB>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateTo(name)
  if (error) throw error
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({ db, provider })
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName)
}
