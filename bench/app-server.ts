/**
 * The app under test from the sources (`npm run bench -- --tsx`; by default the bench runs the
 * compiled app, `app-server.mjs`), in its own process: `startServer` as `expertdir serve` runs it (delivery worker
 * and housekeeping included), on a free loopback port. Configuration comes from the environment
 * (the bench sets the database, rate limits off and a quiet log). Prints its URL as one JSON line.
 */
import { loadConfig } from '../src/config.js'
import { closeOnSignals, startServer } from '../src/server.js'

const server = await startServer(loadConfig({ host: '127.0.0.1', port: 0 }))
closeOnSignals(server)
const address = server.app.server.address()
if (address && typeof address === 'object') {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`)
}
