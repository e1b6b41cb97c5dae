import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { type Database, type DialectName, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'

/** The server every PostgreSQL test database is created on (trust auth, database `test`). */
export const POSTGRES_ADMIN_URL =
  process.env.EXPERTDIR_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** `required`: a missing PostgreSQL fails the suite (CI); otherwise its tests are skipped with a note. */
const POSTGRES_REQUIRED = process.env.EXPERTDIR_TEST_POSTGRES === 'required'

async function postgresAnswers(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

const requested = (process.env.EXPERTDIR_TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim())

/** The dialects this run covers: every test file runs its cases once per dialect. */
export async function testDialects(): Promise<{ dialect: DialectName; skip: string | false }[]> {
  const dialects: { dialect: DialectName; skip: string | false }[] = []
  if (requested.includes('sqlite')) dialects.push({ dialect: 'sqlite', skip: false })
  if (requested.includes('postgres')) {
    const up = await postgresAnswers()
    if (!up && POSTGRES_REQUIRED)
      throw new Error(`PostgreSQL is required but does not answer at ${POSTGRES_ADMIN_URL}`)
    dialects.push({
      dialect: 'postgres',
      skip: up ? false : `PostgreSQL does not answer at ${POSTGRES_ADMIN_URL}`,
    })
  }
  return dialects
}

export interface TestDatabase {
  url: string
  database: Database
  /** Closes the connection and removes the database (file or PostgreSQL database). */
  drop(): Promise<void>
}

/**
 * A fresh, migrated database of `dialect`: a temp SQLite file or a new PostgreSQL database.
 * `migrate: false` leaves it empty (tests of how processes migrate it).
 */
export async function createTestDatabase(
  dialect: DialectName,
  { migrate = true }: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'expertdir-test-'))
    const url = join(dir, 'test.sqlite')
    const database = openDatabase(url)
    if (migrate) await migrateToLatest(database.db)
    return {
      url,
      database,
      async drop() {
        await database.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const name = `expertdir_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  const database = openDatabase(url.toString())
  if (migrate) await migrateToLatest(database.db)
  return {
    url: url.toString(),
    database,
    async drop() {
      await database.close()
      const cleanup = new pg.Client({ connectionString: POSTGRES_ADMIN_URL })
      await cleanup.connect()
      await cleanup.query(`drop database if exists ${name} with (force)`)
      await cleanup.end()
    },
  }
}
