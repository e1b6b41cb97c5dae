import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { RouteOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'
import { serializerOf } from '../src/http/serialization.js'
import { validatorCompiler } from '../src/http/validation.js'
import { assertNothingLoadedEarly, packagesOf, recordedStart } from './helpers/lazy-packages.js'

describe('what a server loads at start', () => {
  let dir = ''
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'expertdir-loading-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  test('serve on a migrated SQLite database loads none of the packages kept for first use', async () => {
    const lines = await recordedStart(dir)
    const loaded = packagesOf(lines)
    // The record itself works: what every request needs is in it.
    for (const name of ['fastify', 'kysely', 'ajv']) assert.ok(loaded.has(name), `${name} not recorded`)
    assertNothingLoadedEarly(lines, loaded)
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
