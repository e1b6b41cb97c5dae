/**
 * The physical baseline: a bare node:http server answering every request with the same pre-serialized
 * JSON body (the bytes of a real profile read). Prints its URL as one JSON line; stops on SIGTERM.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

const bodyFile = process.argv[2]
if (!bodyFile) throw new Error('usage: baseline.ts BODY_FILE')
const body = readFileSync(bodyFile)
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }

const server = createServer((request, response) => {
  request.resume()
  response.writeHead(200, headers)
  response.end(body)
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  if (address && typeof address === 'object') {
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`)
  }
})
process.once('SIGTERM', () => server.close(() => process.exit(0)))
