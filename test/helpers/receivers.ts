import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { SMTPServer } from 'smtp-server'
import { eventually } from './eventually.js'
import { listeningPort } from './net.js'

/** A real HTTP webhook endpoint on 127.0.0.1 that records every request and can play down. */
export class WebhookReceiver {
  /** `ok`: 204; `fail`: 500; `hang`: never answers (recorded with status 0). */
  mode: 'ok' | 'fail' | 'hang' = 'ok'
  /** Answers this much later (a slow receiver). */
  delayMs = 0
  /** Every request that reached the endpoint, with its status. */
  requests: { headers: IncomingHttpHeaders; body: string; status: number }[] = []
  port = 0
  private server: Server | undefined

  get url() {
    return `http://127.0.0.1:${this.port}/hooks/inquiries`
  }

  /** Successful deliveries only. */
  get delivered() {
    return this.requests.filter((request) => request.status >= 200 && request.status < 300)
  }

  async start(port = this.port): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        if (this.mode === 'hang') {
          this.requests.push({
            headers: request.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            status: 0,
          })
          return
        }
        const status = this.mode === 'ok' ? 204 : 500
        this.requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status })
        const answer = () => response.writeHead(status).end()
        if (this.delayMs > 0) setTimeout(answer, this.delayMs)
        else answer()
      })
    })
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve))
    this.port = listeningPort(this.server)
  }

  /** Stops listening: connections are refused until `start()` again (on the same port). */
  async stop(): Promise<void> {
    const server = this.server
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    this.server = undefined
  }
}

/** A real SMTP server on 127.0.0.1 that records each message, or answers 451 while `rejecting`. */
export class SmtpReceiver {
  rejecting = false
  messages: { to: string[]; from: string; raw: string }[] = []
  port = 0
  /** While set, a message's data is not taken until it resolves (a mail server that is slow to accept). */
  holding: Promise<void> | undefined
  private server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', async () => {
        await this.holding
        if (this.rejecting) {
          const error = Object.assign(new Error('Mailbox busy, try again later'), { responseCode: 451 })
          callback(error)
          return
        }
        const mailFrom = session.envelope.mailFrom
        this.messages.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          from: mailFrom ? mailFrom.address : '',
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })

  get url() {
    return `smtp://127.0.0.1:${this.port}`
  }

  /** Resolves once at least `count` messages have arrived. */
  async received(count: number): Promise<SmtpReceiver['messages']> {
    return eventually(() => this.messages.length >= count && this.messages, {
      what: `${count} messages have arrived`,
      timeoutMs: 30_000,
      intervalMs: 10,
      detail: () => `${this.messages.length} arrived`,
    })
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.port = listeningPort(this.server.server)
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

/**
 * Checks `X-Expertdir-Signature: t=<unix>,v1=<hex>` the way docs/webhooks.md tells receivers to:
 * HMAC-SHA256 over `<t>.<raw body>`, compared in constant time, timestamp within 5 minutes.
 */
export function verifySignature(secret: string, header: string | undefined, rawBody: string): boolean {
  const parts = new Map(
    (header ?? '').split(',').map((part) => {
      const [key, ...value] = part.split('=')
      return [key?.trim() ?? '', value.join('=')] as const
    }),
  )
  const t = Number(parts.get('t'))
  const v1 = parts.get('v1') ?? ''
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest()
  const actual = Buffer.from(v1, 'hex')
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}
