import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import type { RouteOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'
import { serializerOf } from '../src/http/serialization.js'
import { validatorCompiler } from '../src/http/validation.js'
import { migrateDatabase } from '../src/system/migrate.js'
import { startServerProcess } from './helpers/cli.js'
import { LOADED_ON_USE, packagesOf } from './helpers/lazy-packages.js'

const RECORDER = fileURLToPath(new URL('./helpers/loaded-modules.ts', import.meta.url))

describe('what a server loads at start', () => {
  let dir = ''
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'expertdir-loading-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('serve on a migrated SQLite database loads none of the packages kept for first use', async () => {
    const databaseUrl = join(dir, 'expertdir.db')
    // Migrated beforehand: a migration that rewrites stored HTML loads sanitize-html when it runs.
    const database = openDatabase(databaseUrl)
    await migrateDatabase(database)
    await database.close()

    const listFile = join(dir, 'loaded.txt')
    const server = await startServerProcess(databaseUrl, {
      env: { LOADED_MODULES_FILE: listFile },
      preload: [RECORDER],
    })
    assert.equal((await fetch(`${server.base}/readyz`)).status, 200)
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output())

    const lines = readFileSync(listFile, 'utf8').split('\n')
    const loaded = packagesOf(lines)
    // The record itself works: what every request needs is in it.
    for (const name of ['fastify', 'kysely', 'ajv']) assert.ok(loaded.has(name), `${name} not recorded`)
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
  })

  test('every route schema compiles: validators and serializers are compiled by first use, not at start', async () => {
    const routes: RouteOptions[] = []
    const database = openDatabase(':memory:')
    const app = await buildApp({
      config: loadConfig({ logLevel: 'silent' }, {}),
      database,
      onRoute: (route) => {
        routes.push(route)
      },
    })
    try {
      await app.ready()
      let compiled = 0
      for (const { method, url, schema } of routes) {
        for (const httpPart of ['body', 'querystring', 'params', 'headers'] as const) {
          const part = schema?.[httpPart]
          if (!part) continue
          const validate = validatorCompiler({ schema: part, method: String(method), url, httpPart })
          assert.doesNotThrow(() => validate({}), `${method} ${url} ${httpPart}`)
          compiled += 1
        }
        for (const [status, response] of Object.entries(schema?.response ?? {})) {
          assert.doesNotThrow(() => serializerOf(response as object), `${method} ${url} ${status}`)
          compiled += 1
        }
      }
      assert.ok(compiled > 300, `only ${compiled} schemas`)
    } finally {
      await app.close()
      await database.close()
    }
  })
})
