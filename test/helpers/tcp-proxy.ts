import { connect, createServer, type Server, type Socket } from 'node:net'

/**
 * A TCP proxy on 127.0.0.1 between the app and its database, to cut the connection for real.
 * `reset`: every open connection is destroyed and new ones are closed at once (the server went away).
 * `blackhole`: as reset, but new connections are accepted and never answered (a dead host or network).
 */
export class TcpProxy {
  private mode: 'open' | 'reset' | 'blackhole' = 'open'
  private readonly sockets = new Set<Socket>()

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined
    const server = createServer((client) => proxy?.accept(client, targetHost, targetPort))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    if (!address || typeof address !== 'object') throw new Error('proxy has no port')
    proxy = new TcpProxy(server, address.port)
    return proxy
  }

  private track(socket: Socket): void {
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }

  private accept(client: Socket, host: string, port: number): void {
    this.track(client)
    if (this.mode === 'reset') {
      client.destroy()
      return
    }
    if (this.mode === 'blackhole') return
    const upstream = connect(port, host)
    this.track(upstream)
    client.pipe(upstream)
    upstream.pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  }

  /** Destroys every connection and refuses (`reset`) or swallows (`blackhole`) new ones. */
  cut(mode: 'reset' | 'blackhole'): void {
    this.mode = mode
    this.destroyAll()
  }

  /** Forwards new connections again; connections swallowed while cut are dropped. */
  restore(): void {
    this.mode = 'open'
    this.destroyAll()
  }

  private destroyAll(): void {
    for (const socket of this.sockets) socket.destroy()
    this.sockets.clear()
  }

  async close(): Promise<void> {
    this.destroyAll()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}
