import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { backupCommands } from './commands/backup.js'
import { clientCommands } from './commands/clients.js'
import { contentCommands } from './commands/content.js'
import { embeddingsCommands } from './commands/embeddings.js'
import { inquiryCommands } from './commands/inquiries.js'
import { mediaCommands } from './commands/media.js'
import { organizationCommands } from './commands/organizations.js'
import { peopleCommands } from './commands/people.js'
import { searchCommands } from './commands/search.js'
import { serverCommands } from './commands/server.js'
import { ssoCommands } from './commands/sso.js'
import { worksCommands } from './commands/works.js'
import { CliError, type CliIo, createCli, type GlobalOptions, UsageError } from './output.js'

/** Exit codes: 0 ok, 1 the operation failed, 2 usage error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

/** The package's version; the sources, tsc's output and the bundle all sit two folders below package.json. */
function packageVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
  return typeof manifest === 'object' && manifest !== null && 'version' in manifest
    ? String(manifest.version)
    : 'unknown'
}

/** The `expertdir` command tree, writing to `io` (a fresh one per run: commander keeps parsed state). */
export function buildProgram(io: CliIo): Command {
  const program = new Command()
    .name('expertdir')
    .description('Expert Directory Service: server and operator commands')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .option(
      '--db <url>',
      'database: an SQLite file path or a postgres:// URL (default: DATABASE_URL or ./data/expertdir.sqlite)',
    )
    // Set before the subcommands are added: they inherit the output and the exit override.
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError()
    .exitOverride()
  const cli = createCli(io, () => program.opts<GlobalOptions>())
  serverCommands(program, cli)
  organizationCommands(program, cli)
  clientCommands(program, cli)
  peopleCommands(program, cli)
  ssoCommands(program, cli)
  contentCommands(program, cli)
  inquiryCommands(program, cli)
  searchCommands(program, cli)
  backupCommands(program, cli)
  mediaCommands(program, cli)
  worksCommands(program, cli)
  embeddingsCommands(program, cli)
  return program
}

/**
 * Runs the CLI on `argv` (the arguments after the program name) and resolves with its exit code
 * instead of exiting, so that tests run it in-process. `serve` resolves once the server listens; the
 * process then lives on until a signal closes the server.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync([...argv], { from: 'user' })
    return EXIT.ok
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage
    const message = error instanceof CliError || error instanceof Error ? error.message : String(error)
    io.stderr.write(`error: ${message}\n`)
    return error instanceof UsageError ? EXIT.usage : EXIT.failed
  }
}
