import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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
 * Migrating a database costs seconds (one commit per migration); a suite creates many. So each dialect
 * is migrated once into a template, named after a hash of the migration sources (an edited migration
 * makes a new one), and every test database is a copy of it: a file copy on SQLite, `CREATE DATABASE
 * ... TEMPLATE` on PostgreSQL. Test processes running side by side share the templates.
 */
const MIGRATION_SOURCES = fileURLToPath(new URL('../../src/db/', import.meta.url))
const TEMPLATE_KEY = (() => {
  const hash = createHash('sha256')
  for (const file of [
    'migrate.ts',
    ...readdirSync(join(MIGRATION_SOURCES, 'migrations'))
      .sort()
      .map((f) => `migrations/${f}`),
  ])
    hash.update(file).update(readFileSync(join(MIGRATION_SOURCES, file)))
  return hash.digest('hex').slice(0, 16)
})()
const unique = () => `${process.pid}_${Math.random().toString(36).slice(2, 10)}`

let sqliteTemplate: Promise<string> | undefined
/** The migrated template file; built under a private name, then renamed into place (atomic). */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const path = join(tmpdir(), `expertdir-test-template-${TEMPLATE_KEY}.sqlite`)
    if (existsSync(path)) return path
    const building = join(tmpdir(), `expertdir-test-template-${unique()}.sqlite`)
    const database = openDatabase(building)
    await migrateToLatest(database.db)
    await database.close() // checkpoints the WAL into the file
    for (const suffix of ['-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true })
    renameSync(building, path)
    return path
  })()
  return sqliteTemplate
}

let postgresTemplate: Promise<string> | undefined
function postgresTemplateName(admin: pg.Client): Promise<string> {
  postgresTemplate ??= (async () => {
    const name = `expertdir_template_${TEMPLATE_KEY}`
    const found = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount) return name
    const building = `expertdir_template_build_${unique()}`
    await admin.query(`create database ${building}`)
    const url = new URL(POSTGRES_ADMIN_URL)
    url.pathname = `/${building}`
    const database = openDatabase(url.toString())
    await migrateToLatest(database.db)
    await database.close()
    try {
      await admin.query(`alter database ${building} rename to ${name}`)
    } catch {
      // Another test process made it first.
      await admin.query(`drop database if exists ${building} with (force)`)
    }
    return name
  })()
  return postgresTemplate
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
    if (migrate) copyFileSync(await sqliteTemplateFile(), url)
    const database = openDatabase(url)
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
  try {
    const template = migrate ? await postgresTemplateName(admin) : 'template0'
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${template}`)
        break
      } catch (error) {
        // 55006: the template is being copied by another session right now.
        const copying = error instanceof Error && 'code' in error && error.code === '55006'
        if (!copying || attempt >= 20) throw error
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt))
      }
    }
  } finally {
    await admin.end()
  }
  const url = new URL(POSTGRES_ADMIN_URL)
  url.pathname = `/${name}`
  const database = openDatabase(url.toString())
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
