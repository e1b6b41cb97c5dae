import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'

/** The TCP port a listening server is bound to. */
export function listeningPort(server: { address(): AddressInfo | string | null }): number {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the server is not listening on TCP')
  return address.port
}

/** A response as it came off the wire: status line, headers in their order (but `Date`), body bytes. */
export interface WireResponse {
  status: string
  headers: string[]
  body: Buffer
}

/** A GET (or `method`) of `url` from a listening app over real HTTP, as it came off the wire. */
export function wireGet(
  app: FastifyInstance,
  url: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port: listeningPort(app.server), path: url, headers, method },
      (incoming) => {
        const chunks: Buffer[] = []
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
        incoming.on('end', () => {
          const pairs: string[] = []
          for (let i = 0; i < incoming.rawHeaders.length; i += 2) {
            const name = incoming.rawHeaders[i] ?? ''
            if (name.toLowerCase() !== 'date') pairs.push(`${name}: ${incoming.rawHeaders[i + 1]}`)
          }
          resolve({
            status: `${incoming.statusCode} ${incoming.statusMessage}`,
            headers: pairs,
            body: Buffer.concat(chunks),
          })
        })
        incoming.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end()
  })
}
