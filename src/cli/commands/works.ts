import type { Command } from 'commander'
import { cliTrail } from '../../audit/actor.js'
import { findExpert } from '../../experts/repository.js'
import { findOrganization } from '../../organizations/repository.js'
import { createWorksSchedule, refreshExpertsNow } from '../../works/schedule.js'
import { type Cli, CliError, positiveInt } from '../output.js'

/** `expertdir works ...`: the works importer (CONTRACT §19, docs/works.md). */
export function worksCommands(program: Command, cli: Cli): void {
  const works = program.command('works').description('Publications imported from scholarly sources')

  works
    .command('refresh')
    .description(
      'Refresh now the works of every expert with an identifier (or of --org, or of one --expert of --org), whatever the schedule',
    )
    .option('--org <id>', 'only this organization', positiveInt('--org'))
    .option('--expert <username>', 'only this expert (needs --org)')
    .option('--json', 'print one JSON object')
    .action(async (options: { org?: number; expert?: string; json?: boolean }) => {
      if (options.expert !== undefined && options.org === undefined)
        throw new CliError('--expert needs --org: usernames are per organization')
      const result = await cli.withDatabase(async (database) => {
        const { db } = database
        if (options.org !== undefined && !(await findOrganization(db, options.org)))
          throw new CliError(`No organization ${options.org}`)
        if (
          options.org !== undefined &&
          options.expert !== undefined &&
          !(await findExpert(db, options.org, options.expert))
        )
          throw new CliError(`No expert ${options.expert} in organization ${options.org}`)
        const schedule = createWorksSchedule({ db, dialect: database.dialect, sources: [] })
        try {
          return await refreshExpertsNow(schedule, db, {
            orgId: options.org,
            username: options.expert,
            trail: cliTrail('works refresh'),
          })
        } finally {
          await schedule.stop()
        }
      })
      cli.report(options.json, result, () =>
        [
          `Refreshed ${result.runs.length} expert(s).`,
          ...result.runs.map(
            (run) =>
              `${run.username}: ${run.counts.found} found, ${run.counts.created} new, ${run.counts.claimed} claimed, ${run.counts.pending} pending${run.errors.length > 0 ? `; errors: ${run.errors.map((e) => `${e.source}: ${e.message}`).join('; ')}` : ''}`,
          ),
          ...(result.busy.length > 0 ? [`Already being refreshed elsewhere: ${result.busy.join(', ')}`] : []),
        ].join('\n'),
      )
    })
}
