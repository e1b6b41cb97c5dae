import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { type HttpReply, type HttpRequest, type HttpSettings, sendRequest } from './http.js'
import { type Clock, type Pacer, retryAfterMs } from './pacer.js'
import { SourceError, type SourceName } from './source.js'

/**
 * A source's requests through its pacer: 429 and 503 pause the source until `Retry-After` (or the
 * source's default pause) and are retried when the wait is short; 500, 502 and 504 are retried twice
 * after a short pause; anything else that is not 2xx is a `SourceError`. While the source is paused for
 * longer than `maxWaitMs`, a request fails at once with `retryAt` instead of waiting the pause out.
 */
export interface SourceClientOptions {
  source: SourceName
  pacer: Pacer
  clock: Clock
  http: HttpSettings
  /** The longest pause a request waits out before it gives up with `retryAt` (ms). */
  maxWaitMs: number
  /** The pause after a 429 or 503 without a readable `Retry-After` (unix ms from `now`). */
  defaultPauseUntil?: (now: number) => number
  /** Sees every reply (a source's rate headers). */
  onReply?: (reply: HttpReply) => void
}

const ATTEMPTS = 3
const SERVER_ERRORS = new Set([500, 502, 504])

export class SourceClient {
  constructor(private readonly options: SourceClientOptions) {}

  get source(): SourceName {
    return this.options.source
  }

  async send(request: HttpRequest, signal?: AbortSignal): Promise<HttpReply> {
    const { source, pacer, clock, http, maxWaitMs } = this.options
    for (let attempt = 1; ; attempt += 1) {
      // A pause longer than a request may wait (an earlier 429 of this source) fails now, not after it.
      const pausedUntil = pacer.pausedUntilMs
      if (pausedUntil - clock.now() > maxWaitMs)
        throw new SourceError(
          source,
          `paused: the source asked to wait until ${new Date(pausedUntil).toISOString()}`,
          pausedUntil,
        )
      const reply = await pacer.run(() => sendRequest(source, http, request, signal), signal)
      this.options.onReply?.(reply)
      if (reply.status >= 200 && reply.status < 300) return reply
      const now = clock.now()
      if (reply.status === 429 || reply.status === 503) {
        const until =
          retryAfterMs(reply.headers['retry-after'], now) ??
          this.options.defaultPauseUntil?.(now) ??
          now + 60_000
        pacer.pause(until)
        if (until - now <= maxWaitMs && attempt < ATTEMPTS) continue
        throw new SourceError(
          source,
          `HTTP ${reply.status}: the source asks to wait until ${new Date(until).toISOString()}`,
          until,
        )
      }
      if (SERVER_ERRORS.has(reply.status) && attempt < ATTEMPTS) {
        pacer.pause(now + 1000 * attempt)
        continue
      }
      throw new SourceError(source, `HTTP ${reply.status}${reply.status === 404 ? ' (not found)' : ''}`)
    }
  }

  /** The reply's JSON; a body that is no JSON is a `SourceError`. */
  async json(request: HttpRequest, signal?: AbortSignal): Promise<{ value: unknown; reply: HttpReply }> {
    const reply = await this.send(request, signal)
    return { value: parseJson(this.source, reply.body), reply }
  }

  /** The reply's XML as objects, repeatable elements always arrays; malformed XML is a `SourceError`. */
  async xml(request: HttpRequest, repeatable: ReadonlySet<string>, signal?: AbortSignal): Promise<unknown> {
    const reply = await this.send(request, signal)
    return parseXml(this.source, reply.body, repeatable)
  }
}

export function parseJson(source: SourceName, body: string): unknown {
  try {
    return JSON.parse(body)
  } catch {
    throw new SourceError(source, 'reply is not valid JSON')
  }
}

/** Elements whose inner markup (`<i>`, `<sup>`) is kept as text, to be stripped, not parsed. */
const MIXED_CONTENT = ['*.ArticleTitle', '*.AbstractText', '*.VernacularTitle']

export function parseXml(source: SourceName, body: string, repeatable: ReadonlySet<string>): unknown {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: true,
    htmlEntities: true,
    stopNodes: MIXED_CONTENT,
    isArray: (name) => repeatable.has(name),
  })
  try {
    const valid = XMLValidator.validate(body)
    if (valid !== true) throw new Error(valid.err.msg)
    return parser.parse(body)
  } catch {
    throw new SourceError(source, 'reply is not valid XML')
  }
}
