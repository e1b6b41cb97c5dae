/**
 * The physical baseline: a bare node:http server answering every request with the same pre-serialized
 * JSON body (the bytes of a real profile read). Prints its URL as one JSON line; stops on SIGTERM.
 * `baseline.ts BODY_FILE N` with N > 1: N such servers sharing the port through node:cluster (the
 * fair limit for `serve --workers N`).
 */
import cluster from 'node:cluster'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const bodyFile = process.argv[2]
if (!bodyFile) throw new Error('usage: baseline.ts BODY_FILE [WORKERS]')
const workers = Number(process.argv[3] ?? 1)
const body = readFileSync(bodyFile)
if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork()
  let listening = 0
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers)
      process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`)
  })
  process.once('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
    })
  })
} else {
  serve()
}

function serve() {
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }

  const server = createServer((request, response) => {
    request.resume()
    response.writeHead(200, headers)
    response.end(body)
  })
  server.listen(0, '127.0.0.1', () => {
    const address = server.address()
    if (address && typeof address === 'object') {
      if (cluster.isPrimary)
        process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`)
    }
  })
  process.once('SIGTERM', () => server.close(() => process.exit(0)))
}
