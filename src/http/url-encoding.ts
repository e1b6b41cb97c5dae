import { ApiError, type ErrorDetail } from '../errors.js'

/**
 * Strict decoding of what a request carries as text: UTF-8 bodies and `application/x-www-form-urlencoded`
 * pairs (form bodies and query strings). The WHATWG decoders (`URLSearchParams`, `TextDecoder`) repair
 * bad input silently, turning a stray `%` or a broken byte sequence into U+FFFD; here both are an error,
 * so that what is stored is what the client meant to send (docs/api.md, "Request bodies").
 */

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Names that would reach an object's prototype when used as a key: never a field of ours. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

/** A body's bytes as text; undefined when they are not well-formed UTF-8. */
export function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

const ESCAPES = /%(?![0-9A-Fa-f]{2})/

/** One name or value: `+` is a space, `%XX` escapes must be well formed and spell UTF-8. */
function decodeComponent(raw: string): string | undefined {
  const spaced = raw.includes('+') ? raw.replaceAll('+', ' ') : raw
  if (!spaced.includes('%')) return spaced
  if (ESCAPES.test(spaced)) return undefined
  try {
    return decodeURIComponent(spaced)
  } catch {
    return undefined
  }
}

/**
 * The name/value pairs of a form-encoded string, in order; `undefined` when an escape is malformed
 * (`%ZZ`, a lone `%`) or the escaped bytes are not UTF-8 (`%FF`, `%C3%28`, an encoded surrogate).
 * Empty segments (`a=1&&b=2`) are skipped, as the URL standard does.
 */
export function decodePairs(text: string): [string, string][] | undefined {
  const pairs: [string, string][] = []
  if (text === '') return pairs
  for (const segment of text.split('&')) {
    if (segment === '') continue
    const equals = segment.indexOf('=')
    const name = decodeComponent(equals === -1 ? segment : segment.slice(0, equals))
    const value = equals === -1 ? '' : decodeComponent(segment.slice(equals + 1))
    if (name === undefined || value === undefined) return undefined
    pairs.push([name, value])
  }
  return pairs
}

/** The 400 for a query string or form body that `decodePairs` refused. */
export function badEncoding(part: 'query' | 'body'): ApiError {
  const where = part === 'query' ? 'The query string' : 'The form-encoded body'
  const details: ErrorDetail[] = [
    { field: part, message: 'must be percent-encoded UTF-8: every % followed by two hex digits' },
  ]
  return new ApiError(
    'validation_failed',
    `${where} is not correctly percent-encoded: every % must start an escape (%XX) of UTF-8 bytes.`,
    { details },
  )
}

/** Marks a query object whose string could not be decoded; the request is refused before routing work. */
export const MALFORMED_QUERY = Symbol('malformed query string')

/**
 * Fastify's query-string parser for every route: strict decoding, a repeated name becomes an array of
 * its values (the validator refuses that where a field is not an array). The object has no prototype,
 * so `__proto__` is an ordinary (unknown, hence refused) name. It must not throw (the router calls it
 * outside any error handling): a malformed string yields an object marked with `MALFORMED_QUERY`.
 */
export function parseQuery(text: string): Record<string | symbol, unknown> {
  const query: Record<string | symbol, unknown> = Object.create(null)
  const pairs = decodePairs(text)
  if (!pairs) {
    query[MALFORMED_QUERY] = true
    return query
  }
  for (const [name, value] of pairs) {
    const previous = query[name]
    if (previous === undefined) query[name] = value
    else if (Array.isArray(previous)) previous.push(value)
    else query[name] = [previous, value]
  }
  return query
}
