import { type ChildProcess, spawn } from 'node:child_process'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { runCli as runProgram } from '../../src/cli/program.js'
import { eventually } from './eventually.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const ENTRY = 'src/cli/main.ts'

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** A stream that keeps what is written to it. */
function collector(): { stream: Writable; text(): string } {
  let text = ''
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk
      done()
    },
  })
  return { stream, text: () => text }
}

/**
 * Runs the CLI in this process (`runCli` of src/cli/program.ts) with its own stdout and stderr and an
 * environment of `env` only (and `stdin` as its standard input), and collects its output and exit code. Not for `serve`: use
 * `spawnCli` or `startServerProcess`.
 */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  stdin?: string,
): Promise<CliResult> {
  const stdout = collector()
  const stderr = collector()
  const code = await runProgram(args, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { ...env },
    ...(stdin === undefined ? {} : { stdin: Readable.from([stdin]) }),
  })
  return { code, stdout: stdout.text(), stderr: stderr.text() }
}

/** Runs the real CLI entry (through tsx) in a child process: the smoke tests of the binary itself. */
export function runCliProcess(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env)
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/**
 * Starts the real CLI entry as a child process (for `serve`); DATABASE_URL of the test run is not
 * passed on. `stdin: true` gives it a standard input to write to (`--password-stdin`); `preload`
 * names further modules to `--import` into it (after tsx); `entry` runs a built entry (the bundle) instead
 * of the source.
 */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
  options: { stdin?: boolean; preload?: string[]; entry?: string } = {},
): ChildProcess {
  const preloads = (options.preload ?? []).flatMap((module) => ['--import', module])
  return spawn(process.execPath, ['--import', 'tsx', ...preloads, options.entry ?? ENTRY, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', ...env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  })
}

/**
 * Resolves with everything printed on stdout once `pattern` has appeared in it. `timeoutMs` only bounds
 * a hang: a process starting through tsx next to the rest of the suite may take tens of seconds.
 */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(
      () => reject(new Error(`timed out waiting for ${pattern}; got: ${output}`)),
      timeoutMs,
    )
    child.stdout?.on('data', (chunk) => {
      output += chunk
      if (pattern.test(output)) {
        clearTimeout(timer)
        resolve(output)
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code} before printing ${pattern}; got: ${output}`))
    })
  })
}

export interface ServerProcess {
  child: ChildProcess
  base: string
  exited: Promise<number | null>
  /** Everything the process printed so far (stdout and stderr). */
  output(): string
}

/** What `serve` prints once it listens, with the address the system chose for `PORT=0`. */
const LISTENING = /^Listening on (http:\/\/\S+)$/m

/**
 * Starts the real `expertdir serve` on 127.0.0.1 (no SMTP, rate limits off unless `env` says
 * otherwise) and resolves once it listens. It binds port 0 and reports the port it got, so servers
 * started by test files running side by side can never be handed the same port (the demo stores its
 * pictures' addresses once it listens, under the port it got).
 */
export async function startServerProcess(
  databaseUrl: string,
  extra: { args?: string[]; env?: Record<string, string>; preload?: string[]; entry?: string } = {},
): Promise<ServerProcess> {
  const child = spawnCli(
    ['--db', databaseUrl, 'serve', ...(extra.args ?? [])],
    {
      HOST: '127.0.0.1',
      PORT: '0',
      EXPERTDIR_SMTP_URL: '',
      EXPERTDIR_RATE_LIMIT_TOKEN: '0',
      EXPERTDIR_RATE_LIMIT_API: '0',
      ...extra.env,
    },
    { preload: extra.preload ?? [], ...(extra.entry ? { entry: extra.entry } : {}) },
  )
  let output = ''
  const collect = (chunk: Buffer) => {
    output += chunk
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const base = await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`server exited during start: ${output}`)
      return LISTENING.exec(output)?.[1]
    },
    { what: 'the server listens', timeoutMs: 120_000, intervalMs: 100, detail: () => output },
  )
  return { child, base, exited, output: () => output }
}
