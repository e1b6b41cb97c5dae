import type { AddressInfo } from 'node:net'

/** The TCP port a listening server is bound to. */
export function listeningPort(server: { address(): AddressInfo | string | null }): number {
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the server is not listening on TCP')
  return address.port
}
