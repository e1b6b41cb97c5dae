import type { Command } from 'commander'
import { cliTrail } from '../../audit/actor.js'
import { findExpert } from '../../experts/repository.js'
import { findOrganization } from '../../organizations/repository.js'
import { createWorksSchedule, refreshExpertsNow, scheduleTiming } from '../../works/schedule.js'
import { checkSources } from '../../works/sources/check.js'
import { sourcesFrom } from '../../works/sources/index.js'
import { normalizeOrcid } from '../../works/sources/normalize.js'
import { type Cli, CliError, positiveInt, UsageError } from '../output.js'

/** ORCID's own fictitious researcher, whose public record every source knows. */
const SAMPLE_ORCID = '0000-0002-1825-0097'

/** `expertdir works ...`: publications imported from ORCID, OpenAlex, Crossref and PubMed (docs/works.md). */
export function worksCommands(program: Command, cli: Cli): void {
  const works = program
    .command('works')
    .description('Publications imported from ORCID, OpenAlex, Crossref and PubMed')

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
        const schedule = createWorksSchedule({
          db,
          dialect: database.dialect,
          sources: sourcesFrom(cli.config()),
          ...scheduleTiming(cli.config()),
        })
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

  works
    .command('check-sources')
    .description(
      'Read one live reply per scholarly source and check it against the shape the import reads; prints ok, the drift by field path, or why a source was skipped; exits 1 on drift or failure',
    )
    .option('--orcid <id>', `the public ORCID record to read (default ${SAMPLE_ORCID})`)
    .option('--json', 'print one JSON object')
    .action(async (options: { orcid?: string; json?: boolean }) => {
      const orcid = normalizeOrcid(options.orcid ?? SAMPLE_ORCID)
      if (!orcid) throw new UsageError(`"${options.orcid}" is no valid ORCID iD`)
      const checks = await checkSources(cli.config(), orcid)
      cli.report(options.json, { orcid, sources: checks }, () =>
        checks
          .map(({ source, status, problems }) =>
            [`${source}: ${status}`, ...problems.map((problem) => `  ${problem}`)].join('\n'),
          )
          .join('\n'),
      )
      const bad = checks.filter((check) => check.status === 'drift' || check.status === 'failed')
      if (bad.length > 0) {
        throw new CliError(
          `not passed: ${bad.map((check) => `${check.source} (${check.status})`).join(', ')}`,
        )
      }
    })
}
