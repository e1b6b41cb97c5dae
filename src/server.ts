import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import type { Config } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'
import { createOutbox } from './delivery/outbox.js'
import { startHousekeeping } from './system/housekeeping.js'

export interface RunningServer {
  app: FastifyInstance
  database: Database
  url: string
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  close(): Promise<void>
}

/** Migrates, builds the app and listens. `beforeListen` runs on the migrated database (demo seeding). */
export async function startServer(
  config: Config,
  beforeListen?: (database: Database, app: FastifyInstance) => Promise<void>,
): Promise<RunningServer> {
  const database = openDatabase(config.databaseUrl)
  await migrateToLatest(database.db)
  const app = await buildApp({ config, database })
  await beforeListen?.(database, app)
  const url = await app.listen({ host: config.host, port: config.port })
  const stopHousekeeping = startHousekeeping(database.db, app.log)
  // Inquiry deliveries run inside the server process; several processes may share one database.
  const outbox = createOutbox({ database, config, log: app.log })
  outbox.start()
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      stopHousekeeping()
      await app.close()
      await outbox.stop()
      await database.close()
    })()
    return closing
  }
  return { app, database, url, close }
}

/** SIGTERM / SIGINT: stop accepting, finish in-flight requests, close the database, exit 0. */
export function closeOnSignals(server: RunningServer): void {
  const stop = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down')
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
}
