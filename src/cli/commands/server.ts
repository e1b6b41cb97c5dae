import cluster from 'node:cluster'
import type { Command } from 'commander'
import { cliWriteContext } from '../../audit/write-context.js'
import { type IssuedClient, issueClient } from '../../auth/clients.js'
import { DEFAULT_SCOPES } from '../../auth/scopes.js'
import { randomToken } from '../../auth/secrets.js'
import type { Config } from '../../config.js'
import type { Database } from '../../db/database.js'
import type { DemoMedia } from '../../demo/seed.js'
import { seedDemo } from '../../demo/seed.js'
import { countOrganizations, createOrganization } from '../../organizations/repository.js'
import { addPerson } from '../../people/service.js'
import { openStorage } from '../../storage/open.js'
import type { MediaStorage } from '../../storage/storage.js'
import { type Cli, positiveInt } from '../output.js'

export function serverCommands(program: Command, cli: Cli): void {
  program
    .command('serve')
    .description('Apply migrations, then serve the API')
    .option('--host <host>', 'address to listen on (default: HOST or 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default: PORT or 3000)', positiveInt('--port'))
    .option(
      '--demo',
      'on an empty database, create a demo organization with content and print its credentials',
    )
    .option(
      '--workers <n>',
      'serve from N processes sharing the port (node:cluster); a dead worker is replaced (default: 1)',
      positiveInt('--workers'),
    )
    .action(async (options: { host?: string; port?: number; demo?: boolean; workers?: number }) => {
      const config = cli.config({
        ...(options.host ? { host: options.host } : {}),
        ...(options.port ? { port: options.port } : {}),
      })
      let credentials: IssuedClient | undefined
      let owner: DemoOwner | undefined
      // After listening: the demo's pictures are stored under the address the server really has.
      const seedOnce = async ({ db }: Database, port: number) => {
        if (!options.demo || (await countOrganizations(db)) > 0) return
        const now = Date.now()
        const org = await createOrganization(db, { name: 'Demo University' }, now)
        const write = cliWriteContext(db, org.id, 'serve --demo', now)
        const storage = openStorage(config)
        try {
          await seedDemo(write, demoMedia(config, storage, port))
        } finally {
          await storage.close()
        }
        credentials = await issueClient(write, { label: 'demo', scopes: DEFAULT_SCOPES })
        const password = randomToken(12)
        const added = await addPerson(write, {
          email: DEMO_OWNER,
          role: 'owner',
          name: 'Demo Owner',
          password,
          mustChange: true,
        })
        owner = { email: added.person.email, password }
      }
      // Loaded here: only `serve` needs the HTTP app, so the other commands start without loading it.
      const { closeOnSignals, startServer } = await import('../../server.js')
      if (cluster.isWorker) {
        closeOnSignals(await startServer(config, undefined, 'worker'))
        return
      }
      if ((options.workers ?? 1) > 1) {
        const { runClusterPrimary } = await import('../../cluster.js')
        await runClusterPrimary(config, {
          workers: options.workers ?? 1,
          onListening: async (database, port) => {
            await seedOnce(database, port)
            const url = `http://${config.host}:${port}`
            printListening(cli, url)
            printCredentials(cli, credentials, owner, url)
          },
        })
        return
      }
      const server = await startServer(config, seedOnce)
      closeOnSignals(server)
      printListening(cli, server.url)
      printCredentials(cli, credentials, owner, server.url)
    })

  program
    .command('migrate')
    .description('Apply pending migrations, fill the search index where it lacks rows, and exit')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const { applied, rebuiltSearch } = await cli.withDatabase(async (_database, migration) => migration)
      cli.report(options.json, { applied }, () =>
        [
          applied.length === 0 ? 'Database is up to date.' : `Applied ${applied.join(', ')}.`,
          ...(rebuiltSearch.length > 0
            ? [`Rebuilt the search index of ${rebuiltSearch.length} organization(s).`]
            : []),
        ].join('\n'),
      )
    })

  program
    .command('seed')
    .description('Fill an organization with demo content')
    .requiredOption('--demo', 'demo content (the only kind so far)')
    .requiredOption('--org <id>', 'organization id', positiveInt('--org'))
    .option('--json', 'print one JSON object')
    .action(async (options: { org: number; json?: boolean }) => {
      const config = cli.config()
      const storage = openStorage(config)
      const seeded = await cli
        .withDatabase(async ({ db }) =>
          seedDemo(
            cliWriteContext(db, options.org, 'seed --demo', Date.now()),
            demoMedia(config, storage, config.port),
          ),
        )
        .finally(() => storage.close())
      cli.report(
        options.json,
        seeded,
        () =>
          `Seeded ${seeded.experts.length} experts, ${seeded.spotlights.length} posts, ${seeded.questions.length} questions.`,
      )
    })
}

/** The demo organization's owner: a sign-in email and a generated password to change at first sign-in. */
const DEMO_OWNER = 'owner@demo-university.example'

interface DemoOwner {
  email: string
  password: string
}

/** The address the server really listens on: with `PORT=0`, the one the system chose. */
function printListening(cli: Cli, url: string): void {
  cli.io.stdout.write(`Listening on ${url}\n`)
}

function printCredentials(
  cli: Cli,
  credentials: IssuedClient | undefined,
  owner: DemoOwner | undefined,
  url: string,
): void {
  if (!credentials) return
  const base = url.replace('0.0.0.0', '127.0.0.1')
  cli.io.stdout.write(
    [
      '',
      `Demo organization created (id ${credentials.org}). Its API credentials, shown once:`,
      `client_id: ${credentials.client_id}`,
      `client_secret: ${credentials.client_secret}`,
      'Get a token:',
      `curl -s -X POST ${base}/v2/oauth/token -d grant_type=client_credentials -d client_id=${credentials.client_id} -d client_secret=${credentials.client_secret}`,
      `API reference: ${base}/docs`,
      ...(owner
        ? [
            `Dashboard: ${base}/admin/`,
            `Sign in as ${owner.email} with the one-time password ${owner.password} (it must be changed at first sign-in).`,
          ]
        : []),
      '',
    ].join('\n'),
  )
}

/** Where seeding stores the demo's pictures: the configured storage, under the server's public address. */
function demoMedia(config: Config, storage: MediaStorage, port: number): DemoMedia {
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host
  return {
    storage,
    baseUrl: config.publicUrl ?? `http://${host}:${port}`,
    maxBytes: config.uploadMaxBytes,
  }
}
