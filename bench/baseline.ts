/**
 * The physical baseline: a bare node:http server answering with pre-serialized JSON bodies (the bytes
 * of real reads). `baseline.ts NAME=FILE ...` serves FILE's bytes at `/NAME`, the first one also at
 * `/`. Prints its URL as one JSON line; stops on SIGTERM.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const specs = process.argv.slice(2)
if (specs.length === 0) throw new Error('usage: baseline.ts NAME=FILE ...')
const responses = new Map<string, { body: Buffer; headers: Record<string, string> }>()
for (const spec of specs) {
  const [name, file] = spec.includes('=') ? (spec.split('=', 2) as [string, string]) : ['', spec]
  const body = readFileSync(file)
  const response = {
    body,
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) },
  }
  responses.set(`/${name}`, response)
  if (!responses.has('/')) responses.set('/', response)
}

const server = createServer((request, response) => {
  request.resume()
  const found = responses.get(request.url ?? '/')
  if (!found) {
    response.writeHead(404).end()
    return
  }
  response.writeHead(200, found.headers)
  response.end(found.body)
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address && typeof address === 'object') {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`)
  }
})
process.once('SIGTERM', () => server.close(() => process.exit(0)))
