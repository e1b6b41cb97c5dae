import type { Command } from 'commander'
import { collectGarbage, DEFAULT_GRACE_MS } from '../../media/gc.js'
import { openStorage } from '../../storage/open.js'
import { type Cli, positiveInt } from '../output.js'

/** `expertdir media gc`: deletes stored photos and documents that no record points to. */
export function mediaCommands(program: Command, cli: Cli): void {
  const media = program.command('media').description('Stored photos and documents')

  media
    .command('gc')
    .description(
      'Delete stored files no record points to (left by deletes while the storage was unreachable, interrupted uploads, unused documents) once they are older than the grace period',
    )
    .option(
      '--grace-hours <n>',
      'keep unreferenced files younger than this (default 24)',
      positiveInt('--grace-hours'),
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { graceHours?: number; json?: boolean }) => {
      const config = cli.config()
      const storage = openStorage(config)
      try {
        const graceMs = options.graceHours === undefined ? DEFAULT_GRACE_MS : options.graceHours * 3600 * 1000
        const report = await cli.withDatabase(({ db }) => collectGarbage(db, storage, Date.now(), graceMs))
        cli.report(
          options.json,
          { ...report, location: storage.location },
          () =>
            `Removed ${report.removed} unreferenced file(s) from ${storage.location}; ${report.kept} kept.`,
        )
      } finally {
        await storage.close()
      }
    })
}
