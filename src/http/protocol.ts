import type { IncomingMessage } from 'node:http'
import proxyAddr from 'proxy-addr'

/**
 * How a request reached us, as Fastify's `request.protocol` tells it with our `trustProxy` setting (a
 * comma-separated list of addresses or ranges, or none): `X-Forwarded-Proto` (its last entry) is
 * believed only from a trusted proxy; otherwise the socket decides. For code that answers before Fastify
 * has made its request object (src/kept-reads/kept-read-lane.ts).
 */
export function protocolReader(trustProxy: string): (request: IncomingMessage) => string {
  const trusted = trustProxy
    ? proxyAddr.compile(trustProxy.split(',').map((entry) => entry.trim()))
    : undefined
  return (request) => {
    const socket = request.socket
    const forwarded = request.headers['x-forwarded-proto']
    if (trusted && typeof forwarded === 'string' && forwarded && trusted(socket.remoteAddress ?? '', 0)) {
      const last = forwarded.lastIndexOf(',')
      return (last === -1 ? forwarded : forwarded.slice(last + 1)).trim()
    }
    return 'encrypted' in socket && socket.encrypted === true ? 'https' : 'http'
  }
}
