/**
 * The physical baseline: a bare node:http server answering with pre-serialized JSON bodies (the bytes
 * of real reads). `baseline.ts NAME=FILE ...` serves FILE's bytes at `/NAME`, the first one also at
 * `/` (a `.html` file as HTML: the directory's pages). `NAME=FILE=HEADERS` sends, instead of a content
 * type and length, the headers listed in the JSON file HEADERS (`[name, value]` pairs: the app's own
 * response headers, so that the whole response is the app's bytes). Prints its URL as one JSON line; stops on SIGTERM. `--workers N` (first) with N > 1: N such
 * servers sharing the port through node:cluster (the fair limit for `serve --workers N`).
 */
import cluster from 'node:cluster'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const args = process.argv.slice(2)
const workers = args[0] === '--workers' ? Number(args[1]) : 1
const specs = args[0] === '--workers' ? args.slice(2) : args
if (specs.length === 0) throw new Error('usage: baseline.ts [--workers N] NAME=FILE ...')

const printUrl = (port: number) =>
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`)

if (cluster.isPrimary && workers > 1) {
  for (let i = 0; i < workers; i++) cluster.fork()
  let listening = 0
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) printUrl(address.port)
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
  const responses = new Map<string, { body: Buffer; headers: Record<string, string> }>()
  for (const spec of specs) {
    const [name, file, headersFile] = spec.includes('=')
      ? (spec.split('=', 3) as [string, string, string | undefined])
      : ['', spec, undefined]
    const body = readFileSync(file)
    const response = {
      body,
      headers: headersFile
        ? Object.fromEntries(JSON.parse(readFileSync(headersFile, 'utf8')) as [string, string][])
        : {
            'content-type': file.endsWith('.html')
              ? 'text/html; charset=utf-8'
              : 'application/json; charset=utf-8',
            'content-length': String(body.length),
          },
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
    if (cluster.isPrimary && address && typeof address === 'object') printUrl(address.port)
  })
  process.once('SIGTERM', () => server.close(() => process.exit(0)))
}
