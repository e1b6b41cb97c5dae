import cliProgress from 'cli-progress'
import type { Command } from 'commander'
import { BackupRefused, backupSqlite } from '../../db/backup.js'
import { mediaLocation } from '../../storage/open.js'
import { type Cli, CliError } from '../output.js'

/** `expertdir backup FILE`: an online copy of the SQLite database (PostgreSQL: pg_dump). */
export function backupCommands(program: Command, cli: Cli): void {
  program
    .command('backup')
    .description('Copy the SQLite database to FILE while it serves (PostgreSQL: use pg_dump)')
    .argument('<file>', 'the file to write the copy to')
    .option('--force', 'replace FILE if it exists')
    .option('--json', 'print one JSON object')
    .action(async (file: string, options: { force?: boolean; json?: boolean }) => {
      const config = cli.config()
      const bar =
        cli.io.stderr.isTTY && !options.json
          ? new cliProgress.SingleBar(
              {
                stream: cli.io.stderr,
                format: 'backing up [{bar}] {percentage}% of {total} pages',
                hideCursor: true,
              },
              cliProgress.Presets.shades_classic,
            )
          : undefined
      let started = false
      const began = Date.now()
      try {
        // No migration first: a backup taken before an upgrade must be of the database as it is.
        const result = await backupSqlite(config.databaseUrl, file, {
          overwrite: options.force === true,
          busyTimeoutMs: config.sqliteBusyTimeoutMs,
          onProgress: ({ totalPages, remainingPages }) => {
            if (!started) bar?.start(totalPages, 0)
            started = true
            bar?.setTotal(totalPages)
            bar?.update(totalPages - remainingPages)
          },
        })
        bar?.stop()
        const durationMs = Date.now() - began
        const media = mediaLocation(config)
        cli.report(
          options.json,
          { ...result, duration_ms: durationMs, media },
          () =>
            `Backed up ${result.pages} pages (${result.bytes} bytes) to ${result.file} in ${durationMs} ms.\n` +
            `Photos and documents are not in this copy: they live in ${media}. Back them up too (docs/deploy.md, "Backups").`,
        )
      } catch (error) {
        bar?.stop()
        if (error instanceof BackupRefused)
          throw new CliError(`${error.message} Photos and documents live in ${mediaLocation(config)}.`)
        throw error
      }
    })
}
