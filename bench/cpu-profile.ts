/**
 * `tsx bench/cpu-profile.ts FILE.cpuprofile [N] [SKIP_S]`: the N (default 30) functions with the most
 * self time and with the most total time (their callees included) in a `--cpu-prof` profile, and self
 * time per package or source folder, as shares of the busy samples (idle left out). SKIP_S skips the
 * first seconds of the profile (startup: module loading, schema compiling).
 */
import { readFileSync } from 'node:fs'

interface Node {
  id: number
  parent?: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

const [file, count = '30', skip = '0'] = process.argv.slice(2)
if (!file) throw new Error('usage: cpu-profile.ts FILE.cpuprofile [N] [SKIP_S]')
const profile = JSON.parse(readFileSync(file, 'utf8')) as {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
for (const node of profile.nodes)
  for (const child of node.children ?? []) (byId.get(child) as Node).parent = node.id
const idle = new Set(['(idle)', '(program)', '(garbage collector)'])
const hits = new Map<number, number>()
let elapsedUs = 0
for (const [i, sample] of profile.samples.entries()) {
  elapsedUs += profile.timeDeltas[i] ?? 0
  if (elapsedUs < Number(skip) * 1e6) continue
  if ((byId.get(sample) as Node).callFrame.functionName === '(idle)') continue
  hits.set(sample, (hits.get(sample) ?? 0) + 1)
}
const total = [...hits.values()].reduce((sum, n) => sum + n, 0)

/** `node_modules/fastify/lib/x.js` -> `fastify`; `src/http/x.ts` -> `src/http`; node internals -> `node:`. */
function area(url: string): string {
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (module) return module[1] as string
  const source = /\/(src\/[^/]+|bench)\//.exec(url)
  if (source) return source[1] as string
  if (url.startsWith('node:')) return 'node:'
  return url === '' ? '(native)' : url
}

function nameOf(node: Node): string {
  const { functionName, url, lineNumber } = node.callFrame
  return idle.has(functionName)
    ? functionName
    : `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`
}

const functions = new Map<string, number>()
const inclusive = new Map<string, number>()
const areas = new Map<string, number>()
for (const [id, n] of hits) {
  const node = byId.get(id) as Node
  const name = nameOf(node)
  functions.set(name, (functions.get(name) ?? 0) + n)
  const { functionName, url } = node.callFrame
  const key = idle.has(functionName) ? functionName : area(url)
  areas.set(key, (areas.get(key) ?? 0) + n)
  const seen = new Set<string>()
  for (let at: Node | undefined = node; at; at = at.parent === undefined ? undefined : byId.get(at.parent)) {
    const frame = nameOf(at)
    if (seen.has(frame)) continue
    seen.add(frame)
    inclusive.set(frame, (inclusive.get(frame) ?? 0) + n)
  }
}
const share = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)}%`
const top = (map: Map<string, number>, limit: number) =>
  [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, n]) => `${share(n)}  ${name}`)
    .join('\n')
console.log(`${total} busy samples\n\nself time by area\n${top(areas, 20)}`)
console.log(`\nself time by function\n${top(functions, Number(count))}`)
console.log(`\ntotal time by function\n${top(inclusive, Number(count))}`)
