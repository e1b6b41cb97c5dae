import type { Command } from 'commander'
import { checkSources } from '../../works/sources/check.js'
import { normalizeOrcid } from '../../works/sources/normalize.js'
import { type Cli, CliError, UsageError } from '../output.js'

/** ORCID's own fictitious researcher, whose public record every source knows. */
const SAMPLE_ORCID = '0000-0002-1825-0097'

/** `expertdir works …`: publications read from the scholarly sources. */
export function worksCommands(program: Command, cli: Cli): void {
  const works = program
    .command('works')
    .description('Publications read from ORCID, OpenAlex, Crossref and PubMed')

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
