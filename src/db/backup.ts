import { existsSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { isPostgresUrl, sqlitePath } from './database.js'
import { asSqliteError, nodeSqlite, openSqliteConnection } from './sqlite.js'

/** Why a backup cannot be made: exit 1 with this message. */
export class BackupRefused extends Error {}

export interface BackupProgress {
  totalPages: number
  remainingPages: number
}

export interface BackupResult {
  file: string
  pages: number
  bytes: number
}

/** Pages copied per step: small steps let the server's writers run between them. */
const PAGES_PER_STEP = 256
/** After this many restarts (the source changed mid-copy), copy the rest in one step. */
const MAX_RESTARTS = 3

/**
 * A consistent copy of the SQLite database at `url` into `file`, while other processes keep reading
 * and writing it (SQLite's online backup API, through a connection of its own). The copy is written
 * beside `file` and renamed into place when complete, so `file` is never a half-written database.
 * When another connection writes the source mid-copy, SQLite restarts the copy from a fresh
 * snapshot; should that keep happening, the copy starts over in one step, which in WAL mode does not
 * block writers either.
 */
export async function backupSqlite(
  url: string,
  file: string,
  options: {
    overwrite?: boolean
    busyTimeoutMs?: number
    onProgress?: (progress: BackupProgress) => void
  } = {},
): Promise<BackupResult> {
  if (isPostgresUrl(url)) {
    throw new BackupRefused(
      'backup copies SQLite databases; back up PostgreSQL with pg_dump (see docs/deploy.md)',
    )
  }
  const source = sqlitePath(url)
  if (source === ':memory:' || source.startsWith('file:')) {
    throw new BackupRefused(`backup needs an SQLite database file, not ${source}`)
  }
  const target = resolve(file)
  if (resolve(source) === target) throw new BackupRefused('the backup file must not be the database itself')
  if (!existsSync(source)) throw new BackupRefused(`no database at ${source}`)
  if (existsSync(target) && !options.overwrite) {
    throw new BackupRefused(`${file} exists; choose another name or pass --force to replace it`)
  }
  if (!existsSync(dirname(target))) throw new BackupRefused(`the directory of ${file} does not exist`)

  const partial = join(dirname(target), `.${basename(target)}.${process.pid}.partial`)
  const database = openSqliteConnection(source, options)
  try {
    let totalPages: number
    try {
      totalPages = await copyInSteps(database, partial, PAGES_PER_STEP, options.onProgress)
    } catch (error) {
      if (!(error instanceof KeepsRestarting)) throw error
      rmSync(partial, { force: true })
      totalPages = await copyInSteps(database, partial, ONE_STEP, options.onProgress)
    }
    options.onProgress?.({ totalPages, remainingPages: 0 })
    renameSync(partial, target)
    return { file: target, pages: totalPages, bytes: statSync(target).size }
  } catch (error) {
    rmSync(partial, { force: true })
    throw error
  } finally {
    database.close()
  }
}

/** Thrown from the progress callback to end a copy that other writers keep restarting. */
class KeepsRestarting extends Error {}

/** As many pages as any database has: the whole copy in one step. */
const ONE_STEP = 2 ** 31 - 1

async function copyInSteps(
  database: import('node:sqlite').DatabaseSync,
  file: string,
  pagesPerStep: number,
  onProgress: ((progress: BackupProgress) => void) | undefined,
): Promise<number> {
  let restarts = 0
  let lastRemaining = Number.POSITIVE_INFINITY
  try {
    return await nodeSqlite.backup(database, file, {
      rate: pagesPerStep,
      progress: (progress) => {
        if (progress.remainingPages > lastRemaining) restarts++
        lastRemaining = progress.remainingPages
        onProgress?.(progress)
        if (restarts >= MAX_RESTARTS) throw new KeepsRestarting()
      },
    })
  } catch (error) {
    throw asSqliteError(error)
  }
}
