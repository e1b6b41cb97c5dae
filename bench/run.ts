/**
 * `npm run bench`: builds a dataset, starts the baseline and the app in their own processes on
 * loopback, and measures each route with autocannon for a fixed time. See docs/performance.md.
 *
 *   --db URL         SQLite file path or postgres:// URL of a server to create a fresh database on
 *                    (default: a temp SQLite file). The database is removed afterwards.
 *   --duration S     seconds per measurement (default 5)
 *   --connections N  concurrent connections at saturation (default 100)
 *   --rate-connections N  connections for the fixed-rate latency runs (default 20)
 *   --scale          also compare the profile read at 1,000 and 100,000 experts
 *   --quick          small dataset and 2 s measurements (a smoke run)
 *   --cpu-prof       run the app with --cpu-prof (profiles in bench/profiles/)
 *   --tsx            run the app from the sources through tsx instead of building it first (faster to
 *                    start; its memory and profiles then include the TypeScript loader)
 *   --search-only    only the search measurements (otherwise they follow the route measurements)
 *   --no-search      skip the search measurements
 *   --no-works       skip the works refresh throughput (bench/works-refresh.ts; after the routes, a few seconds)
 *   --no-meaning     skip finding by meaning at 10,000 and 100,000 experts (bench/meaning.ts; after search)
 *   --meaning-only   only finding by meaning; --meaning-sizes 10000 measures only that size
 *   --meaning-reuse  keep the database of finding by meaning and reuse it: with --db, a SQLite file or the
 *                    PostgreSQL database the URL names (created when missing), never removed. A run finds
 *                    there the organization an earlier one built (`Meaning Bench 100000`) and skips the
 *                    building (about 14 minutes at 100,000 experts); its usernames and texts are generated
 *                    again from the seeds. Pending migrations are applied, then statistics refreshed.
 *   --uploads-only   only the photo upload measurements (bench/uploads.ts; otherwise they come last)
 *   --no-uploads     skip the photo upload measurements
 *   --routes A,B     only the routes whose names contain A or B (profile, spotlight, qanda, search, mcp,
 *                    directory, inquiry, token)
 *   --workers N      also measure the profile read on `serve --workers N` against N bare baseline
 *                    servers sharing the port (node:cluster), next to the single-process figures
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import autocannon, { type Options, type Result } from 'autocannon'
import pg from 'pg'
import { isPostgresUrl, openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import { bumpExpertSearchVersion } from '../src/derived/search-index.js'
import { rebuildSearchWhereMissing } from '../src/derived/search-rebuild.js'
import { isObject } from '../src/validation/guards.js'
import { buildDataset, type Dataset, type DatasetSizes } from './dataset.js'
import {
  buildMeaningDataset,
  keptMeaningDataset,
  type Latency,
  type MeaningDataset,
  measureSequential,
  TEXT_CHARACTERS,
} from './meaning.js'
import { buildSearchDataset, type SearchDataset } from './search-dataset.js'
import { uploadsBench } from './uploads.js'
import { measureWorksRefresh } from './works-refresh.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values: flags } = parseArgs({
  options: {
    db: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    'rate-connections': { type: 'string' },
    scale: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    tsx: { type: 'boolean', default: false },
    routes: { type: 'string' },
    'search-only': { type: 'boolean', default: false },
    'uploads-only': { type: 'boolean', default: false },
    'no-uploads': { type: 'boolean', default: false },
    'no-search': { type: 'boolean', default: false },
    'no-works': { type: 'boolean', default: false },
    'no-meaning': { type: 'boolean', default: false },
    'meaning-only': { type: 'boolean', default: false },
    'meaning-sizes': { type: 'string' },
    'meaning-reuse': { type: 'boolean', default: false },
    workers: { type: 'string' },
  },
})
const quick = flags.quick ?? false
const duration = Number(flags.duration ?? (quick ? 2 : 5))
const connections = Number(flags.connections ?? 100)
const rateConnections = Number(flags['rate-connections'] ?? 20)
const warmup = quick ? 1 : 2
/** `--routes profile,qanda`: only the routes whose names contain one of these words. */
const routeFilter = (flags.routes ?? '')
  .toLowerCase()
  .split(',')
  .map((part) => part.trim())
const workers = Number(flags.workers ?? 1)

// --- databases -------------------------------------------------------------------------------------

interface BenchDatabase {
  url: string
  dialect: 'sqlite' | 'postgres'
  drop(): Promise<void>
}

/** A fresh empty database: a temp SQLite file, or a new database on the PostgreSQL server of `--db`. */
async function freshDatabase(target: string | undefined): Promise<BenchDatabase> {
  if (target && isPostgresUrl(target)) {
    const name = `expertdir_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
    const admin = new pg.Client({ connectionString: target })
    await admin.connect()
    await admin.query(`create database ${name}`)
    await admin.end()
    const url = new URL(target)
    url.pathname = `/${name}`
    return {
      url: url.toString(),
      dialect: 'postgres',
      async drop() {
        const cleanup = new pg.Client({ connectionString: target })
        await cleanup.connect()
        await cleanup.query(`drop database if exists ${name} with (force)`)
        await cleanup.end()
      },
    }
  }
  if (target) {
    rmSync(target, { force: true })
    return { url: target, dialect: 'sqlite', drop: async () => {} }
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'expertdir-bench-'))
  return {
    url: join(dir, 'bench.sqlite'),
    dialect: 'sqlite',
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * The database `--meaning-reuse` keeps: the SQLite file `target`, or the PostgreSQL database its URL
 * names, created when missing. Nothing is removed afterwards.
 */
async function keptDatabase(target: string): Promise<BenchDatabase> {
  if (!isPostgresUrl(target)) return { url: target, dialect: 'sqlite', drop: async () => {} }
  const name = decodeURIComponent(new URL(target).pathname.slice(1))
  if (!/^[a-z_][a-z0-9_]*$/.test(name))
    throw new Error(`--meaning-reuse: name a database of lowercase letters, digits and _ (${name})`)
  const server = new URL(target)
  server.pathname = '/postgres'
  const admin = new pg.Client({ connectionString: server.toString() })
  await admin.connect()
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (found.rowCount === 0) await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  return { url: target, dialect: 'postgres', drop: async () => {} }
}

async function populate(url: string, sizes: DatasetSizes): Promise<Dataset> {
  const database = openDatabase(url)
  try {
    await migrateToLatest(database.db)
    const dataset = await buildDataset(database.db, sizes, Date.now())
    // The dataset is written straight into the tables: the search index is built here, as `migrate`
    // would, so that the measured server starts on a complete database (its memory peak is then
    // serving's, not a one-off rebuild of 10,000 experts at start).
    await rebuildSearchWhereMissing(database.db)
    return dataset
  } finally {
    await database.close()
  }
}

// --- processes -------------------------------------------------------------------------------------

interface Child {
  url: string
  process: ChildProcess
  stop(): Promise<void>
}

/** Starts `script` (TypeScript, through tsx) and waits for the `{"url"}` line it prints. */
async function startChild(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeFlags: string[] = [],
): Promise<Child> {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : []
  const child = spawn(process.execPath, [...nodeFlags, ...loader, join(here, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 180 s`)), 180_000)
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)))
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { url?: string }
        if (parsed.url) {
          clearTimeout(timer)
          resolve(parsed.url)
        }
      } catch {
        // other output
      }
    })
  })
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** The V8 settings `npm start` runs the app with (docs/performance.md, "Idle memory"). */
const APP_V8_FLAGS =
  process.env.BENCH_V8_FLAGS === undefined
    ? ['--max-semi-space-size=4']
    : process.env.BENCH_V8_FLAGS.split(' ').filter(Boolean)

function startApp(databaseUrl: string, extraEnv: NodeJS.ProcessEnv = {}, processes = 1): Promise<Child> {
  const nodeFlags = [
    ...APP_V8_FLAGS,
    ...(flags['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${join(here, 'profiles')}`] : []),
    ...(flags.tsx ? ['--import', 'tsx'] : []),
  ]
  return startChild(
    'app-server.mjs',
    processes > 1 ? ['--workers', String(processes)] : [],
    {
      ...(flags.tsx ? { BENCH_APP_SOURCES: '1' } : {}),
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      EXPERTDIR_RATE_LIMIT_API: '0',
      EXPERTDIR_RATE_LIMIT_TOKEN: '0',
      EXPERTDIR_SMTP_URL: '',
      EXPERTDIR_REDIS_URL: '',
      ...extraEnv,
    },
    nodeFlags,
  )
}

// --- measurements ----------------------------------------------------------------------------------

interface Target {
  name: string
  /** The baseline path serving this route's bytes (writes: the profile's). */
  baselinePath: 'profile' | 'spotlight' | 'qanda' | 'search' | 'expert-page' | 'search-page'
  request: Omit<Options, 'url' | 'connections' | 'duration'> & { path: string }
  /** A distinct body per request (autocannon's own `[<id>]` replacement miscounts Content-Length). */
  makeBody?: () => string
  /** Writes and scrypt cannot reach the reads' rate: their fixed rate is half their own saturation. */
  ownRate?: boolean
  /** Fewer connections for a route whose requests take long (scrypt), so that requests complete within the run. */
  connections?: number
}

interface Measurement {
  route: string
  method: string
  path: string
  /** The bare baseline's saturation rate measured just before this route, serving the route's bytes. */
  baselineRps: number
  baselinePath: Target['baselinePath']
  saturation: {
    rps: number
    p50: number
    p99: number
    non2xx: number
    errors: number
    /** The server's CPU time per request during the saturation run (user + system, microseconds). */
    cpuUsPerRequest?: number | undefined
  }
  /** The bare baseline's CPU time per request in its adjacent run. */
  baselineCpuUsPerRequest?: number | undefined
  /**
   * A read against the bare server sending the app's whole response (the same headers; `fetch` gives
   * them sorted by name) to the same request: how close the read comes to the cost of its own bytes.
   */
  sameResponse?: { rps: number; cpuUsPerRequest: number | undefined; ratio: number }
  fixedRate: {
    rate: number
    basis: 'baseline' | 'own'
    p50: number
    p99: number
    rps: number
    non2xx: number
  }
  /** For a read that cannot sustain the baseline-based rate: latency at half its own saturation rate. */
  ownRate?: { rate: number; p50: number; p99: number; rps: number; non2xx: number }
  ratio: number
  /** Peak resident set of the app process during this route's measurements, in MiB. */
  rssPeakMiB?: number
}

async function cannon(base: string, target: Target, seconds: number, overallRate?: number): Promise<Result> {
  const { path, ...request } = target.request
  const { makeBody } = target
  return autocannon({
    ...request,
    ...(makeBody ? { requests: [{ setupRequest: (req: object) => ({ ...req, body: makeBody() }) }] } : {}),
    url: `${base}${path}`,
    // At a fixed rate autocannon paces each connection on its own timer, all started together: every
    // connection fires at once, so the burst size is the connection count. Fewer connections, smaller bursts.
    connections: Math.min(target.connections ?? connections, overallRate ? rateConnections : connections),
    duration: seconds,
    timeout: 30,
    ...(overallRate ? { overallRate } : {}),
  })
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

/**
 * Waits until the server has answered what a saturating run left in flight (autocannon stops sending
 * when its time is up, not when the server has caught up): one more request, queued behind them.
 */
async function drain(base: string): Promise<void> {
  await fetch(`${base}/healthz`).then(
    (response) => response.arrayBuffer(),
    () => undefined,
  )
}

/**
 * CPU seconds (user + system) the process `pid` has used, from /proc (clock ticks of 10 ms); undefined
 * where /proc is missing. CPU time per request is steadier than req/s on a machine doing other work.
 */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return undefined
  }
}

/** Saturation rate, with the server's CPU time per request when its `pid` is given. */
async function saturate(base: string, target: Target, pid?: number) {
  await cannon(base, target, warmup)
  const cpuBefore = cpuSeconds(pid)
  const result = await cannon(base, target, duration)
  await drain(base)
  const cpuAfter = cpuSeconds(pid)
  return {
    rps: round(result.requests.average, 0),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || result.requests.total === 0
        ? undefined
        : round(((cpuAfter - cpuBefore) * 1e6) / (result.requests.total + 1), 0),
  }
}

async function atRate(base: string, target: Target, rate: number) {
  const result = await cannon(base, target, duration, rate)
  await drain(base)
  return {
    rps: round(result.requests.average, 0),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  }
}

/** Latency at half the route's own saturation rate, when that is below the baseline-based fixed rate. */
async function ownRateIfSlower(base: string, target: Target, saturationRps: number, fixedRate: number) {
  const own = Math.max(1, Math.round(saturationRps / 2))
  if (target.ownRate || own >= fixedRate) return {}
  log(`${target.name}: at its own half rate ${own}/s...`)
  return { ownRate: { rate: own, ...(await atRate(base, target, own)) } }
}

async function getJson(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(url, init)
  return { status: response.status, text: await response.text(), headers: response.headers }
}

/** Headers Node writes on every response itself (the bare server writes its own). */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/** A response's headers as the app sent them, as `[name, value]` pairs (for the bare server). */
const sentHeaders = (headers: Headers): [string, string][] =>
  [...headers].filter(([name]) => !CONNECTION_HEADERS.has(name))

async function issueToken(base: string, dataset: Pick<Dataset, 'client'>): Promise<string> {
  const { status, text } = await getJson(`${base}/v2/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenForm(dataset),
  })
  if (status !== 200) throw new Error(`token request failed: ${status} ${text}`)
  return (JSON.parse(text) as { data: { accessToken: string } }).data.accessToken
}

function tokenForm(dataset: Pick<Dataset, 'client'>): string {
  return new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: dataset.client.client_id,
    client_secret: dataset.client.client_secret,
  }).toString()
}

let sequence = 0

/** A word of many generated profiles: the expert search of the route measurements looks for it. */
const SEARCH_WORD = 'research'

function targets(dataset: Dataset, token: string): Target[] {
  const auth = { authorization: `Bearer ${token}` }
  const org = dataset.orgId
  return [
    {
      name: 'GET expert profile',
      baselinePath: 'profile',
      request: { method: 'GET', path: `/v2/organization/${org}/expert/${dataset.username}`, headers: auth },
    },
    {
      name: 'GET spotlight',
      baselinePath: 'spotlight',
      request: { method: 'GET', path: `/v2/spotlight/${org}/${dataset.spotlightId}`, headers: auth },
    },
    {
      name: 'GET qanda',
      baselinePath: 'qanda',
      request: { method: 'GET', path: `/v2/qanda/${org}/${dataset.questionId}`, headers: auth },
    },
    {
      name: 'GET expert search',
      baselinePath: 'search',
      request: { method: 'GET', path: `/v2/organization/${org}/expert?q=${SEARCH_WORD}`, headers: auth },
    },
    {
      // The same search as an AI assistant makes it: the MCP tool over the same service, answering
      // JSON-RPC with the result twice (structured content and its text), against the API's bytes.
      name: 'POST mcp search_experts',
      baselinePath: 'search',
      request: {
        method: 'POST',
        path: '/mcp',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'search_experts', arguments: { q: SEARCH_WORD } },
        }),
      },
    },
    {
      name: 'GET directory expert page',
      baselinePath: 'expert-page',
      request: { method: 'GET', path: `/directory/${org}/${dataset.username}` },
    },
    {
      name: 'GET directory find-an-expert page',
      baselinePath: 'search-page',
      request: { method: 'GET', path: `/directory/${org}/?q=climate` },
    },
    {
      name: 'POST inquiry (donor)',
      baselinePath: 'profile',
      ownRate: true,
      request: {
        method: 'POST',
        path: `/v2/organization/${org}/inquiry/donor`,
        headers: { ...auth, 'content-type': 'application/json' },
      },
      makeBody: () =>
        JSON.stringify({
          username: dataset.username,
          firstname: 'Bench',
          lastname: 'Donor',
          email: 'donor@bench.example',
          organization: 'Bench Foundation',
          message: `We would like to support your research. Reference ${++sequence}.`,
          location_country: 'US',
          location_state: 'TX',
          donor_type: 'corporate',
          donor_focus: 'recurring_gift',
        }),
    },
    {
      name: 'POST token',
      baselinePath: 'profile',
      ownRate: true,
      connections: 8,
      request: {
        method: 'POST',
        path: '/v2/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: tokenForm(dataset),
      },
    },
  ]
}

/** Latency of a 4 KiB write + fsync in `dir`: what every durable SQLite commit pays at least once. */
function fsyncLatency(dir: string, count = 500) {
  const path = join(dir, `fsync-probe-${process.pid}`)
  const fd = openSync(path, 'w')
  const block = Buffer.alloc(4096, 1)
  const times: number[] = []
  try {
    for (let i = 0; i < count; i++) {
      writeSync(fd, block)
      const start = performance.now()
      fsyncSync(fd)
      times.push(performance.now() - start)
    }
  } finally {
    closeSync(fd)
    rmSync(path, { force: true })
  }
  times.sort((a, b) => a - b)
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length
  return {
    meanMs: round(mean, 3),
    p50Ms: round(times[Math.floor(count / 2)] as number, 3),
    p99Ms: round(times[Math.floor(count * 0.99)] as number, 3),
    serialCommitsPerSecond: Math.round(1000 / mean),
  }
}

// --- the run ---------------------------------------------------------------------------------------

function log(message: string): void {
  process.stderr.write(`${message}\n`)
}

function table(rows: Measurement[]): string {
  const header = [
    'route',
    'baseline req/s',
    'req/s',
    'x baseline',
    'CPU us/req',
    'bare CPU us/req',
    'x bare, same response',
    'its CPU us/req',
    'fixed rate/s',
    'achieved/s',
    'p50 ms',
    'p99 ms',
    'own half rate/s',
    'p50',
    'p99',
    'RSS MiB',
    'non-2xx',
  ]
  const lines = rows.map((row) => [
    row.route,
    String(row.baselineRps),
    String(row.saturation.rps),
    row.ratio.toFixed(2),
    String(row.saturation.cpuUsPerRequest ?? ''),
    String(row.baselineCpuUsPerRequest ?? ''),
    row.sameResponse ? row.sameResponse.ratio.toFixed(2) : '',
    String(row.sameResponse?.cpuUsPerRequest ?? ''),
    `${row.fixedRate.rate}${row.fixedRate.basis === 'own' ? ' (own)' : ''}`,
    String(row.fixedRate.rps),
    String(row.fixedRate.p50),
    String(row.fixedRate.p99),
    row.ownRate ? String(row.ownRate.rate) : '',
    row.ownRate ? String(row.ownRate.p50) : '',
    row.ownRate ? String(row.ownRate.p99) : '',
    row.rssPeakMiB === undefined ? '' : String(row.rssPeakMiB),
    String(row.saturation.non2xx + (row.ownRate?.non2xx ?? 0) + row.fixedRate.non2xx + row.saturation.errors),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => (line[i] as string).length)))
  const format = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ')
  return [format(header), format(widths.map((w) => '-'.repeat(w))), ...lines.map(format)].join('\n')
}

/**
 * The app process's resident set (VmRSS), sampled every `everyMs` from /proc: its peak over the whole
 * run and over the current window (one route's measurements). Undefined where /proc is missing.
 */
function rssSampler(pid: number | undefined, everyMs = 200) {
  let peak = 0
  let windowPeak = 0
  const read = () => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (!match) return
      const mib = Number(match[1]) / 1024
      peak = Math.max(peak, mib)
      windowPeak = Math.max(windowPeak, mib)
    } catch {
      // not Linux, or the process is gone
    }
  }
  read()
  const timer = setInterval(read, everyMs)
  timer.unref()
  const value = (mib: number) => (mib > 0 ? round(mib) : undefined)
  return {
    /** The window's peak in MiB; starts a new window. */
    endWindow() {
      read()
      const result = value(windowPeak)
      windowPeak = 0
      return result
    },
    stop() {
      clearInterval(timer)
      return value(peak)
    },
  }
}

/** The issue's goals for the reads, checked against this run. */
function goals(dialect: 'sqlite' | 'postgres', rows: Measurement[], rssPeakMiB: number | undefined): string {
  const ratios: Record<string, number> =
    dialect === 'sqlite'
      ? {
          'GET expert profile': 0.7,
          'GET spotlight': 0.7,
          'GET qanda': 0.7,
          'GET expert search': 0.5,
          'POST inquiry (donor)': 0.08,
        }
      : {
          'GET expert profile': 0.4,
          'GET spotlight': 0.35,
          'GET qanda': 0.35,
          'GET expert search': 0.3,
          'POST inquiry (donor)': 0.04,
        }
  const verdict = (met: boolean) => (met ? 'met' : 'MISSED')
  const lines: string[] = []
  for (const row of rows) {
    const goal = ratios[row.route]
    if (goal === undefined) continue
    lines.push(`${row.route}: ${row.ratio}x (goal ${goal}x) ${verdict(row.ratio >= goal)}`)
    if (dialect === 'sqlite') {
      const kept = row.fixedRate.rps >= row.fixedRate.rate * 0.95
      lines.push(
        `${row.route}: p99 ${row.fixedRate.p99} ms at ${row.fixedRate.rate}/s, half the bare rate ` +
          `(${kept ? 'kept up' : `only ${row.fixedRate.rps}/s achieved`}; goal < 25 ms) ${verdict(kept && row.fixedRate.p99 < 25)}`,
      )
    }
  }
  if (rssPeakMiB !== undefined)
    lines.push(`peak RSS ${rssPeakMiB} MiB (goal < 150) ${verdict(rssPeakMiB < 150)}`)
  return `goals (${dialect}):\n  ${lines.join('\n  ')}`
}

async function measureRoutes(dataset: Dataset, databaseUrl: string) {
  const app = await startApp(databaseUrl)
  let baseline: Child | undefined
  const bodyDir = mkdtempSync(join(os.tmpdir(), 'expertdir-bench-body-'))
  const rss = rssSampler(app.process.pid)
  try {
    const token = await issueToken(app.url, dataset)
    const all = targets(dataset, token)
    // Each read's baseline serves that read's own bytes.
    const bodies: string[] = []
    let bodyBytes = 0
    for (const target of all.filter((target) => target.request.method === 'GET')) {
      const read = await getJson(`${app.url}${target.request.path}`, { headers: target.request.headers })
      if (read.status !== 200)
        throw new Error(`${target.name} failed: ${read.status} ${read.text.slice(0, 200)}`)
      const html = target.baselinePath.endsWith('-page')
      const file = join(bodyDir, `${target.baselinePath}.${html ? 'html' : 'json'}`)
      writeFileSync(file, read.text)
      bodies.push(`${target.baselinePath}=${file}`)
      // The same response as the app's, headers included: what a kept read cannot go below.
      writeFileSync(`${file}.headers.json`, JSON.stringify(sentHeaders(read.headers)))
      bodies.push(`${target.baselinePath}-as-app=${file}=${file}.headers.json`)
      if (target.baselinePath === 'profile') bodyBytes = Buffer.byteLength(read.text)
    }
    const list = all.filter((target) => routeFilter.some((part) => target.name.toLowerCase().includes(part)))
    baseline = await startChild('baseline.ts', bodies, {})
    const baselineTarget: Target = {
      name: 'baseline (node:http)',
      baselinePath: 'profile',
      request: { method: 'GET', path: '/profile' },
    }
    log(`baseline: ${bodyBytes} bytes per profile response`)
    const baseSat = await saturate(baseline.url, baselineTarget, baseline.process.pid)
    const fixedRate = Math.max(1, Math.round(baseSat.rps / 2))
    log(`baseline: ${baseSat.rps} req/s; fixed rate ${fixedRate}/s`)
    const baseFixed = await atRate(baseline.url, baselineTarget, fixedRate)
    const rows: Measurement[] = [
      {
        route: baselineTarget.name,
        method: 'GET',
        path: '/',
        baselineRps: baseSat.rps,
        baselinePath: 'profile',
        saturation: baseSat,
        fixedRate: { rate: fixedRate, basis: 'baseline', ...baseFixed },
        baselineCpuUsPerRequest: baseSat.cpuUsPerRequest,
        ratio: 1,
      },
    ]
    rss.endWindow()
    for (const target of list) {
      // The baseline again just before the route, serving the route's bytes: the ratio compares two
      // measurements taken a few seconds apart, whatever else the machine is doing.
      const adjacent = await saturate(
        baseline.url,
        { ...baselineTarget, request: { method: 'GET', path: `/${target.baselinePath}` } },
        baseline.process.pid,
      )
      log(`${target.name}: baseline ${adjacent.rps} req/s; saturation...`)
      const saturation = await saturate(app.url, target, app.process.pid)
      // Latency at half the bare server's rate, the bare server serving the same bytes (reads).
      const rate = target.ownRate
        ? Math.max(1, Math.round(saturation.rps / 2))
        : Math.max(1, Math.round(adjacent.rps / 2))
      log(`${target.name}: ${saturation.rps} req/s; at ${rate}/s...`)
      const fixed = await atRate(app.url, target, rate)
      // The bare server again, sending the app's whole response (its headers too) to the same request
      // (its token too): the floor of a read that does nothing but answer.
      const sameResponse =
        target.request.method === 'GET'
          ? await saturate(
              baseline.url,
              { ...target, request: { ...target.request, path: `/${target.baselinePath}-as-app` } },
              baseline.process.pid,
            )
          : undefined
      rows.push({
        route: target.name,
        method: target.request.method ?? 'GET',
        path: target.request.path,
        baselineRps: adjacent.rps,
        baselineCpuUsPerRequest: adjacent.cpuUsPerRequest,
        baselinePath: target.baselinePath,
        saturation,
        fixedRate: { rate, basis: target.ownRate ? 'own' : 'baseline', ...fixed },
        ...(await ownRateIfSlower(app.url, target, saturation.rps, rate)),
        ratio: round(saturation.rps / adjacent.rps, 3),
        ...(sameResponse && {
          sameResponse: {
            rps: sameResponse.rps,
            cpuUsPerRequest: sameResponse.cpuUsPerRequest,
            ratio: round(saturation.rps / sameResponse.rps, 3),
          },
        }),
        rssPeakMiB: rss.endWindow(),
      })
    }
    const mixed = await mixedRun(app, all, databaseUrl, dataset)
    const baselineRuns = rows.filter((row) => row.baselinePath === 'profile').map((row) => row.baselineRps)
    const noise = {
      baselineMinRps: Math.min(...baselineRuns),
      baselineMaxRps: Math.max(...baselineRuns),
      /** (max - min) / max of the bare server's runs on the profile's bytes during this run: the machine's noise. */
      baselineSpread: round(
        (Math.max(...baselineRuns) - Math.min(...baselineRuns)) / Math.max(...baselineRuns),
        2,
      ),
    }
    const rssPeakMiB = rss.stop()
    await app.stop()
    const cluster =
      workers > 1 ? await measureWorkers(databaseUrl, bodies, all[0] as Target, rows) : undefined
    return { rows, bodyBytes, rssPeakMiB, noise, cluster, mixed }
  } finally {
    rss.stop()
    await baseline?.stop()
    await app.stop()
    rmSync(bodyDir, { recursive: true, force: true })
  }
}

/**
 * The mixed run: the profile read at saturation while another process commits about 1,000 small writes a
 * second to the same database (bench/writer.ts), each moving SQLite's `data_version`, so that the app's
 * kept answers are read again on nearly every request. Bounded by the measurement's duration.
 */
async function mixedRun(app: Child, all: Target[], databaseUrl: string, dataset: Dataset) {
  const profile = all.find((target) => target.baselinePath === 'profile')
  if (!profile || !routeFilter.some((part) => profile.name.toLowerCase().includes(part))) return undefined
  const writer = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(here, 'writer.ts'),
      databaseUrl,
      String(dataset.orgId),
      dataset.username,
      '1000',
      String(warmup + duration + 1),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const lines = createInterface({ input: writer.stdout as NodeJS.ReadableStream })
  const outputs: { commits?: number; seconds?: number }[] = []
  const ready = new Promise<void>((resolve, reject) => {
    writer.once('exit', (code) => reject(new Error(`writer exited with ${code}`)))
    lines.on('line', (line) => {
      const parsed = JSON.parse(line) as { url?: string; commits?: number; seconds?: number }
      if (parsed.url) resolve()
      else outputs.push(parsed)
    })
  })
  try {
    await ready
    const saturation = await saturate(app.url, profile, app.process.pid)
    await once(writer, 'exit')
    const done = outputs[0]
    const commitsPerSecond = done?.commits && done.seconds ? round(done.commits / done.seconds, 0) : undefined
    log(
      `${profile.name} under ${commitsPerSecond} commits/s from another process: ${saturation.rps} req/s, ${saturation.cpuUsPerRequest} CPU us/req`,
    )
    return { route: profile.name, commitsPerSecond, ...saturation }
  } finally {
    if (writer.exitCode === null) writer.kill('SIGKILL')
  }
}

/**
 * The profile read on `serve --workers N` at saturation, next to the single process and to the bare
 * baseline on one process and on N (node:cluster). autocannon runs in this process on the same machine.
 */
async function measureWorkers(databaseUrl: string, bodies: string[], profile: Target, rows: Measurement[]) {
  const single = { baseline: rows[0]?.saturation.rps ?? 0, app: rows[1]?.saturation.rps ?? 0 }
  const baseline = await startChild('baseline.ts', ['--workers', String(workers), ...bodies], {})
  let baselineRps: number
  try {
    baselineRps = (
      await saturate(baseline.url, {
        name: 'baseline',
        baselinePath: 'profile',
        request: { method: 'GET', path: '/profile' },
      })
    ).rps
  } finally {
    await baseline.stop()
  }
  const app = await startApp(databaseUrl, {}, workers)
  let appSat: Awaited<ReturnType<typeof saturate>>
  try {
    appSat = await saturate(app.url, profile)
  } finally {
    await app.stop()
  }
  const result = {
    workers,
    cpus: os.cpus().length,
    profileRead: { singleProcess: single.app, workers: appSat.rps, p99: appSat.p99, non2xx: appSat.non2xx },
    baseline: { singleProcess: single.baseline, workers: baselineRps },
    speedup: round(appSat.rps / Math.max(single.app, 1), 2),
    ofWorkersBaseline: round(appSat.rps / Math.max(baselineRps, 1), 3),
  }
  log(`workers: ${JSON.stringify(result)}`)
  return result
}

/** Profile read latency at a fixed rate on a database of `sizes`. */
async function profileAt(sizes: DatasetSizes, rate: number) {
  const database = await freshDatabase(flags.db && isPostgresUrl(flags.db) ? flags.db : undefined)
  try {
    const dataset = await populate(database.url, sizes)
    log(`scale: ${dataset.counts.experts} experts generated in ${dataset.seconds.toFixed(1)} s`)
    const app = await startApp(database.url)
    try {
      const token = await issueToken(app.url, dataset)
      const profile = targets(dataset, token)[0] as Target
      await cannon(app.url, profile, warmup)
      await drain(app.url)
      const fixed = await atRate(app.url, profile, rate)
      return { experts: dataset.counts.experts, profileItems: dataset.counts.profileItems, rate, ...fixed }
    } finally {
      await app.stop()
    }
  } finally {
    await database.drop()
  }
}

/**
 * Builds everything as `npm start` does (the client package the server imports, the server, the
 * dashboard), so that the measured process runs plain JavaScript and serves the current dashboard.
 */
function build(): void {
  if (flags.tsx) return
  log('building the app (npm run build)...')
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: join(here, '..'), stdio: 'inherit' })
  if (result.status !== 0) throw new Error('the build failed')
}

async function main(): Promise<void> {
  build()
  const uploadsOnly = flags['uploads-only']
  const meaningOnly = flags['meaning-only']
  const only = flags['search-only'] || uploadsOnly || meaningOnly
  const report: Record<string, unknown> = only ? {} : await routesBench()
  if (!flags['no-works'] && !only) report.worksRefresh = await worksBench(report)
  if (!flags['no-search'] && !uploadsOnly && !meaningOnly) report.search = await searchBench()
  if (!flags['no-meaning'] && !flags['search-only'] && !uploadsOnly) report.meaning = await meaningBench()
  if (!flags['no-uploads'] && !flags['search-only'] && !meaningOnly)
    report.uploads = await uploadsBench({ startApp: (url, env) => startApp(url, env), log, quick })
  const out = join(here, 'results.json')
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
  log(`written ${out}`)
}

/** Experts and works per refresh measurement: a few seconds at ORCID's pacer (two requests per expert). */
const WORKS_BENCH = { experts: 20, works: 10 }

/**
 * The works refresh throughput (bench/works-refresh.ts) on its own fresh database, printed beside the
 * profile read's ratio to the bare baseline from the route measurements of the same run.
 */
async function worksBench(report: Record<string, unknown>): Promise<Record<string, unknown>> {
  log(`works refresh: ${WORKS_BENCH.experts} experts of ${WORKS_BENCH.works} works each...`)
  const { complete, ...figures } = await measureWorksRefresh({ db: flags.db, ...WORKS_BENCH })
  if (!complete)
    throw new Error(`the works refresh benchmark stored less than it was given: ${JSON.stringify(figures)}`)
  const results = Array.isArray(report.results) ? report.results : []
  const profile: unknown = results.find((row: unknown) => isObject(row) && row.route === 'GET expert profile')
  const profileRatio = isObject(profile) && typeof profile.ratio === 'number' ? profile.ratio : undefined
  console.log(
    `\nworks refresh (${figures.dialect}, ${figures.experts} experts, ${figures.works_created} works, ORCID stand-in): ` +
      `${figures.experts_per_second} experts/s, ${figures.works_per_second} works/s` +
      (profileRatio === undefined
        ? ''
        : `; profile read in this run: ${profileRatio.toFixed(2)}x of the bare baseline`),
  )
  return { ...figures, ...(profileRatio === undefined ? {} : { profileReadRatio: profileRatio }) }
}

async function routesBench(): Promise<Record<string, unknown>> {
  const sizes: DatasetSizes = quick
    ? { fullExperts: 500, lightExperts: 0, posts: 100, questions: 100 }
    : { fullExperts: 10_000, lightExperts: 0, posts: 1000, questions: 1000 }
  const database = await freshDatabase(flags.db)
  const started = new Date().toISOString()
  let report: Record<string, unknown>
  try {
    log(`dataset: generating on ${database.dialect}...`)
    const dataset = await populate(database.url, sizes)
    log(
      `dataset: ${dataset.counts.experts} experts, ${dataset.counts.profileItems} profile items, ` +
        `${dataset.counts.posts} posts, ${dataset.counts.questions} questions in ${dataset.seconds.toFixed(1)} s`,
    )
    const fsync = database.dialect === 'sqlite' ? fsyncLatency(dirname(database.url)) : undefined
    if (fsync) log(`fsync: ${JSON.stringify(fsync)}`)
    const { rows, bodyBytes, rssPeakMiB, noise, cluster } = await measureRoutes(dataset, database.url)
    report = {
      started,
      machine: {
        cpu: os.cpus()[0]?.model ?? 'unknown',
        cpus: os.cpus().length,
        memoryGb: round(os.totalmem() / 2 ** 30),
        os: `${os.type()} ${os.release()}`,
        node: process.version,
      },
      dialect: database.dialect,
      settings: { durationSeconds: duration, connections, rateConnections, warmupSeconds: warmup, quick },
      dataset: {
        ...dataset.counts,
        generationSeconds: round(dataset.seconds),
        measuredExpert: dataset.username,
      },
      profileBodyBytes: bodyBytes,
      fsync,
      results: rows,
      rssPeakMiB,
      noise,
      ...(cluster ? { workers: cluster } : {}),
    }
    console.log(
      `\n${database.dialect}, ${connections} connections at saturation, ${rateConnections} at a fixed rate, ` +
        `${duration} s per measurement`,
    )
    console.log(table(rows))
    console.log(
      `app peak RSS ${rssPeakMiB ?? '?'} MiB; bare baseline ${noise.baselineMinRps}-${noise.baselineMaxRps} req/s ` +
        `on the profile's bytes across the run (spread ${Math.round(noise.baselineSpread * 100)}%)`,
    )
    console.log(goals(database.dialect, rows, rssPeakMiB))
    if (cluster)
      console.log(
        `\nprofile read, ${cluster.workers} workers: ${cluster.profileRead.workers} req/s ` +
          `(1 process: ${cluster.profileRead.singleProcess}, ${cluster.speedup}x); bare baseline ` +
          `${cluster.baseline.workers} req/s on ${cluster.workers} workers (1 process: ${cluster.baseline.singleProcess}); ` +
          `${cluster.ofWorkersBaseline}x of it, on ${cluster.cpus} CPUs shared with autocannon`,
      )
    if (fsync)
      console.log(`fsync (4 KiB, database directory): mean ${fsync.meanMs} ms, p99 ${fsync.p99Ms} ms`)
  } finally {
    await database.drop()
  }

  if (flags.scale) {
    // Service latency, not queueing: half the rate the profile read sustained in the main run.
    const profile = (report.results as Measurement[]).find((row) => row.route === 'GET expert profile')
    if (!profile) throw new Error('--scale needs the profile route')
    const rate = Math.max(1, Math.round(profile.saturation.rps / 2))
    const small = await profileAt({ fullExperts: 1000, lightExperts: 0, posts: 1000, questions: 1000 }, rate)
    const large = await profileAt(
      { fullExperts: 0, lightExperts: 100_000, posts: 1000, questions: 1000 },
      rate,
    )
    report.scale = {
      note:
        'profile read of the same fully filled expert at half the rate the profile read sustained in the ' +
        'main run; at 100,000 experts the others ' +
        'carry a few sections each (biography, tagline, topic, language, education)',
      small,
      large,
      p50Ratio: round(large.p50 / Math.max(small.p50, 0.001), 2),
    }
    console.log(
      `\nscale (${rate}/s): ${small.experts} experts p50 ${small.p50} ms p99 ${small.p99} ms; ` +
        `${large.experts} experts p50 ${large.p50} ms p99 ${large.p99} ms; ratio ${(report.scale as { p50Ratio: number }).p50Ratio}`,
    )
  }
  return report
}

// --- search ----------------------------------------------------------------------------------------

/** The five search requests of docs/performance.md, each a path generator (varied values, same shape). */
function searchQueries(dataset: SearchDataset): { name: string; path: (i: number) => string }[] {
  const base = `/v2/organization/${dataset.orgId}/expert`
  const at = <T>(list: readonly T[], i: number) => list[i % list.length] as T
  const q = (value: string) => `${base}?q=${encodeURIComponent(value)}`
  return [
    { name: '(a) surname', path: (i) => q(at(dataset.surnames, i)) },
    { name: '(b) one-word topic', path: (i) => q(at(dataset.disciplines, i).toLowerCase()) },
    { name: '(c) two-letter prefix', path: (i) => q(at(['ma', 'ka', 're', 'st', 'lo', 'de'], i)) },
    {
      name: '(d) three facet filters',
      path: (i) => {
        const { countries, topics, industries } = dataset.filters
        const params = new URLSearchParams({
          countries: at(countries, i),
          topics: at(topics, i * 7),
          industries: at(industries, i * 3),
        })
        return `${base}?${params}`
      },
    },
    { name: '(e) no parameters', path: () => base },
  ]
}

/** Runs `paths` against `base`; each request takes the next path. */
function cannonPaths(
  base: string,
  auth: string,
  paths: (i: number) => string,
  seconds: number,
  conns: number,
) {
  let i = 0
  return autocannon({
    url: `${base}${paths(0)}`,
    headers: { authorization: auth },
    connections: conns,
    duration: seconds,
    timeout: 30,
    requests: [{ setupRequest: (request: object) => ({ ...request, path: paths(i++) }) }],
  })
}

/**
 * Search at 1,000 and 100,000 experts: p50/p99 of each request with one connection (service time, no
 * queueing) and, at 1,000 experts, requests/s at saturation against the bare baseline serving the
 * bytes of the unfiltered search response.
 */
async function searchBench(): Promise<Record<string, unknown>> {
  const sizes = quick ? [1000] : [1000, 100_000]
  const runs: Record<string, unknown>[] = []
  for (const size of sizes) {
    const database = await freshDatabase(flags.db)
    try {
      log(`search: generating ${size} experts on ${database.dialect}...`)
      const handle = openDatabase(database.url)
      let dataset: SearchDataset
      try {
        await migrateToLatest(handle.db)
        dataset = await buildSearchDataset(handle.db, size, Date.now())
        await handle.refreshStatistics()
      } finally {
        await handle.close()
      }
      log(`search: ${size} experts indexed in ${dataset.seconds.toFixed(1)} s`)
      const app = await startApp(database.url)
      try {
        const auth = `Bearer ${await issueToken(app.url, dataset)}`
        const latency: Record<string, unknown>[] = []
        for (const query of searchQueries(dataset)) {
          const check = await getJson(`${app.url}${query.path(0)}`, { headers: { authorization: auth } })
          if (check.status !== 200)
            throw new Error(`${query.name}: ${check.status} ${check.text.slice(0, 200)}`)
          await cannonPaths(app.url, auth, query.path, warmup, 1)
          const result = await cannonPaths(app.url, auth, query.path, duration, 1)
          const total = (JSON.parse(check.text) as { data: { total: number } }).data.total
          const cold = await coldLatency(database.url, app.url, auth, dataset, query.path)
          latency.push({
            query: query.name,
            total,
            p50: result.latency.p50,
            p99: result.latency.p99,
            non2xx: result.non2xx,
            cold,
          })
          log(
            `search ${size}: ${query.name} (${total} matches) p50 ${result.latency.p50} ms p99 ${result.latency.p99} ms; ` +
              `after a write: p50 ${cold.p50} ms max ${cold.max} ms (${cold.samples} requests)`,
          )
        }
        const run: Record<string, unknown> = {
          experts: size,
          dialect: database.dialect,
          indexSeconds: round(dataset.seconds),
          latency,
        }
        if (size === sizes[0]) run.throughput = await searchThroughput(app.url, auth, dataset)
        runs.push(run)
      } finally {
        await app.stop()
      }
    } finally {
      await database.drop()
    }
  }
  console.log(
    `\nsearch (${duration} s per measurement; latency with 1 connection, throughput with ${connections})`,
  )
  for (const run of runs) {
    for (const row of run.latency as {
      query: string
      total: number
      p50: number
      p99: number
      cold: { p50: number; max: number }
    }[])
      console.log(
        `${run.experts} experts  ${row.query.padEnd(26)} ${String(row.total).padStart(7)} matches  p50 ${row.p50} ms  p99 ${row.p99} ms` +
          `  after a write: p50 ${row.cold.p50} ms  max ${row.cold.max} ms`,
      )
    for (const row of (run.throughput ?? []) as { query: string; rps: number; ratio: number }[])
      console.log(`${run.experts} experts  ${row.query.padEnd(26)} ${row.rps} req/s  ${row.ratio}x baseline`)
  }
  return { runs }
}

/**
 * The latency of a request whose results are not kept yet: each request follows a raise of the
 * organization's index version (what any write to its experts does), so the app evaluates it afresh.
 * Sequential, one connection; up to 20 requests or the run's duration.
 */
async function coldLatency(
  databaseUrl: string,
  appUrl: string,
  auth: string,
  dataset: SearchDataset,
  path: (i: number) => string,
) {
  const handle = openDatabase(databaseUrl)
  const times: number[] = []
  try {
    const deadline = performance.now() + duration * 1000
    for (let i = 0; i < 20 && (times.length < 5 || performance.now() < deadline); i++) {
      await bumpExpertSearchVersion(handle.db, dataset.orgId)
      const started = performance.now()
      const response = await getJson(`${appUrl}${path(i)}`, { headers: { authorization: auth } })
      times.push(performance.now() - started)
      if (response.status !== 200) throw new Error(`cold search: ${response.status}`)
    }
  } finally {
    await handle.close()
  }
  times.sort((a, b) => a - b)
  return {
    samples: times.length,
    p50: round(times[Math.floor(times.length / 2)] ?? 0, 0),
    max: round(times[times.length - 1] ?? 0, 0),
  }
}

async function searchThroughput(appUrl: string, auth: string, dataset: SearchDataset) {
  const queries = searchQueries(dataset)
  const unfiltered = queries[queries.length - 1] as (typeof queries)[number]
  const body = await getJson(`${appUrl}${unfiltered.path(0)}`, { headers: { authorization: auth } })
  const bodyDir = mkdtempSync(join(os.tmpdir(), 'expertdir-bench-search-'))
  const bodyFile = join(bodyDir, 'search.json')
  writeFileSync(bodyFile, body.text)
  const baseline = await startChild('baseline.ts', [bodyFile], {})
  try {
    const baseSat = await saturate(baseline.url, {
      name: 'baseline',
      baselinePath: 'profile',
      request: { method: 'GET', path: '/' },
    })
    const rows: Record<string, unknown>[] = [{ query: 'baseline (node:http)', rps: baseSat.rps, ratio: 1 }]
    for (const query of queries) {
      await cannonPaths(appUrl, auth, query.path, warmup, connections)
      const result = await cannonPaths(appUrl, auth, query.path, duration, connections)
      const rps = round(result.requests.average, 0)
      rows.push({ query: query.name, rps, ratio: round(rps / baseSat.rps, 3), non2xx: result.non2xx })
      log(`search throughput: ${query.name} ${rps} req/s`)
    }
    return rows
  } finally {
    await baseline.stop()
    rmSync(bodyDir, { recursive: true, force: true })
  }
}

// --- finding by meaning ----------------------------------------------------------------------------

/** Requests measured per route and size at most: with `duration` seconds, what bounds the run. */
const MEANING_REQUESTS = 500

/**
 * Similar experts and experts for a 2,000-character text at 10,000 and 100,000 experts (bench/meaning.ts):
 * p50/p99 one request at a time and the app's CPU time per request. Goals (issue 41), at 100,000:
 * similar p99 <= 50 ms, text p99 <= 100 ms.
 */
async function meaningBench(): Promise<Record<string, unknown>> {
  const sizes = flags['meaning-sizes']
    ? flags['meaning-sizes'].split(',').map((part) => Number(part.trim()))
    : quick
      ? [1000]
      : [10_000, 100_000]
  if (sizes.some((size) => !Number.isInteger(size) || size < 1))
    throw new Error('--meaning-sizes takes positive integers (10000,100000)')
  const runs: {
    experts: number
    works: number
    dialect: string
    /** Seconds the organization took to make, or undefined when an earlier run's was reused. */
    derivedSeconds: number | undefined
    similar: Latency
    match: Latency
  }[] = []
  const reuse = flags['meaning-reuse'] ?? false
  if (reuse && !flags.db) throw new Error('--meaning-reuse needs --db (the SQLite file or database to keep)')
  for (const size of sizes) {
    const database = reuse && flags.db ? await keptDatabase(flags.db) : await freshDatabase(flags.db)
    try {
      const handle = openDatabase(database.url)
      let dataset: MeaningDataset
      let reused = false
      try {
        const applied = await migrateToLatest(handle.db)
        const kept = reuse ? await keptMeaningDataset(handle.db, size, Date.now()) : undefined
        if (kept) {
          log(`meaning: reusing organization ${kept.orgId} (${size} experts) on ${database.dialect}`)
          dataset = kept
          reused = true
        } else {
          log(`meaning: generating ${size} experts with works on ${database.dialect}...`)
          dataset = await buildMeaningDataset(handle.db, size, Date.now())
          log(`meaning: ${size} experts, ${dataset.works} works, derived in ${dataset.seconds.toFixed(1)} s`)
        }
        if (!kept || applied.length > 0) await handle.refreshStatistics()
      } finally {
        await handle.close()
      }
      const app = await startApp(database.url)
      try {
        const auth = `Bearer ${await issueToken(app.url, dataset)}`
        const base = `${app.url}/v2/organization/${dataset.orgId}/expert`
        const at = (list: readonly string[], i: number) => list[i % list.length] ?? ''
        const bounds = {
          maxRequests: MEANING_REQUESTS,
          seconds: duration,
          warmup: 5,
          cpuSeconds: () => cpuSeconds(app.process.pid),
        }
        const similar = await measureSequential(async (i) => {
          const response = await getJson(`${base}/${at(dataset.usernames, i)}/similar?limit=10`, {
            headers: { authorization: auth },
          })
          return response.status
        }, bounds)
        log(`meaning ${size}: similar p50 ${similar.p50} ms p99 ${similar.p99} ms`)
        const match = await measureSequential(async (i) => {
          const response = await getJson(`${base}/match`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: JSON.stringify({ text: at(dataset.texts, i), limit: 10 }),
          })
          return response.status
        }, bounds)
        log(`meaning ${size}: text p50 ${match.p50} ms p99 ${match.p99} ms`)
        runs.push({
          experts: size,
          works: dataset.works,
          dialect: database.dialect,
          derivedSeconds: reused ? undefined : round(dataset.seconds),
          similar,
          match,
        })
      } finally {
        await app.stop()
      }
    } finally {
      await database.drop()
    }
  }
  console.log(
    `\nfinding by meaning (one request at a time, at most ${MEANING_REQUESTS} or ${duration} s each)`,
  )
  for (const run of runs) {
    const line = (name: string, { requests, p50, p99, cpuMsPerRequest }: Latency) => {
      console.log(
        `${run.experts} experts  ${name.padEnd(34)} p50 ${p50} ms  p99 ${p99} ms  cpu ${cpuMsPerRequest ?? '?'} ms/request  (${requests} requests)`,
      )
    }
    line('similar experts', run.similar)
    line(`experts for a ${TEXT_CHARACTERS}-character text`, run.match)
  }
  console.log('goals at 100,000 experts: similar p99 <= 50 ms, text p99 <= 100 ms')
  return { runs }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  },
)
