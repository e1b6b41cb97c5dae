import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { isPostgresUrl } from '../src/db/database.js'

/**
 * A fresh empty database for one benchmark: a new database on the PostgreSQL server of `target` (a
 * `postgres://` URL), dropped by `drop`, or else a SQLite file in a temporary folder removed by `drop`.
 */
export async function freshDatabase(
  target: string | undefined,
  label: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  if (target && isPostgresUrl(target)) {
    const name = `expertdir_bench_${label}_${process.pid}`
    const admin = new pg.Client({ connectionString: target })
    await admin.connect()
    await admin.query(`create database ${name}`)
    await admin.end()
    const url = new URL(target)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      async drop() {
        const cleanup = new pg.Client({ connectionString: target })
        await cleanup.connect()
        await cleanup.query(`drop database if exists ${name} with (force)`)
        await cleanup.end()
      },
    }
  }
  const dir = mkdtempSync(join(os.tmpdir(), `expertdir-bench-${label}-`))
  return { url: join(dir, 'bench.sqlite'), drop: async () => rmSync(dir, { recursive: true, force: true }) }
}
