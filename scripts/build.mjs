// `npm run build` (and `npm start` before it starts): the typed client, the server's compiled files, the
// dashboard and the server bundle, each built only when one of its inputs changed since its last build.
// A step is skipped when its output exists and no file or folder among its inputs is newer than the
// moment its last successful build started (a folder's time changes when a file in it is added, removed
// or renamed, so a deleted source counts as a change). `--force` builds every step.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => join(root, 'node_modules', '.bin', name)
const npm = (...args) => [process.platform === 'win32' ? 'npm.cmd' : 'npm', args]

/** What every step depends on besides its own sources: the installed packages and the shared settings. */
const SHARED = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.mjs']
const CLIENT_SOURCES = [
  'packages/client/src',
  'packages/client/package.json',
  'packages/client/tsconfig.build.json',
]

const STEPS = [
  {
    name: 'client',
    inputs: CLIENT_SOURCES,
    output: 'packages/client/dist',
    command: npm('run', 'build', '--silent', '-w', '@expertdir/client'),
  },
  {
    name: 'server',
    inputs: ['src', 'tsconfig.build.json', 'packages/client/dist'],
    output: 'dist/cli',
    command: [bin('tsc'), ['-p', 'tsconfig.build.json']],
  },
  {
    name: 'dashboard',
    inputs: [
      'packages/dashboard/src',
      'packages/dashboard/index.html',
      'packages/dashboard/vite.config.ts',
      'packages/dashboard/package.json',
      'packages/dashboard/tsconfig.json',
      ...CLIENT_SOURCES,
    ],
    output: 'packages/dashboard/dist',
    command: npm('run', 'build', '--silent', '-w', '@expertdir/dashboard'),
  },
  {
    name: 'bundle',
    inputs: ['src', 'scripts/bundle-server.ts', 'tsconfig.build.json', 'packages/client/dist'],
    output: 'dist/bundle/expertdir.js',
    command: [bin('tsx'), ['scripts/bundle-server.ts']],
  },
]

/** The newest modification time (ms) of a file, or of a folder and everything in it. */
function newest(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)))
  return latest
}

const stamps = join(root, 'dist', '.build')
const stampOf = (step) => join(stamps, `${step.name}.json`)

function builtAt(step) {
  try {
    return JSON.parse(readFileSync(stampOf(step), 'utf8')).started
  } catch {
    return undefined
  }
}

const force = process.argv.includes('--force')
for (const step of STEPS) {
  const started = Date.now()
  const last = builtAt(step)
  const changed = [...SHARED, ...step.inputs].some((input) => newest(join(root, input)) >= (last ?? 0))
  if (!force && last !== undefined && existsSync(join(root, step.output)) && !changed) continue
  const [command, args] = step.command
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`build: the ${step.name} step failed${result.error ? ` (${result.error.message})` : ''}`)
    process.exit(result.status ?? 1)
  }
  mkdirSync(stamps, { recursive: true })
  writeFileSync(stampOf(step), `${JSON.stringify({ started })}\n`)
}
