/**
 * The app under test from the sources (`npm run bench -- --tsx`; by default the bench runs the
 * compiled app, `app-server.mjs`), in its own process: `startServer` as `expertdir serve` runs it (delivery worker
 * and housekeeping included), on a free loopback port. Configuration comes from the environment
 * (the bench sets the database, rate limits off and a quiet log). Prints its URL as one JSON line.
 * `--workers N` (N > 1): as `expertdir serve --workers N`, a primary and N workers sharing the port.
 */
import cluster from 'node:cluster'
import { parseArgs } from 'node:util'
import { runClusterPrimary } from '../src/cluster.js'
import { loadConfig } from '../src/config.js'
import { closeOnSignals, startServer } from '../src/server.js'

const workers = Number(parseArgs({ options: { workers: { type: 'string' } } }).values.workers ?? 1)
const config = loadConfig({ host: '127.0.0.1', port: 0 })
const printUrl = (port: number) =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`)

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
