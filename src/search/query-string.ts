import type { FastifyReply, FastifyRequest } from 'fastify'
import { type ErrorDetail, validationError } from '../errors.js'
import { badEncoding, decodePairs } from '../http/url-encoding.js'
import { ARRAY_PARAMETERS } from './schemas.js'

/** The search routes' preValidation: replaces Fastify's parsed query with ours (arrays in three forms). */
export function parseSearchQuery(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const { query, errors: problems } = parseQueryString(request.raw.url ?? '', ARRAY_PARAMETERS)
  if (problems.length > 0) {
    done(validationError(problems))
    return
  }
  request.query = query
  done()
}

/**
 * Reads a raw query string the way the search endpoints accept arrays: `k=a&k=b`, `k[]=a&k[]=b` and
 * `k=["a","b"]` all give `k: ["a", "b"]` for a name in `arrays`. Other names keep one string, or an
 * array when repeated (which the schema then refuses). Fastify's own parser keeps `k[]` as a
 * separate name and gives a lone `k=a` as a string, hence this module. Decoding is the strict one of
 * every query string (a malformed escape is a 400); the result has no prototype, so `__proto__` is
 * one more unknown name for the schema to refuse.
 */
export function parseQueryString(
  url: string,
  arrays: ReadonlySet<string>,
): { query: Record<string, string | string[]>; errors: ErrorDetail[] } {
  const at = url.indexOf('?')
  const params = decodePairs(at === -1 ? '' : url.slice(at + 1))
  if (!params) throw badEncoding('query')
  const values = new Map<string, string[]>()
  const errors: ErrorDetail[] = []
  for (const [rawName, value] of params) {
    const bracketed = rawName.endsWith('[]')
    const name = bracketed ? rawName.slice(0, -2) : rawName
    if (bracketed && !arrays.has(name)) {
      errors.push({ field: rawName, message: 'is not a known field' })
      continue
    }
    values.set(name, [...(values.get(name) ?? []), value])
  }
  const query: Record<string, string | string[]> = Object.create(null)
  for (const [name, list] of values) {
    if (!arrays.has(name)) {
      const [only, ...others] = list
      query[name] = only !== undefined && others.length === 0 ? only : list
      continue
    }
    const items: string[] = []
    for (const value of list) {
      if (!value.trimStart().startsWith('[')) {
        if (value.trim() !== '') items.push(value)
        continue
      }
      const parsed = parseJsonArray(value)
      if (parsed) items.push(...parsed)
      else errors.push({ field: name, message: 'must be a JSON array of strings, such as ["a","b"]' })
    }
    query[name] = items
  }
  return { query, errors }
}

function parseJsonArray(text: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(text)
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value
  } catch {}
  return undefined
}
