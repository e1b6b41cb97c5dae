import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const ENTRY = 'src/cli/main.ts'

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the real CLI entry (through tsx) and collects its output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
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

/** Starts the real CLI entry as a child process (for `serve`). */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Resolves with everything printed on stdout once `pattern` has appeared in it. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
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

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net')
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}
