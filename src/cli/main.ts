#!/usr/bin/env node
import { Command, CommanderError } from 'commander'
import { backupCommands } from './commands/backup.js'
import { clientCommands } from './commands/clients.js'
import { contentCommands } from './commands/content.js'
import { inquiryCommands } from './commands/inquiries.js'
import { organizationCommands } from './commands/organizations.js'
import { serverCommands } from './commands/server.js'
import { CliError, type GlobalOptions, UsageError } from './output.js'

/** Exit codes: 0 ok, 1 the operation failed, 2 usage error. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const

const program = new Command()
  .name('expertdir')
  .description('Expert Directory Service: server and operator commands')
  .option(
    '--db <url>',
    'database: an SQLite file path or a postgres:// URL (default: DATABASE_URL or ./data/expertdir.sqlite)',
  )
  .showHelpAfterError()
  .exitOverride()

const globals = (): GlobalOptions => program.opts<GlobalOptions>()
serverCommands(program, globals)
organizationCommands(program, globals)
clientCommands(program, globals)
contentCommands(program, globals)
inquiryCommands(program, globals)
backupCommands(program, globals)
for (const command of program.commands) command.exitOverride()

try {
  await program.parseAsync()
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage
  } else if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`)
    process.exitCode = EXIT.usage
  } else {
    const message = error instanceof CliError || error instanceof Error ? error.message : String(error)
    process.stderr.write(`error: ${message}\n`)
    process.exitCode = EXIT.failed
  }
}
