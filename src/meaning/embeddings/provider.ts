import type { Agent, IncomingMessage } from 'node:http'
import { nodeHttp } from '../../http/node-http.js'
import { isObject } from '../../validation/guards.js'
import { retryAfterMs } from '../../works/sources/pacer.js'

/**
 * An embedding provider (SOURCES §7.5): texts in, one vector per text out, in the texts' order. The one
 * driver is an OpenAI-compatible API: `POST {url}/embeddings` with `{"model", "input": [...]}`, answered
 * by `{"data": [{"index", "embedding": [...]}]}`. Texts go in batches of `batchSize`, each request under
 * a timeout. Every failure is an `EmbeddingError` a person can read; a 429 or 503 pauses the provider
 * until its `Retry-After` (a minute when it names none), and a call while paused fails at once, without
 * a request. Redirects are not followed: requests go only to the address the operator configured.
 * Connections are kept alive between requests, so a query's embedding does not pay a TLS handshake.
 */
export interface EmbeddingProvider {
  /** The model asked for; stored with each vector, so a new model embeds every expert again. */
  readonly model: string
  embed(texts: readonly string[], options?: { timeoutMs?: number }): Promise<Float32Array[]>
}

export class EmbeddingError extends Error {
  constructor(
    message: string,
    /** When the provider may be asked again (unix ms), when it said so. */
    readonly retryAt?: number,
  ) {
    super(message)
    this.name = 'EmbeddingError'
  }
}

export interface OpenAiEmbeddingsOptions {
  /** The API's base URL; `/embeddings` is added. */
  url: string
  model: string
  /** Sent as a bearer token; never logged nor put in an error. */
  apiKey?: string | undefined
  batchSize: number
  timeoutMs: number
  now?: () => number
}

/** The pause after a 429 or 503 that names no `Retry-After`. */
const DEFAULT_PAUSE_MS = 60_000
/** A reply's size cap: room for a few thousand numbers per text of the batch. */
const BYTES_PER_TEXT = 256 * 1024
const BASE_BYTES = 64 * 1024

export function openAiEmbeddings(options: OpenAiEmbeddingsOptions): EmbeddingProvider {
  const endpoint = new URL(`${options.url.replace(/\/+$/, '')}/embeddings`)
  const now = options.now ?? Date.now
  let pausedUntil = 0
  const https = endpoint.protocol === 'https:'
  const agent: Agent = new (https ? process.getBuiltinModule('node:https').Agent : nodeHttp.Agent)({
    keepAlive: true,
    maxSockets: 8,
    // As Node's global agent: an idle connection is closed after 5 s, before most servers close it.
    timeout: 5000,
  })

  async function embedBatch(texts: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
    if (pausedUntil > now())
      throw new EmbeddingError(
        `paused: the embeddings API asked to wait until ${new Date(pausedUntil).toISOString()}`,
        pausedUntil,
      )
    const reply = await post(
      endpoint,
      JSON.stringify({ model: options.model, input: texts }),
      options.apiKey,
      agent,
      timeoutMs,
      BASE_BYTES + texts.length * BYTES_PER_TEXT,
    )
    if (reply.status === 429 || reply.status === 503) {
      const until = retryAfterMs(reply.retryAfter, now()) ?? now() + DEFAULT_PAUSE_MS
      pausedUntil = Math.max(pausedUntil, until)
      throw new EmbeddingError(
        `HTTP ${reply.status}: the embeddings API asks to wait until ${new Date(until).toISOString()}`,
        until,
      )
    }
    if (reply.status >= 300 && reply.status < 400)
      throw new EmbeddingError(`HTTP ${reply.status}: redirects are not followed`)
    if (reply.status < 200 || reply.status >= 300) throw new EmbeddingError(`HTTP ${reply.status}`)
    return vectorsOf(reply.body, texts.length)
  }

  return {
    model: options.model,
    async embed(texts, { timeoutMs = options.timeoutMs } = {}) {
      const vectors: Float32Array[] = []
      for (let start = 0; start < texts.length; start += options.batchSize)
        vectors.push(...(await embedBatch(texts.slice(start, start + options.batchSize), timeoutMs)))
      return vectors
    },
  }
}

/** The vectors of a reply, by `index`; anything else than `count` vectors of one length is an error. */
export function vectorsOf(body: string, count: number): Float32Array[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    throw new EmbeddingError('reply is not valid JSON')
  }
  const data = isObject(parsed) ? parsed.data : undefined
  if (!Array.isArray(data)) throw new EmbeddingError('reply has no "data" list')
  if (data.length !== count) throw new EmbeddingError(`reply has ${data.length} vectors for ${count} texts`)
  const vectors: (Float32Array | undefined)[] = new Array(count)
  let dimensions: number | undefined
  for (const [position, entry] of data.entries()) {
    const index = isObject(entry) && entry.index !== undefined ? entry.index : position
    const embedding = isObject(entry) ? entry.embedding : undefined
    if (
      typeof index !== 'number' ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= count ||
      vectors[index]
    )
      throw new EmbeddingError(`reply's vector ${position} has a missing or repeated "index"`)
    if (
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      !embedding.every((value) => typeof value === 'number' && Number.isFinite(value))
    )
      throw new EmbeddingError(`reply's vector ${position} is not a list of numbers`)
    dimensions ??= embedding.length
    if (embedding.length !== dimensions)
      throw new EmbeddingError(`reply's vectors differ in length (${dimensions} and ${embedding.length})`)
    vectors[index] = Float32Array.from(embedding)
  }
  return vectors.filter((vector): vector is Float32Array => vector !== undefined)
}

interface Reply {
  status: number
  retryAfter: string | undefined
  body: string
}

const CONNECTION_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
}

function post(
  url: URL,
  body: string,
  apiKey: string | undefined,
  agent: Agent,
  timeoutMs: number,
  maxBytes: number,
): Promise<Reply> {
  const timeout = AbortSignal.timeout(timeoutMs)
  const send = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : nodeHttp.request
  return new Promise<Reply>((resolve, reject) => {
    const fail = (error: unknown) => {
      if (error instanceof EmbeddingError) reject(error)
      else if (timeout.aborted) reject(new EmbeddingError(`no reply within ${timeoutMs} ms`))
      else {
        const code = isObject(error) && typeof error.code === 'string' ? error.code : ''
        reject(new EmbeddingError(CONNECTION_ERRORS[code] ?? 'request failed'))
      }
    }
    const outgoing = send(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept: 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        agent,
        signal: timeout,
      },
      (response) =>
        readBody(response, maxBytes).then(
          (text) =>
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: [response.headers['retry-after']].flat()[0],
              body: text,
            }),
          fail,
        ),
    )
    outgoing.on('error', fail)
    outgoing.end(body)
  })
}

function readBody(response: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    response.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        response.destroy()
        reject(new EmbeddingError(`reply larger than ${maxBytes} bytes`))
      } else chunks.push(chunk)
    })
    response.on('end', () => {
      if (response.complete) resolve(Buffer.concat(chunks).toString('utf8'))
      else reject(new EmbeddingError('reply was cut off before its end'))
    })
    response.on('error', reject)
    response.on('aborted', () => reject(new EmbeddingError('reply was cut off before its end')))
  })
}
