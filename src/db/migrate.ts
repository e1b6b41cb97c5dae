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
import * as usernamesPerOrganization from './migrations/0014_usernames_per_organization.js'
import * as inquiryDesk from './migrations/0015_inquiry_desk.js'
import * as staff from './migrations/0016_staff.js'
import * as people from './migrations/0017_people.js'
import * as audit from './migrations/0018_audit.js'
import * as sso from './migrations/0019_sso.js'
import * as inquiryExpertsAndHiddenAnswers from './migrations/0020_inquiry_experts_and_hidden_answers.js'
import * as publicDirectory from './migrations/0021_public_directory.js'
import * as staffSearch from './migrations/0024_staff_search.js'
import * as ssoBindings from './migrations/0025_sso_bindings.js'
import * as inquiryAssigneePeople from './migrations/0026_inquiry_assignee_people.js'
import * as mediaReferences from './migrations/0027_media_references.js'
import * as works from './migrations/0028_works.js'
import * as fuzzyNames from './migrations/0029_fuzzy_names.js'
import * as meaning from './migrations/0030_meaning.js'
import * as embeddings from './migrations/0031_embeddings.js'
import * as editorial from './migrations/0032_editorial.js'
import * as termConcepts from './migrations/0033_term_concepts.js'
import * as mediaAvailability from './migrations/0034_media_availability.js'
import * as delegatesSchedules from './migrations/0035_delegates_schedules.js'
import * as drafts from './migrations/0036_drafts.js'
import * as termConceptsByWorks from './migrations/0037_term_concepts_by_works.js'
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
  '0014_usernames_per_organization': usernamesPerOrganization,
  '0015_inquiry_desk': inquiryDesk,
  '0016_staff': staff,
  '0017_people': people,
  '0018_audit': audit,
  '0019_sso': sso,
  '0020_inquiry_experts_and_hidden_answers': inquiryExpertsAndHiddenAnswers,
  '0021_public_directory': publicDirectory,
  '0024_staff_search': staffSearch,
  '0025_sso_bindings': ssoBindings,
  '0026_inquiry_assignee_people': inquiryAssigneePeople,
  '0027_media_references': mediaReferences,
  '0028_works': works,
  '0029_fuzzy_names': fuzzyNames,
  '0030_meaning': meaning,
  '0031_embeddings': embeddings,
  '0032_editorial': editorial,
  '0033_term_concepts': termConcepts,
  '0034_media_availability': mediaAvailability,
  '0035_delegates_schedules': delegatesSchedules,
  '0036_drafts': drafts,
  '0037_term_concepts_by_works': termConceptsByWorks,
}

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

/**
 * Orders applied migrations of equal timestamp by name, code unit by code unit. Kysely's default is
 * `localeCompare`, whose first call loads ICU's collation data: about 3 MiB of the idle server's memory
 * for names that are plain ASCII, where both orders agree.
 */
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** Migrates up or down to `name` (tests of a migration's data step). */
export async function migrateTo(db: Kysely<DB>, name: string): Promise<void> {
  await underMigrationLock(db, async (migrator) => {
    const { error } = await migrator.migrateTo(name)
    if (error) throw error
  })
}

/**
 * Applies every pending migration; throws with the failing migration's name. Safe when several
 * processes start together on one database: exactly one applies each migration, the others wait
 * and then find nothing to do (see `underMigrationLock`).
 */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  return underMigrationLock(db, runToLatest)
}

/**
 * Runs `migrate` while no other process migrates. On PostgreSQL, Kysely's migrator holds a session
 * advisory lock (`pg_advisory_lock`) while it reads the applied migrations and runs the pending ones.
 * On SQLite its lock is a no-op (it assumes one process), so the whole run happens inside
 * `BEGIN IMMEDIATE`: the database's write lock, taken before the applied migrations are read. There,
 * foreign keys are off meanwhile: a migration that rebuilds a table (SQLite's way to change a
 * constraint) drops the old one, which must not cascade to the rows referencing it. The references
 * are checked before the commit instead. (The pragma has no effect inside a transaction, hence before
 * BEGIN.)
 */
async function underMigrationLock<T>(
  db: Kysely<DB>,
  migrate: (migrator: Migrator) => Promise<T>,
): Promise<T> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter))
    return migrate(new Migrator({ db, provider, nameComparator: byName }))
  return db.connection().execute(async (connection) => {
    await sql`pragma foreign_keys = off`.execute(connection)
    try {
      await beginImmediate(connection)
      try {
        const result = await migrate(
          new Migrator({ db: connection, provider, nameComparator: byName, disableTransactions: true }),
        )
        const { rows: broken } = await sql<{ table: string }>`pragma foreign_key_check`.execute(connection)
        if (broken.length > 0)
          throw new Error(
            `Migrating left rows whose reference is missing, in: ${[...new Set(broken.map((row) => row.table))].join(', ')}`,
          )
        await sql`commit`.execute(connection)
        return result
      } catch (error) {
        await sql`rollback`.execute(connection).catch(() => {})
        throw error
      }
    } finally {
      await sql`pragma foreign_keys = on`.execute(connection)
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
