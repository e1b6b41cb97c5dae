import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase } from '../../src/db/database.js'
import { migrateDatabase } from '../../src/system/migrate.js'
import { startServerProcess } from './cli.js'

const RECORDER = fileURLToPath(new URL('./loaded-modules.ts', import.meta.url))

/**
 * Starts `expertdir serve` (the sources, or the built `entry`) on a migrated SQLite database in `dir` with
 * the module recorder preloaded, stops it once ready, and returns what it recorded (`loaded-modules.ts`).
 * Migrated beforehand: a migration that rewrites stored HTML loads sanitize-html when it runs.
 */
export async function recordedStart(dir: string, entry?: string): Promise<string[]> {
  const databaseUrl = join(dir, 'recorded.db')
  const database = openDatabase(databaseUrl)
  await migrateDatabase(database)
  await database.close()
  const listFile = join(dir, 'loaded.txt')
  const server = await startServerProcess(databaseUrl, {
    env: { LOADED_MODULES_FILE: listFile },
    preload: [RECORDER],
    ...(entry ? { entry } : {}),
  })
  assert.equal((await fetch(`${server.base}/readyz`)).status, 200)
  server.child.kill('SIGTERM')
  assert.equal(await server.exited, 0, server.output())
  return readFileSync(listFile, 'utf8').split('\n')
}

/**
 * Packages a server on SQLite with the default configuration loads only when configured or first used
 * (docs/performance.md, "Idle memory"): each costs memory in every process that never needs it.
 */
export const LOADED_ON_USE = [
  'pg',
  'ioredis',
  'nodemailer',
  'sharp',
  '@node-rs/argon2',
  '@aws-sdk/client-s3',
  'prom-client',
  'sanitize-html',
  '@zxcvbn-ts/language-common',
  '@node-saml/node-saml',
  'openid-client',
  '@modelcontextprotocol/sdk',
  'iso-3166',
  'diff',
  'ical-generator',
  'fflate',
]

/** The npm packages among recorded module URLs. */
export const packagesOf = (urls: string[]) =>
  new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []))

/**
 * What a started server must not have touched, from its recorded lines (`loaded-modules.ts`): the packages
 * kept for first use (`loaded`: the packages whose code it ran), undici, and ICU's locale data.
 */
export function assertNothingLoadedEarly(lines: string[], loaded: Set<string>): void {
  assert.deepEqual(
    LOADED_ON_USE.filter((name) => loaded.has(name)),
    [],
    'loaded at start although kept for first use',
  )
  // Node's fetch, WebSocket and the rest of undici: an ES import of node:http's values loads them
  // (src/http/node-http.ts).
  assert.ok(lines.includes('builtin:net'), 'no builtin recorded')
  assert.ok(!lines.includes('builtin:internal/deps/undici/undici'), 'undici loaded at start')
  // Kysely's migrator compares names with localeCompare unless told otherwise (src/db/migrate.ts).
  assert.deepEqual(
    lines.filter((line) => line.startsWith('icu:')),
    [],
    "ICU's locale data used at start",
  )
}
