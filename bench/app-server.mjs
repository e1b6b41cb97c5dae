/**
 * The app under test, compiled (`npm run build`): `startServer` as `expertdir serve` runs it, delivery
 * worker and housekeeping included, on a free loopback port, without a TypeScript loader in the
 * process (its memory and CPU profile are the app's own). Configuration comes from the environment.
 * Prints its URL as one JSON line. `app-server.ts` is the same from the sources (`--tsx`).
 */
const dist = new URL('../dist/', import.meta.url)
const { loadConfig } = await import(new URL('config.js', dist).href)
const { closeOnSignals, startServer } = await import(new URL('server.js', dist).href)

const server = await startServer(loadConfig({ host: '127.0.0.1', port: 0 }))
closeOnSignals(server)
const address = server.app.server.address()
if (address && typeof address === 'object') {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`)
}
