import type { IncomingMessage } from 'node:http'
import { createGunzip } from 'node:zlib'
import { literalRefusal, RefusedTarget, type WebhookNetwork } from '../../delivery/webhook-network.js'
import { nodeHttp } from '../../http/node-http.js'
import { SourceError, type SourceName } from './source.js'

/**
 * One HTTP exchange with a scholarly source. Every failure is a `SourceError` a person can read (a
 * timeout, a refused address, a body cut off or over the size cap), never a crash. Redirects are
 * followed (OpenAlex answers 301 for a merged id), each hop checked by the same address rule as
 * webhooks: internal addresses only when the operator allows them.
 */

export interface HttpRequest {
  method?: 'GET' | 'POST'
  url: URL
  headers?: Record<string, string>
  /** A form body for POST (`application/x-www-form-urlencoded`). */
  form?: URLSearchParams
}

export interface HttpReply {
  status: number
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string | undefined>
  body: string
  /** Where the reply came from after redirects. */
  url: URL
}

export interface HttpSettings {
  network: WebhookNetwork
  timeoutMs: number
  /** The largest (decompressed) body read, in bytes. */
  maxBytes: number
  userAgent: string
}

const MAX_REDIRECTS = 5

export async function sendRequest(
  source: SourceName,
  settings: HttpSettings,
  request: HttpRequest,
  signal?: AbortSignal,
): Promise<HttpReply> {
  let url = request.url
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const reply = await exchange(source, settings, { ...request, url }, signal)
    const location = reply.headers.location
    if (![301, 302, 303, 307, 308].includes(reply.status) || location === undefined) return reply
    try {
      url = new URL(location, url)
    } catch {
      throw new SourceError(source, `redirected to an invalid address (HTTP ${reply.status})`)
    }
  }
  throw new SourceError(source, `more than ${MAX_REDIRECTS} redirects`)
}

function exchange(
  source: SourceName,
  settings: HttpSettings,
  request: HttpRequest & { url: URL },
  outer?: AbortSignal,
): Promise<HttpReply> {
  const { url } = request
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return Promise.reject(new SourceError(source, `unsupported address scheme ${url.protocol}`))
  }
  const refused = settings.network.guarded ? literalRefusal(settings.network, url) : undefined
  if (refused) return Promise.reject(new SourceError(source, `address refused: ${refused}`))
  const timeout = AbortSignal.timeout(settings.timeoutMs)
  const signal = outer ? AbortSignal.any([outer, timeout]) : timeout
  const body = request.form?.toString()
  const send = url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : nodeHttp.request
  return new Promise<HttpReply>((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(asSourceError(source, error, timeout.aborted, settings.timeoutMs, outer))
    const outgoing = send(
      url,
      {
        method: request.method ?? 'GET',
        headers: {
          'user-agent': settings.userAgent,
          'accept-encoding': 'gzip',
          ...request.headers,
          ...(body === undefined
            ? {}
            : {
                'content-type': 'application/x-www-form-urlencoded',
                'content-length': Buffer.byteLength(body),
              }),
        },
        agent: false,
        signal,
        ...(settings.network.guarded ? { lookup: settings.network.lookup } : {}),
      },
      (response) => {
        readBody(source, response, settings.maxBytes).then(
          (text) =>
            resolve({ status: response.statusCode ?? 0, headers: headersOf(response), body: text, url }),
          fail,
        )
      },
    )
    outgoing.on('error', fail)
    outgoing.end(body)
  })
}

function headersOf(response: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(response.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return headers
}

/** The whole body, or a `SourceError` when it is cut off, larger than the cap or badly compressed. */
function readBody(source: SourceName, response: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const gzipped = /\bgzip\b/i.test(String(response.headers['content-encoding'] ?? ''))
    const stream = gzipped ? response.pipe(createGunzip()) : response
    const chunks: Buffer[] = []
    let size = 0
    let settled = false
    const settle = (error?: SourceError) => {
      if (settled) return
      settled = true
      if (error) {
        response.destroy()
        reject(error)
      } else resolve(Buffer.concat(chunks).toString('utf8'))
    }
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) settle(new SourceError(source, `reply larger than ${maxBytes} bytes`))
      else chunks.push(chunk)
    })
    stream.on('end', () => {
      if (response.complete) settle()
      else settle(new SourceError(source, 'reply was cut off before its end'))
    })
    response.on('aborted', () => settle(new SourceError(source, 'reply was cut off before its end')))
    response.on('close', () => {
      if (!response.complete) settle(new SourceError(source, 'reply was cut off before its end'))
    })
    stream.on('error', (error) =>
      settle(
        gzipped && stream !== response
          ? new SourceError(source, 'reply was not valid gzip')
          : new SourceError(source, `reply was cut off before its end (${error.message})`),
      ),
    )
  })
}

function asSourceError(
  source: SourceName,
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
  outer?: AbortSignal,
): SourceError {
  if (error instanceof SourceError) return error
  if (timedOut) return new SourceError(source, `no reply within ${timeoutMs} ms`)
  if (outer?.aborted) return new SourceError(source, 'stopped')
  if (error instanceof RefusedTarget) return new SourceError(source, `address refused: ${error.message}`)
  const code = error instanceof Error && 'code' in error ? String(error.code) : ''
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host not found',
    ETIMEDOUT: 'connection timed out',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'host unreachable',
  }
  const reason = known[code] ?? (code.startsWith('HPE_') ? 'invalid HTTP reply' : 'request failed')
  return new SourceError(source, reason)
}
