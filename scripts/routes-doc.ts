import { readFileSync, writeFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RouteOptions } from 'fastify'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/db/database.js'

/**
 * `npm run routes:doc` (with `--check`, in `npm run lint`): builds the app as `npm run openapi` does
 * (default configuration, empty in-memory database) and writes the table of every route it registers
 * (method, path, operationId, the file that registers it) into docs/routes.md between its markers;
 * `--check` exits 1 when the table there is not the one the code gives.
 * Left out: the HEAD twin of every GET, and the routes that only answer 405 (config `methodFallback`,
 * `catchAll`). The file is read from the stack at registration (onRoute runs inside the
 * `app.get(...)` call): the first frame in src/ other than the app's own onRoute hook.
 */
const root = resolve(fileURLToPath(import.meta.url), '../..')
const FILE = resolve(root, 'docs/routes.md')
const START = '<!-- routes:start: written by npm run routes:doc, do not edit -->'
const END = '<!-- routes:end -->'

interface Row {
  method: string
  url: string
  operationId: string
  file: string
}

/** The file that registered a route, from the stack of its onRoute hook (a package's name when a plugin did). */
function registeringFile(stack: string): string {
  const paths = stack
    .split('\n')
    .slice(1)
    .map((line) => /\(?((?:file:\/\/)?\/[^():]+):\d+:\d+\)?$/.exec(line.trim())?.[1])
    .filter((path): path is string => path !== undefined)
    .map((path) => relative(root, path.startsWith('file://') ? fileURLToPath(path) : path))
  const source = paths.find((path) => path.startsWith('src/') && path !== 'src/app.ts')
  if (source) return source
  const plugin = paths.find(
    (path) => path.includes('node_modules/') && !path.includes('node_modules/fastify/'),
  )
  const name = plugin && /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(plugin)?.[1]
  return name ?? 'unknown'
}

function rowOf(route: RouteOptions, file: string): Row {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  const operationId = (route.schema as { operationId?: unknown } | undefined)?.operationId
  return {
    method: methods.join(', '),
    url: route.url,
    operationId: typeof operationId === 'string' ? operationId : '',
    file,
  }
}

async function collectRoutes(): Promise<Row[]> {
  const rows: Row[] = []
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 200
  const database = openDatabase(':memory:')
  try {
    const app = await buildApp({
      config: loadConfig({ logLevel: 'silent' }, {}),
      database,
      onRoute: (route) => {
        const config = route.config as { methodFallback?: boolean; catchAll?: boolean } | undefined
        if (config?.methodFallback || config?.catchAll) return
        rows.push(rowOf(route, registeringFile(new Error().stack ?? '')))
      },
    })
    await app.close()
  } finally {
    Error.stackTraceLimit = limit
    await database.close()
  }
  const gets = new Set(rows.filter((row) => row.method === 'GET').map((row) => row.url))
  return rows.filter((row) => !(row.method === 'HEAD' && gets.has(row.url)))
}

function table(rows: Row[]): string {
  const lines = rows.map(
    (row) =>
      `| ${row.method} | \`${row.url}\` | ${row.operationId ? `\`${row.operationId}\`` : ''} | \`${row.file}\` |`,
  )
  return ['| method | path | operationId | registered in |', '|---|---|---|---|', ...lines].join('\n')
}

const current = readFileSync(FILE, 'utf8')
const start = current.indexOf(START)
const end = current.indexOf(END)
if (start === -1 || end < start) {
  console.error(`${relative(root, FILE)} lacks the markers ${START} and ${END}`)
  process.exit(1)
}
const text = `${current.slice(0, start + START.length)}\n${table(await collectRoutes())}\n${current.slice(end)}`

if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${relative(root, FILE)}: the route table is out of date: run npm run routes:doc`)
    process.exit(1)
  }
} else {
  writeFileSync(FILE, text)
}
