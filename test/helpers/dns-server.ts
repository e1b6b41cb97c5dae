import { createSocket, type Socket } from 'node:dgram'
import { listeningPort } from './net.js'

/**
 * A DNS server on 127.0.0.1 (UDP) that answers TXT questions from `records` and NXDOMAIN otherwise,
 * for the resolver of `node:dns` the service uses (EXPERTDIR_DNS_SERVERS). Only what a TXT lookup
 * needs: one question, no compression in questions, answers pointing at the question's name.
 */
export class TestDnsServer {
  /** Name (lower-case, no final dot) → TXT records, each a list of strings. */
  readonly records = new Map<string, string[][]>()
  /** The names asked for, in order. */
  readonly questions: string[] = []

  private constructor(private readonly socket: Socket) {}

  static async start(): Promise<TestDnsServer> {
    const socket = createSocket('udp4')
    const server = new TestDnsServer(socket)
    socket.on('message', (message, peer) => {
      const answer = server.answer(message)
      if (answer) socket.send(answer, peer.port, peer.address)
    })
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
    return server
  }

  /** `127.0.0.1:<port>`, as EXPERTDIR_DNS_SERVERS takes it. */
  get address(): string {
    return `127.0.0.1:${listeningPort(this.socket)}`
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()))
  }

  private answer(query: Buffer): Buffer | undefined {
    if (query.length < 12) return undefined
    const labels: string[] = []
    let at = 12
    while (at < query.length && query[at] !== 0) {
      const length = query[at] ?? 0
      labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'))
      at += length + 1
    }
    const questionEnd = at + 5
    const type = query.readUInt16BE(at + 1)
    const name = labels.join('.').toLowerCase()
    this.questions.push(name)
    const records = type === 16 ? (this.records.get(name) ?? []) : []
    const header = Buffer.alloc(12)
    query.copy(header, 0, 0, 2)
    // QR, opcode 0, AA, RD copied; RA; RCODE 3 (NXDOMAIN) when the name has no record.
    header.writeUInt16BE(
      0x8400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | (records.length === 0 ? 3 : 0),
      2,
    )
    header.writeUInt16BE(1, 4)
    header.writeUInt16BE(records.length, 6)
    const answers = records.map((strings) => {
      const data = Buffer.concat(
        strings.map((text) => {
          const bytes = Buffer.from(text, 'utf8')
          return Buffer.concat([Buffer.from([bytes.length]), bytes])
        }),
      )
      const fixed = Buffer.alloc(12)
      fixed.writeUInt16BE(0xc00c, 0)
      fixed.writeUInt16BE(16, 2)
      fixed.writeUInt16BE(1, 4)
      fixed.writeUInt32BE(60, 6)
      fixed.writeUInt16BE(data.length, 10)
      return Buffer.concat([fixed, data])
    })
    return Buffer.concat([header, query.subarray(12, questionEnd), ...answers])
  }
}
