import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { createServer, type Server } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { listeningPort } from './net.js'

const run = promisify(execFile)

/** A throw-away self-signed certificate for `hostName`, made by the openssl command. */
export async function selfSignedCertificate(hostName: string): Promise<{ key: Buffer; cert: Buffer }> {
  const dir = await mkdtemp(join(tmpdir(), 'expertdir-tls-'))
  try {
    const key = join(dir, 'key.pem')
    const cert = join(dir, 'cert.pem')
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
      '-subj',
      `/CN=${hostName}`,
      '-addext',
      `subjectAltName=DNS:${hostName}`,
    ])
    return { key: await readFile(key), cert: await readFile(cert) }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * A TLS-terminating reverse proxy on 127.0.0.1, as nginx in front of the service: HTTPS outside, plain
 * HTTP to `targetPort`, with `X-Forwarded-Proto: https` and `X-Forwarded-For`.
 */
export class TlsProxy {
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number, hostName: string): Promise<TlsProxy> {
    const server = createServer(await selfSignedCertificate(hostName), (incoming, outgoing) => {
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port: targetPort,
          method: incoming.method,
          path: incoming.url,
          headers: {
            ...incoming.headers,
            'x-forwarded-proto': 'https',
            'x-forwarded-for': incoming.socket.remoteAddress ?? '127.0.0.1',
          },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(outgoing)
        },
      )
      upstream.on('error', () => outgoing.destroy())
      incoming.pipe(upstream)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return new TlsProxy(server, listeningPort(server))
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
