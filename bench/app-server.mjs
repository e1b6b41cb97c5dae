/**
 * The app under test, compiled (`npm run build`): `startServer` as `expertdir serve` runs it, delivery
 * worker and housekeeping included, on a free loopback port, without a TypeScript loader in the
 * process (its memory and CPU profile are the app's own). Configuration comes from the environment.
 * Prints its URL as one JSON line. `--workers N` (N > 1): as `expertdir serve --workers N`, a primary
 * and N workers sharing the port. With `BENCH_APP_SOURCES=1` under the tsx loader (`--tsx`), the same
 * app from the sources.
 */
import cluster from 'node:cluster'
import { parseArgs } from 'node:util'

const dist = new URL(process.env.BENCH_APP_SOURCES ? '../src/' : '../dist/', import.meta.url)
const { loadConfig } = await import(new URL('config.js', dist).href)
const { closeOnSignals, startServer } = await import(new URL('server.js', dist).href)
const { runClusterPrimary } = await import(new URL('cluster.js', dist).href)

const workers = Number(parseArgs({ options: { workers: { type: 'string' } } }).values.workers ?? 1)
const config = loadConfig({ host: '127.0.0.1', port: 0 })
const printUrl = (port) => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`)

if (cluster.isWorker) {
  closeOnSignals(await startServer(config, undefined, 'worker'))
} else if (workers > 1) {
  await runClusterPrimary(config, { workers, onListening: printUrl })
} else {
  const server = await startServer(config)
  closeOnSignals(server)
  const address = server.app.server.address()
  if (address && typeof address === 'object') printUrl(address.port)
}
