import cluster from 'node:cluster'
import { createRequire } from 'node:module'
import type { FastifyInstance } from 'fastify'
import type { Counter, Registry } from 'prom-client'
import type { Database } from '../db/database.js'
import type { OutboxRun } from '../delivery/outbox.js'
import { countPendingDeliveries } from '../delivery/repository.js'

/**
 * Prometheus metrics (`GET /metrics`, on with EXPERTDIR_METRICS=1). Each process keeps its own
 * registry. With `serve --workers N` the worker that answers a scrape asks the primary, which
 * collects every worker's registry and its own over IPC and sums them (prom-client's aggregation),
 * so one scrape shows the whole server.
 */
export interface Metrics {
  readonly registry: Registry
  /** Counts one delivery pass's outcomes (the process that runs the outbox). */
  recordOutboxRun(run: OutboxRun): void
}

export interface MetricsOptions {
  database: Database
  /** This process runs the outbox worker: it reports the outbox depth and delivery outcomes. */
  outbox: boolean
  /** This process serves HTTP: it reports requests and its database pool. */
  http: boolean
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const OUTCOMES = ['delivered', 'retrying', 'failed', 'skipped'] as const

export function createMetrics(options: MetricsOptions): Metrics {
  const prom = promClient()
  const registry = new prom.Registry()
  prom.collectDefaultMetrics({ register: registry })
  const { database } = options
  if (options.http) {
    const requests = new prom.Counter({
      name: 'expertdir_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    })
    const latency = new prom.Histogram({
      name: 'expertdir_http_request_duration_seconds',
      help: 'Time from receiving a request to sending its response, by method, route template and status code',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    })
    httpObservers.set(registry, (labels, seconds) => {
      requests.inc(labels)
      latency.observe(labels, seconds)
    })
    const pool = database.poolStatistics
    if (pool) {
      const gauge = (name: string, help: string, read: () => number) =>
        new prom.Gauge({
          name,
          help,
          registers: [registry],
          collect() {
            this.set(read())
          },
        })
      gauge('expertdir_db_pool_connections', 'Open PostgreSQL connections of the pool', () => pool().total)
      gauge(
        'expertdir_db_pool_in_use',
        'PostgreSQL connections checked out of the pool',
        () => pool().total - pool().idle,
      )
      gauge(
        'expertdir_db_pool_waiting',
        'Queries waiting for a free PostgreSQL connection',
        () => pool().waiting,
      )
    }
  }
  let outcomes: Counter<'outcome'> | undefined
  if (options.outbox) {
    new prom.Gauge({
      name: 'expertdir_outbox_pending',
      help: 'Inquiry deliveries waiting for their first or next attempt',
      registers: [registry],
      async collect() {
        this.set(await countPendingDeliveries(database.db))
      },
    })
    outcomes = new prom.Counter({
      name: 'expertdir_outbox_deliveries_total',
      help: 'Delivery attempts by outcome: delivered, retrying (will be attempted again), failed (for good), skipped',
      labelNames: ['outcome'] as const,
      registers: [registry],
    })
    for (const outcome of OUTCOMES) outcomes.inc({ outcome }, 0)
  }
  return {
    registry,
    recordOutboxRun(run) {
      if (!outcomes) return
      for (const outcome of OUTCOMES) if (run[outcome] > 0) outcomes.inc({ outcome }, run[outcome])
    },
  }
}

type HttpObserver = (labels: { method: string; route: string; status: string }, seconds: number) => void
const httpObservers = new WeakMap<Registry, HttpObserver>()

/** What counts an HTTP response in `metrics` (undefined when they count none). */
export function httpObserverOf(metrics: Metrics): HttpObserver | undefined {
  return httpObservers.get(metrics.registry)
}

/** Counts every response of `app` by route template (not the URL, which would be unbounded), and serves `/metrics`. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  const observe = httpObserverOf(metrics)
  if (observe) {
    app.addHook('onResponse', async (request, reply) => {
      observe(
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          status: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      )
    })
  }
  const scrape = cluster.isWorker ? scrapeThroughPrimary : () => metrics.registry.metrics()
  if (cluster.isWorker) answerCollectRequests(metrics.registry)
  app.get(
    '/metrics',
    { schema: { hide: true, operationId: 'getMetrics', tags: ['system'], summary: 'Prometheus metrics' } },
    async (_request, reply) => {
      const text = await scrape()
      return reply.type(metrics.registry.contentType).send(text)
    },
  )
}

// Cluster mode. A worker asks the primary for a scrape; the primary asks every worker for its
// registry as JSON, adds its own and aggregates.
const SCRAPE = 'expertdir:metrics-scrape'
const SCRAPED = 'expertdir:metrics-scraped'
const COLLECT = 'expertdir:metrics-collect'
const COLLECTED = 'expertdir:metrics-collected'
const IPC_TIMEOUT_MS = 5000

type RegistryJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>

interface Message {
  type?: string
  id?: number
  text?: string
  error?: string
  metrics?: RegistryJson
}

let nextId = 0
const waiting = new Map<number, (message: Message) => void>()

/** Sends `message` with a fresh id to `send` and resolves with the reply of `replyType` carrying that id. */
function request(send: (message: Message) => void, message: Message): Promise<Message> {
  const id = nextId++
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id)
      reject(new Error('no answer to a metrics request'))
    }, IPC_TIMEOUT_MS)
    waiting.set(id, (reply) => {
      clearTimeout(timer)
      waiting.delete(id)
      resolve(reply)
    })
    send({ ...message, id })
  })
}

function settle(message: Message): void {
  if (message.id !== undefined) waiting.get(message.id)?.(message)
}

function scrapeThroughPrimary(): Promise<string> {
  return request((message) => process.send?.(message), { type: SCRAPE }).then((reply) => {
    if (reply.error !== undefined) throw new Error(reply.error)
    return reply.text ?? ''
  })
}

let workerListening = false
function answerCollectRequests(registry: Registry): void {
  if (workerListening) return
  workerListening = true
  process.on('message', (message: Message) => {
    if (message?.type === SCRAPED) settle(message)
    else if (message?.type === COLLECT) {
      void registry
        .getMetricsAsJSON()
        .then((metrics) => process.send?.({ type: COLLECTED, id: message.id, metrics }))
    }
  })
}

/** Primary: answers workers' scrapes with the sum of every worker's metrics and the primary's own. */
export function serveClusterScrapes(primary: Registry): void {
  cluster.on('message', (worker, message: Message) => {
    if (message?.type === COLLECTED) settle(message)
    else if (message?.type === SCRAPE) {
      void aggregate(primary).then(
        (text) => worker.send({ type: SCRAPED, id: message.id, text }),
        (error: Error) => worker.send({ type: SCRAPED, id: message.id, error: error.message }),
      )
    }
  })
}

/** prom-client, loaded only when metrics are on (`EXPERTDIR_METRICS=1`). */
const promClient = (): typeof import('prom-client') => createRequire(import.meta.url)('prom-client')

async function aggregate(primary: Registry): Promise<string> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker?.isConnected())
  const collected = await Promise.all(
    workers.map((worker) =>
      request((message) => worker?.send(message), { type: COLLECT }).then(
        (reply): RegistryJson => reply.metrics ?? [],
        (): RegistryJson => [], // a worker that dies during the scrape is left out of it
      ),
    ),
  )
  const all = [...collected, await primary.getMetricsAsJSON()]
  return promClient().AggregatorRegistry.aggregate(all).metrics()
}
