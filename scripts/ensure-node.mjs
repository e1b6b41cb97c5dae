// npm runs this after every install. On a supported Node (22.16 or later) it does nothing. On an
// older Node it installs Node 24 LTS from the npm registry into node_modules/.node and links it as
// node_modules/.bin/node: npm puts that folder first on PATH for the project's scripts, so
// `npm start`, `npm test` and `npm run expertdir` run on Node 24 while the machine keeps its own Node.
// Plain JavaScript that Node 18 and 20 can run: it is the one file that may meet an old Node.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const SUPPORTED = [22, 16]
const BROUGHT = '24'

const [major, minor] = process.versions.node.split('.').map(Number)
const supported = major > SUPPORTED[0] || (major === SUPPORTED[0] && minor >= SUPPORTED[1])
if (supported) process.exit(0)

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const prefix = join(root, 'node_modules', '.node')
const brought = join(prefix, 'node_modules', 'node', 'bin', 'node')
const link = join(root, 'node_modules', '.bin', 'node')

const versionOf = (node) => {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

if (!versionOf(brought)) {
  console.log(
    `expertdir runs on Node 22.16 or later; this machine has Node ${process.version}. ` +
      `Installing Node ${BROUGHT} from the npm registry for this project's scripts (node_modules/.node)...`,
  )
  mkdirSync(prefix, { recursive: true })
  writeFileSync(join(prefix, 'package.json'), `${JSON.stringify({ private: true }, null, 2)}\n`)
  const npm = process.env.npm_execpath
  const args = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node@${BROUGHT}`]
  execFileSync(npm ? process.execPath : 'npm', npm ? [npm, ...args] : args, { cwd: prefix, stdio: 'inherit' })
}
const version = versionOf(brought)
if (!version) {
  console.error(`Could not install Node ${BROUGHT}; install Node 22, 24 or 26 and run npm install again.`)
  process.exit(1)
}
mkdirSync(dirname(link), { recursive: true })
rmSync(link, { force: true })
symlinkSync(relative(dirname(link), brought), link)
console.log(
  `npm start, npm test and npm run expertdir run on Node ${version} (node_modules/.bin/node); ` +
    'run the built server with it too: node_modules/.bin/node dist/bundle/expertdir.js <command>',
)
