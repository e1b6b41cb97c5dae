import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'

/**
 * `npm run openapi [-- FILE]`: builds the app on an empty in-memory database and writes its OpenAPI
 * document (default `dist/openapi.json`), the input of the Redocly lint and of the client's types.
 * The servers entry comes from `EXPERTDIR_PUBLIC_URL` when set, else the configured address.
 */
const file = process.argv[2] ?? 'dist/openapi.json'
const database = openDatabase(':memory:')
const app = await buildApp({ config: loadConfig({ logLevel: 'silent' }), database })
try {
  const document = app.swagger()
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`)
} finally {
  await app.close()
  await database.close()
}
