import { type Kysely, type Migration, type MigrationProvider, Migrator, SqliteAdapter, sql } from 'kysely'
import { propertyOf } from '../validation/guards.js'
import * as foundation from './migrations/0001_foundation.js'
import * as content from './migrations/0002_content.js'
import * as inquiries from './migrations/0003_inquiries.js'
import * as performance from './migrations/0004_performance.js'
import * as sanitizeHtml from './migrations/0005_sanitize_html.js'
import * as search from './migrations/0006_search.js'
import * as inquiryKinds from './migrations/0007_inquiry_kinds.js'
import * as scopes from './migrations/0008_scopes.js'
import * as readDocuments from './migrations/0009_read_documents.js'
import * as searchVersions from './migrations/0011_search_versions.js'
import * as sanitizeEmbeds from './migrations/0012_sanitize_embeds.js'
import * as media from './migrations/0013_media.js'
import * as people from './migrations/0017_people.js'
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
  '0011_search_versions': searchVersions,
  '0012_sanitize_embeds': sanitizeEmbeds,
  '0013_media': media,
  '0017_people': people,
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

/** Migrates up or down to `name` (tests of a migration's data step). */
export async function migrateTo(db: Kysely<DB>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateTo(name)
  if (error) throw error
}

/**
 * Applies every pending migration; throws with the failing migration's name. Safe when several
 * processes start together on one database: exactly one applies each migration, the others wait
 * and then find nothing to do. On PostgreSQL, Kysely's migrator holds a session advisory lock
 * (`pg_advisory_lock`) while it reads the applied migrations and runs the pending ones. On SQLite its
 * lock is a no-op (it assumes one process), so the whole run happens inside `BEGIN IMMEDIATE`: the
 * database's write lock, taken before the applied migrations are read.
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return runToLatest(new Migrator({ db, provider }))
  return db.connection().execute(async (connection) => {
    await beginImmediate(connection)
    try {
      const applied = await runToLatest(new Migrator({ db: connection, provider, disableTransactions: true }))
      await sql`commit`.execute(connection)
      return applied
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {})
      throw error
    }
  })
}

async function runToLatest(migrator: Migrator): Promise<string[]> {
  const { error, results = [] } = await migrator.migrateToLatest()
  if (error) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  return results.filter((result) => result.status === 'Success').map((result) => result.migrationName)
}

/** How long a process waits for another one's migrations before giving up. */
const SQLITE_MIGRATION_WAIT_MS = 10 * 60_000

/**
 * Takes SQLite's write lock. Each try already waits the connection's busy timeout; another process
 * migrating a large database may hold the lock longer than that, so keep trying for a while.
 */
async function beginImmediate(connection: Kysely<DB>): Promise<void> {
  const deadline = Date.now() + SQLITE_MIGRATION_WAIT_MS
  for (;;) {
    try {
      await sql`begin immediate`.execute(connection)
      return
    } catch (error) {
      const code = propertyOf(error, 'code')
      if (typeof code !== 'string' || !code.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
