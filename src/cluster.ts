import cluster, { type Worker } from 'node:cluster'
import { pino } from 'pino'
import { type Config, databaseOptions } from './config.js'
import { type Database, openDatabase } from './db/database.js'
import { createOutbox } from './delivery/outbox.js'
import { mediaExpiryLoop } from './experts/media-expiry.js'
import { embeddingsFrom } from './meaning/embeddings/index.js'
import { createPublishingSchedule, publishingTiming } from './schedules/loop.js'
import { startHousekeeping } from './system/housekeeping.js'
import { createMetrics, serveClusterScrapes } from './system/metrics.js'
import { migrateDatabase } from './system/migrate.js'
import { createWorksSchedule, scheduleTiming } from './works/schedule.js'
import { sourcesFrom } from './works/sources/index.js'

/** A worker that dies sooner than this after its start counts as a crash loop: its restart waits. */
const STABLE_AFTER_MS = 10_000
const MAX_RESTART_DELAY_MS = 30_000

export interface ClusterOptions {
  workers: number
  /** Called once every worker listens, with the database and the port they share (demo seeding). */
  onListening?: (database: Database, port: number) => Promise<void>
}

/**
 * The primary of `serve --workers N`: migrates, forks N workers that share the listening port,
 * restarts a worker that dies (waiting longer after each quick death so that a crash loop does not
 * spin), and runs the outbox worker, the works schedule, the embedding loop (when configured), the
 * publishing schedule, the end of media availability and housekeeping itself, so they run once however many workers serve. SIGTERM or SIGINT: every worker
 * drains its requests and exits, then the primary exits 0. Each worker runs the same command and ends
 * up in `startServer(config, undefined, 'worker')`.
 */
export async function runClusterPrimary(config: Config, options: ClusterOptions): Promise<void> {
  const log = pino({ level: config.logLevel })
  const database = openDatabase(config.databaseUrl, databaseOptions(config))
  await migrateDatabase(database)
  const metrics = config.metrics ? createMetrics({ database, http: false, outbox: true }) : undefined
  if (metrics) serveClusterScrapes(metrics.registry)
  const outbox = createOutbox({
    database,
    config,
    log,
    ...(metrics ? { onRun: metrics.recordOutboxRun } : {}),
  })
  outbox.start()
  const works = createWorksSchedule({
    db: database.db,
    dialect: database.dialect,
    sources: sourcesFrom(config),
    ...scheduleTiming(config),
    log,
  })
  works.start()
  const embeddings = embeddingsFrom(config, { db: database.db, dialect: database.dialect, log })
  embeddings?.loop.start()
  const publishing = createPublishingSchedule({ db: database.db, ...publishingTiming(config), log })
  publishing.start()
  const mediaExpiry = mediaExpiryLoop(database.db, Date.now, log)
  mediaExpiry.start()
  const stopHousekeeping = startHousekeeping(database.db, log, config)

  let stopping = false
  const quickDeaths = new Map<number, number>()
  const started = new Map<Worker, { slot: number; at: number }>()
  const fork = (slot: number) => {
    const worker = cluster.fork({ EXPERTDIR_WORKER: String(slot) })
    started.set(worker, { slot, at: Date.now() })
    log.info({ worker: slot, worker_pid: worker.process.pid }, 'worker started')
  }

  let listening = 0
  cluster.on('listening', (_worker, address) => {
    if (++listening === options.workers)
      options.onListening?.(database, address.port).catch((error: unknown) => {
        log.error({ err: error }, 'the step after listening failed')
      })
  })
  cluster.on('exit', (worker, code, signal) => {
    const { slot, at } = started.get(worker) ?? { slot: 0, at: 0 }
    started.delete(worker)
    if (stopping) return
    const deaths = Date.now() - at < STABLE_AFTER_MS ? (quickDeaths.get(slot) ?? 0) + 1 : 0
    quickDeaths.set(slot, deaths)
    const delay = deaths === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 250 * 2 ** (deaths - 1))
    log.error(
      { worker: slot, worker_pid: worker.process.pid, code, signal, restart_in_ms: delay },
      'worker died',
    )
    setTimeout(() => {
      if (!stopping) fork(slot)
    }, delay).unref()
  })
  for (let slot = 1; slot <= options.workers; slot++) fork(slot)

  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'shutting down')
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined)
    const exits = workers.map(
      (worker) =>
        new Promise<boolean>((resolve) => {
          worker.once('exit', (code) => resolve(code === 0))
          worker.process.kill('SIGTERM')
        }),
    )
    const drained = (await Promise.all(exits)).every(Boolean)
    stopHousekeeping()
    await works.stop()
    await embeddings?.loop.stop()
    await publishing.stop()
    await mediaExpiry.stop()
    await outbox.stop()
    await database.close()
    if (!drained) log.error('a worker did not shut down cleanly')
    process.exit(drained ? 0 : 1)
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
}
