/**
 * `npm run bench:import`: the bulk import at scale (docs/performance.md, "Bulk import"). It writes NDJSON
 * files of experts (bench/people-file.ts: realistic names, a tagline, a biography and 2-4 topics each),
 * then runs `expertdir import` on each in its own process against a fresh database, and reports the
 * seconds and the process's peak RSS. Every run is bounded by --timeout and killed past it.
 *
 *   --size N        experts of the large run (default 100000)
 *   --same N        experts of the same-name run and of its distinct-name twin (default 6000; 0 skips them)
 *   --db WHICH      sqlite, postgres or both (default both)
 *   --pg URL        PostgreSQL server to create the fresh databases on (default postgres://postgres@127.0.0.1:5432/postgres)
 *   --timeout S     longest a run may take before it is killed (default 900)
 *   --tsx           run the CLI from the sources through tsx instead of the build (dist/)
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { writePeopleFile } from './people-file.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values: flags } = parseArgs({
  options: {
    size: { type: 'string', default: '100000' },
    same: { type: 'string', default: '6000' },
    db: { type: 'string', default: 'both' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    timeout: { type: 'string', default: '900' },
    tsx: { type: 'boolean', default: false },
  },
})
const size = Number(flags.size)
const same = Number(flags.same)
const timeoutMs = Number(flags.timeout) * 1000
const dialects = flags.db === 'both' ? ['sqlite', 'postgres'] : [flags.db ?? 'sqlite']

if (!flags.tsx && !existsSync(join(root, 'dist/bundle/expertdir.js'))) {
  console.log('building (npm run build) ...')
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' })
  if (build.status !== 0) throw new Error('npm run build failed')
}
const cli = flags.tsx
  ? ['--import', 'tsx', join(root, 'src/cli/main.ts')]
  : [join(root, 'dist/bundle/expertdir.js')]

interface Database {
  url: string
  drop(): Promise<void>
}

async function freshDatabase(dialect: string, dir: string, label: string): Promise<Database> {
  if (dialect === 'sqlite') {
    const file = join(dir, `${label}.sqlite`)
    return { url: file, drop: async () => rmSync(file, { force: true }) }
  }
  const name = `expertdir_bulk_${process.pid}_${label.replace(/\W/g, '_')}`
  const admin = new pg.Client({ connectionString: flags.pg })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(flags.pg ?? '')
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: flags.pg })
      await cleanup.connect()
      await cleanup.query(`drop database if exists ${name} with (force)`)
      await cleanup.end()
    },
  }
}

/** The peak RSS of a running process so far (Linux: VmHWM), in MiB; 0 where /proc is not there. */
function peakRss(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : 0
  } catch {
    return 0
  }
}

/** CPU seconds (user + system) a running process has used so far (Linux: /proc/PID/stat, 100 ticks a second). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/**
 * Runs the CLI with `args`; its seconds, its CPU seconds and peak RSS (sampled every 50 ms: on a loaded
 * machine the CPU seconds say more than the wall clock) and what it printed.
 */
function runCli(
  args: string[],
  databaseUrl: string,
): Promise<{ seconds: number; cpu: number; rssMiB: number; out: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...cli, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
    })
    child.stderr.on('data', (chunk) => {
      err += chunk
    })
    let rssMiB = 0
    let cpu = 0
    const sampler = setInterval(() => {
      if (!child.pid) return
      rssMiB = Math.max(rssMiB, peakRss(child.pid))
      cpu = Math.max(cpu, cpuSeconds(child.pid))
    }, 50)
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (code, signal) => {
      clearInterval(sampler)
      clearTimeout(killer)
      const seconds = (performance.now() - started) / 1000
      if (code === 0) resolve({ seconds, cpu, rssMiB, out })
      else
        reject(
          new Error(
            `expertdir ${args[0]} ${signal ? `killed (${signal}, over the timeout?)` : `exited ${code}`}: ${err}`,
          ),
        )
    })
  })
}

async function importRun(dialect: string, dir: string, label: string, file: string) {
  const database = await freshDatabase(dialect, dir, label)
  try {
    await runCli(['migrate', '--json'], database.url)
    await runCli(['org', 'create', '--name', 'Bench', '--json'], database.url)
    const first = await runCli(['import', file, '--org', '1', '--json'], database.url)
    const again = await runCli(['import', file, '--org', '1', '--json'], database.url)
    const row = (run: typeof first, what: string) =>
      `${dialect.padEnd(8)} ${label.padEnd(22)} ${what.padEnd(9)} ${run.seconds.toFixed(1).padStart(7)} s ${run.cpu.toFixed(1).padStart(6)} s ${run.rssMiB.toFixed(0).padStart(6)} MiB  ${run.out.trim().slice(0, 60)}`
    console.log(row(first, 'import'))
    console.log(row(again, 're-import'))
  } finally {
    await database.drop()
  }
}

const dir = mkdtempSync(join(os.tmpdir(), 'expertdir-bulk-'))
try {
  console.log(
    `load average before: ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} (${os.cpus().length} cores)`,
  )
  const files: [string, string][] = []
  if (size > 0) {
    const file = join(dir, `people-${size}.ndjson`)
    await writePeopleFile(file, size)
    files.push([`${size} experts`, file])
  }
  if (same > 0) {
    const sameFile = join(dir, `same-${same}.ndjson`)
    const distinctFile = join(dir, `distinct-${same}.ndjson`)
    await writePeopleFile(sameFile, same, { sameName: true })
    await writePeopleFile(distinctFile, same, { seed: 2 })
    files.push([`${same} same-named`, sameFile], [`${same} distinct`, distinctFile])
  }
  console.log('dialect  file                   run        wall      CPU   peak RSS')
  for (const dialect of dialects)
    for (const [label, file] of files) await importRun(dialect, dir, label, file)
  console.log(
    `load average after: ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
