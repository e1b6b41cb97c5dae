import type { Command } from 'commander'
import { embeddingsFrom } from '../../meaning/embeddings/index.js'
import { embeddingStatus } from '../../meaning/embeddings/store.js'
import { findOrganization } from '../../organizations/repository.js'
import { type Cli, CliError, positiveInt } from '../output.js'

/** `expertdir embeddings ...`: the optional embeddings of finding experts by meaning (docs/meaning.md). */
export function embeddingsCommands(program: Command, cli: Cli): void {
  const embeddings = program
    .command('embeddings')
    .description('The optional embeddings of finding experts by meaning (EXPERTDIR_EMBEDDINGS_URL)')

  const configured = () => {
    const config = cli.config()
    if (config.embeddingsUrl === undefined || config.embeddingsModel === undefined)
      throw new CliError('Embeddings are off: set EXPERTDIR_EMBEDDINGS_URL and EXPERTDIR_EMBEDDINGS_MODEL')
    return { config, model: config.embeddingsModel }
  }

  embeddings
    .command('status')
    .description(
      "Per organization (or --org): experts enrolled, embedded with the configured model, due, failing, and the last failure's message",
    )
    .option('--org <id>', 'only this organization', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org?: number; json?: boolean }) => {
      const { model } = configured()
      const organizations = await cli.withDatabase(async ({ db }) => {
        if (options.org !== undefined && !(await findOrganization(db, options.org)))
          throw new CliError(`No organization ${options.org}`)
        return embeddingStatus(db, model, options.org)
      })
      cli.report(options.json, { model, organizations }, () =>
        organizations.length === 0
          ? `Model ${model}: no expert enrolled yet (the background loop enrolls them; or run \`expertdir embeddings run\`).`
          : [
              `Model ${model}:`,
              ...organizations.map(
                (status) =>
                  `organization ${status.org_id}: ${status.embedded} of ${status.experts} embedded, ${status.due} due, ${status.failing} failing${status.last_error ? ` (last error: ${status.last_error})` : ''}`,
              ),
            ].join('\n'),
      )
    })

  embeddings
    .command('run')
    .description(
      'Embed now every expert due (new, changed, or made by another model), as the background loop would; stops at the first failed batch',
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const { config } = configured()
      const counts = await cli.withDatabase(async (database) => {
        const found = embeddingsFrom(config, { db: database.db, dialect: database.dialect })
        if (!found) throw new CliError('Embeddings are off')
        return found.loop.runOnce()
      })
      cli.report(
        options.json,
        counts,
        () =>
          `Embedded ${counts.embedded} expert(s); ${counts.unchanged} unchanged; ${counts.failed} in a failed batch (see \`expertdir embeddings status\`).`,
      )
    })
}
