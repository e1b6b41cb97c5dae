import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { type Static, Type } from 'typebox'
import { SCRIPT_ASSET, STYLESHEET_ASSET, WIDGET_ASSET } from '../src/directory/assets.js'
import { parsed } from './helpers/checked.js'
import { startServerProcess } from './helpers/cli.js'
import { eventually } from './helpers/eventually.js'
import { assertNothingLoadedEarly, packagesOf, recordedStart } from './helpers/lazy-packages.js'
import { initializeRequest } from './helpers/mcp.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Packages every request needs: they must come from the bundle, not from `node_modules`. */
const BUNDLED = ['fastify', 'kysely', 'typebox', 'ajv', 'find-my-way', 'fast-json-stringify', 'commander']

const SourceMap = Type.Object({ sources: Type.Array(Type.String()) })
/** What execFileSync throws when the process exits with an error. */
const Failure = Type.Object({ status: Type.Number(), stderr: Type.String() })

/** The `node_modules` packages whose code a built file holds, from its source map. */
function bundledPackagesOf(file: string): Set<string> {
  const { sources } = parsed(SourceMap, JSON.parse(readFileSync(`${file}.map`, 'utf8')))
  return packagesOf(sources.map((source) => `/${source}`))
}

/** What a process has printed once it matches `pattern` (the demo prints its credentials after `/readyz`). */
function printedOnce(output: () => string, pattern: RegExp): Promise<string> {
  return eventually(() => pattern.test(output()) && output(), {
    what: `it printed ${pattern}`,
    timeoutMs: 60_000,
    detail: output,
  })
}

/**
 * The server as `npm start` and the `expertdir` command run it: built by `scripts/bundle-server.ts`
 * (here into a folder of its own beside `dist/bundle`, two folders below the root as the build's is).
 */
describe('the bundled server', () => {
  const outdir = join(ROOT, 'dist', `bundle-test-${process.pid}`)
  const entry = join(outdir, 'expertdir.js')
  let dir = ''
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'expertdir-bundle-'))
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-server.ts', outdir], { cwd: ROOT })
  })
  after(() => {
    rmSync(dir, { recursive: true, force: true })
    rmSync(outdir, { recursive: true, force: true })
  })

  test('loads its code from the bundle at start, and nothing kept for first use', async () => {
    const lines = await recordedStart(dir, entry)
    const builtFiles = lines.flatMap((url) => (url.startsWith('file:') ? [fileURLToPath(url)] : []))
    const fromBundle = builtFiles.filter((file) => file.startsWith(`${outdir}/`))
    assert.ok(fromBundle.includes(entry), 'the entry was not recorded')
    assert.deepEqual(
      builtFiles.filter(
        (file) => file.startsWith(join(ROOT, 'src')) || file.startsWith(join(ROOT, 'dist', 'cli')),
      ),
      [],
      'modules of the app loaded outside the bundle',
    )

    const installed = packagesOf(lines)
    assert.deepEqual(
      BUNDLED.filter((name) => installed.has(name)),
      [],
      'loaded from node_modules, not from the bundle',
    )
    const inStartChunks = new Set(fromBundle.flatMap((file) => [...bundledPackagesOf(file)]))
    for (const name of BUNDLED)
      assert.ok(inStartChunks.has(name), `${name} is not in the bundle's start files`)
    // Kept for first use: not loaded from node_modules, and not copied into a file loaded at start.
    assertNothingLoadedEarly(lines, new Set([...installed, ...inStartChunks]))
  })

  test('serves the API, its reference, the dashboard, the directory and MCP, and signs people in', async () => {
    const server = await startServerProcess(join(dir, 'demo.db'), {
      entry,
      args: ['--demo'],
      env: { LOG_LEVEL: 'warn' },
    })
    try {
      const printed = await printedOnce(server.output, /one-time password (\S+?) \(/)
      const clientId = /client_id: (\S+)/.exec(printed)?.[1]
      const clientSecret = /client_secret: (\S+)/.exec(printed)?.[1]
      const password = /one-time password (\S+?) \(/.exec(printed)?.[1]
      assert.ok(clientId && clientSecret && password, printed)

      const token = await fetch(`${server.base}/v2/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      })
      assert.equal(token.status, 200)
      const { access_token: accessToken } = parsed(
        Type.Object({ access_token: Type.String() }),
        await token.json(),
      )
      const bearer = { authorization: `Bearer ${accessToken}` }

      const search = await fetch(`${server.base}/v2/organization/1/expert?status=published&q=law`, {
        headers: bearer,
      })
      assert.equal(search.status, 200)
      const username = /"username":"([^"]+)"/.exec(await search.text())?.[1]
      assert.ok(username, 'the search found no expert')
      const profile = await fetch(`${server.base}/v2/organization/1/expert/${username}`, { headers: bearer })
      assert.equal(profile.status, 200)
      assert.ok(profile.headers.get('etag'))

      const document = await fetch(`${server.base}/v2/openapi.json`)
      assert.equal(document.status, 200)
      assert.equal(parsed(Type.Object({ openapi: Type.String() }), await document.json()).openapi, '3.1.0')
      // swagger-ui's files come from its installed package.
      const docsStyle = await fetch(`${server.base}/docs/static/swagger-ui.css`)
      assert.equal(docsStyle.status, 200)
      assert.ok((await docsStyle.text()).length > 10_000)

      // The dashboard's files are found from the bundle's folder.
      const dashboard = await fetch(`${server.base}/admin/`)
      assert.equal(dashboard.status, 200)
      const script = /src="([^"]+\.js)"/.exec(await dashboard.text())?.[1]
      assert.ok(script, 'no script in the dashboard page')
      assert.equal((await fetch(new URL(script, `${server.base}/admin/`))).status, 200)

      const directory = await fetch(`${server.base}/directory/1/?q=law`)
      assert.equal(directory.status, 200)
      assert.match(await directory.text(), /<html/)
      // The directory's built browser scripts and stylesheet are in the bundle, as built from the sources.
      for (const [path, asset] of [
        ['/directory/widget.js', WIDGET_ASSET],
        ['/directory/assets/directory.js', SCRIPT_ASSET],
        ['/directory/assets/directory.css', STYLESHEET_ASSET],
      ] as const) {
        const served = await fetch(`${server.base}${path}`)
        assert.equal(served.status, 200, path)
        assert.equal(served.headers.get('etag'), asset.etag, path)
        assert.equal(await served.text(), asset.body, path)
      }

      // A password check loads argon2 (a native addon, kept installed) on first use.
      const signIn = await fetch(`${server.base}/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.base },
        body: JSON.stringify({ email: 'owner@demo-university.example', password }),
      })
      assert.equal(signIn.status, 200, await signIn.clone().text())

      // MCP: the app's lazily loaded chunk and the installed SDK.
      const mcp = await fetch(`${server.base}/mcp`, initializeRequest(accessToken, 'test'))
      assert.equal(mcp.status, 200)
      assert.match(await mcp.text(), /"serverInfo"/)
    } finally {
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0, server.output())
    }
    assert.ok(existsSync(`${entry}.map`), 'no source map beside the entry')
  })
})

/** The machine's own Node, older than the one the project runs on (the README's "a machine whose Node is 20"). */
const SYSTEM_NODE = '/usr/bin/node'
const systemNodeMajor = (() => {
  try {
    return Number(
      execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }),
    )
  } catch {
    return undefined
  }
})()

describe('the bundle started by an older Node', () => {
  const outdir = join(ROOT, 'dist', `bundle-old-node-${process.pid}`)
  const skip =
    systemNodeMajor === undefined
      ? `no ${SYSTEM_NODE} on this machine`
      : systemNodeMajor >= 22
        ? `${SYSTEM_NODE} is Node ${systemNodeMajor}, not older than 22`
        : false
  before(() => {
    if (!skip)
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bundle-server.ts', outdir], { cwd: ROOT })
  })
  after(() => rmSync(outdir, { recursive: true, force: true }))

  test('says which Node it needs and the command that works, and exits 1', { skip }, () => {
    let failure: Static<typeof Failure> | undefined
    try {
      execFileSync(SYSTEM_NODE, [join(outdir, 'expertdir.js'), 'org', 'list'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      })
    } catch (error) {
      failure = parsed(Failure, error)
    }
    assert.ok(failure, 'it ran on an older Node')
    assert.equal(failure.status, 1)
    assert.match(failure.stderr, /^expertdir needs Node 22\.16 or later; this is Node v\d+\./)
    assert.match(failure.stderr, /node_modules\/\.bin\/node dist\/bundle\/expertdir\.js <command>/)
    assert.doesNotMatch(failure.stderr, /at .*:\d+:\d+/, 'a stack trace')
  })
})
