import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import { type Config, databaseOptions } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import { createOutbox } from './delivery/outbox.js'
import { mediaExpiryLoop } from './experts/media-expiry.js'
import { createPublishingSchedule, publishingTiming } from './schedules/loop.js'
import { startHousekeeping } from './system/housekeeping.js'
import { createMetrics } from './system/metrics.js'
import { migrateDatabase } from './system/migrate.js'

export interface RunningServer {
  app: FastifyInstance
  database: Database
  url: string
  /** Stops accepting, lets in-flight requests finish, closes the database. */
  close(): Promise<void>
}

/**
 * Migrates, builds the app and listens. `onListening` runs once it listens, with the port it got
 * (demo seeding, whose pictures' addresses name the port: with `PORT=0`, the one the system chose).
 * A cluster worker (`serve --workers N`) only serves: its primary has migrated and runs the outbox
 * worker and housekeeping once for all workers.
 */
export async function startServer(
  config: Config,
  onListening?: (database: Database, port: number) => Promise<void>,
  role: 'single' | 'worker' = 'single',
): Promise<RunningServer> {
  const database = openDatabase(config.databaseUrl, databaseOptions(config))
  const background = role === 'single'
  if (background) await migrateDatabase(database)
  const metrics = config.metrics ? createMetrics({ database, http: true, outbox: background }) : undefined
  const app = await buildApp({ config, database, ...(metrics ? { metrics } : {}) })
  database.commits.observe((batch) => app.log.debug(batch, 'group commit'))
  const url = await app.listen({ host: config.host, port: config.port })
  const address = app.server.address()
  await onListening?.(database, typeof address === 'object' && address ? address.port : config.port)
  const stopHousekeeping = background ? startHousekeeping(database.db, app.log, config) : () => {}
  // Inquiry deliveries run inside the server process; several processes may share one database.
  const outbox = createOutbox({
    database,
    config,
    log: app.log,
    ...(metrics ? { onRun: metrics.recordOutboxRun } : {}),
  })
  if (background) outbox.start()
  // The works schedule takes each due expert once across every process sharing the database.
  if (background) app.worksSchedule.start()
  // The same for the optional embeddings: one process embeds each expert.
  if (background) app.embeddings?.loop.start()
  // Media availability that has passed ends as a write, within a poll (CONTRACT §22).
  const mediaExpiry = mediaExpiryLoop(database.db, Date.now, app.log)
  if (background) mediaExpiry.start()
  // Scheduled publishing and unpublishing: its first pass catches up on what came due while down.
  const publishing = createPublishingSchedule({ db: database.db, ...publishingTiming(config), log: app.log })
  if (background) publishing.start()
  const awaitFirstRequests = trackFreshConnections(app)
  // At debug level only (no listener otherwise): the moment a request is in flight, which tests of a
  // draining process wait for before they send the signal.
  if (config.logLevel === 'debug' || config.logLevel === 'trace')
    app.server.on('request', (request: IncomingMessage) =>
      app.log.debug({ method: request.method, url: request.url }, 'request received'),
    )
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      stopHousekeeping()
      await mediaExpiry.stop()
      await awaitFirstRequests(FIRST_REQUEST_GRACE_MS)
      await app.close()
      await publishing.stop()
      await outbox.stop()
      await database.close()
    })()
    return closing
  }
  return { app, database, url, close }
}

/** How long a close waits for accepted connections to send their first request. */
const FIRST_REQUEST_GRACE_MS = 1000

/**
 * Closing the HTTP server also closes the connections without a request in progress. A connection
 * the kernel accepted just before the signal, whose request the event loop has not read yet, counts
 * as such and would be cut although its client already sent everything. The returned function waits
 * (at most `graceMs`) until every open connection has started its first request.
 */
function trackFreshConnections(app: FastifyInstance): (graceMs: number) => Promise<void> {
  const fresh = new Set<Socket>()
  app.server.on('connection', (socket: Socket) => {
    fresh.add(socket)
    socket.once('close', () => fresh.delete(socket))
  })
  app.server.on('request', (request: IncomingMessage) => fresh.delete(request.socket))
  return async (graceMs) => {
    const deadline = Date.now() + graceMs
    while (fresh.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  }
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
