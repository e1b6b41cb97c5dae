import type { Command } from 'commander'
import { isUniqueViolation } from '../../db/database.js'
import { createOrganization, listOrganizations } from '../../organizations/repository.js'
import { type Cli, CliError, positiveInt } from '../output.js'

export function organizationCommands(program: Command, cli: Cli): void {
  const org = program.command('org').description('Manage organizations')

  org
    .command('create')
    .description('Create an organization')
    .requiredOption('--name <name>', 'organization name')
    .option('--id <n>', 'organization id (default: the next free one)', positiveInt('--id'))
    .option('--json', 'print one JSON object')
    .action(async (options: { name: string; id?: number; json?: boolean }) => {
      const name = options.name.trim()
      if (!name) throw new CliError('--name must not be empty')
      const created = await cli.withDatabase(async ({ db }) => {
        try {
          return await createOrganization(db, { name, ...(options.id ? { id: options.id } : {}) }, Date.now())
        } catch (error) {
          if (isUniqueViolation(error)) throw new CliError(`Organization ${options.id} already exists`)
          throw error
        }
      })
      cli.report(
        options.json,
        { id: created.id, name: created.name },
        () => `Created organization ${created.id}: ${name}`,
      )
    })

  org
    .command('list')
    .description('List organizations')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const rows = await cli.withDatabase(({ db }) => listOrganizations(db))
      const organizations = rows.map((row) => ({
        id: row.id,
        name: row.name,
        created_at: new Date(row.created_at).toISOString(),
      }))
      cli.report(options.json, { organizations }, () =>
        organizations.length === 0
          ? 'No organizations.'
          : organizations.map((o) => `${o.id}\t${o.name}`).join('\n'),
      )
    })
}
