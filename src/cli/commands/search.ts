import type { Command } from 'commander'
import { rebuildSearchIndexes } from '../../derived/search-rebuild.js'
import { findOrganization } from '../../organizations/repository.js'
import { type Cli, CliError, positiveInt } from '../output.js'

/** `expertdir search rebuild`: refills the search index from the tables. */
export function searchCommands(program: Command, cli: Cli): void {
  const search = program.command('search').description('The search index')

  search
    .command('rebuild')
    .description(
      'Rebuild the search index of every organization (or of --org) from the stored experts, posts and questions',
    )
    .option('--org <id>', 'only this organization', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org?: number; json?: boolean }) => {
      const began = Date.now()
      const rebuilt = await cli.withDatabase(async ({ db }) => {
        if (options.org === undefined) return rebuildSearchIndexes(db)
        if (!(await findOrganization(db, options.org))) throw new CliError(`No organization ${options.org}`)
        return rebuildSearchIndexes(db, [options.org])
      })
      const durationMs = Date.now() - began
      cli.report(
        options.json,
        { rebuilt, duration_ms: durationMs },
        () => `Rebuilt the search index of ${rebuilt.length} organization(s) in ${durationMs} ms.`,
      )
    })
}
