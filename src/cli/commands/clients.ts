import type { Command } from 'commander'
import { cliWriteContext } from '../../audit/write-context.js'
import { findClient, issueClient, listClients, withdrawClient } from '../../auth/clients.js'
import { DEFAULT_SCOPES, formatScopes, parseScopes, SCOPES, type Scope } from '../../auth/scopes.js'
import { findOrganization } from '../../organizations/repository.js'
import { type Cli, CliError, positiveInt, UsageError } from '../output.js'

/** `--scope "read inquiries:create"`: one or more known scopes, space- or comma-separated. */
function scopeList(value: string): Scope[] {
  const { scopes, unknown } = parseScopes(value.replaceAll(',', ' '))
  if (unknown.length > 0) {
    throw new UsageError(`--scope: unknown scope ${unknown.join(', ')}; the scopes are: ${SCOPES.join(', ')}`)
  }
  if (scopes.length === 0) throw new UsageError(`--scope needs at least one of: ${SCOPES.join(', ')}`)
  return scopes
}

export function clientCommands(program: Command, cli: Cli): void {
  const client = program.command('client').description('Manage API client credentials')

  client
    .command('create')
    .description('Create client credentials for an organization (the secret is shown once)')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--label <label>', 'a note on what the client is for')
    .option(
      '--scope <scopes>',
      `what the client may do, space-separated, of ${formatScopes(SCOPES)} (default: ${formatScopes(DEFAULT_SCOPES)})`,
      scopeList,
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; label?: string; scope?: Scope[]; json?: boolean }) => {
      const issued = await cli.withDatabase(async ({ db }) => {
        if (!(await findOrganization(db, options.org))) throw new CliError(`No organization ${options.org}`)
        return issueClient(cliWriteContext(db, options.org, 'client create', Date.now()), {
          label: options.label ?? null,
          scopes: options.scope ?? DEFAULT_SCOPES,
        })
      })
      cli.report(options.json, issued, () =>
        [
          `client_id: ${issued.client_id}`,
          `client_secret: ${issued.client_secret}`,
          `scope: ${issued.scope}`,
          'Store the secret now: it is not shown again.',
        ].join('\n'),
      )
    })

  client
    .command('list')
    .description('List the clients of an organization')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      const rows = await cli.withDatabase(({ db }) => listClients(db, options.org))
      const clients = rows.map((row) => ({
        client_id: row.client_id,
        label: row.label,
        scope: row.scope,
        created_at: new Date(row.created_at).toISOString(),
        revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
      }))
      cli.report(options.json, { clients }, () =>
        clients.length === 0
          ? 'No clients.'
          : clients
              .map(
                (c) =>
                  `${c.client_id}\t${c.revoked_at ? `revoked ${c.revoked_at}` : 'active'}\t${c.scope}\t${c.label ?? ''}`,
              )
              .join('\n'),
      )
    })

  client
    .command('revoke')
    .description('Revoke a client; every token it holds stops working at once')
    .argument('<client_id>', 'the client to revoke')
    .option('--json', 'print one JSON object')
    .action(async (clientId: string, options: { json?: boolean }) => {
      // The operator may revoke any organization's client: the write is the client's organization's.
      const revoked = await cli.withDatabase(async ({ db }) => {
        const client = await findClient(db, clientId)
        if (!client) return undefined
        return withdrawClient(
          cliWriteContext(db, Number(client.org_id), 'client revoke', Date.now()),
          clientId,
        )
      })
      if (!revoked) throw new CliError(`No client ${clientId}`)
      cli.report(options.json, { client_id: clientId, revoked: true }, () => `Revoked ${clientId}`)
    })
}
