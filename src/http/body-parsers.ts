import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { ApiError, validationError } from '../errors.js'
import { propertyOf } from '../validation/guards.js'
import { badEncoding, decodePairs, decodeUtf8, FORBIDDEN_KEYS, MALFORMED_QUERY } from './url-encoding.js'
import { FORM_BODY } from './validation.js'

function forbiddenKey(key: string): ApiError {
  return validationError([{ field: key, message: 'is not an allowed field name' }])
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    const message = error instanceof Error ? error.message : ''
    if (message.includes('forbidden prototype')) throw forbiddenKey('__proto__')
    if (message.includes('forbidden constructor')) throw forbiddenKey('constructor')
    throw new ApiError('invalid_json', 'The request body is not valid JSON.')
  }
}

/**
 * Form values are strings. A repeated key becomes an array of its values: the validator accepts that
 * only for array-typed fields (`tags=a&tags=b`) and rejects it as ambiguous everywhere else.
 */
function parseForm(text: string): Record<string | symbol, unknown> {
  const pairs = decodePairs(text)
  if (!pairs) throw badEncoding('body')
  const body: Record<string | symbol, unknown> = {}
  for (const [key, value] of pairs) {
    if (FORBIDDEN_KEYS.has(key)) throw forbiddenKey(key)
    const previous = body[key]
    if (previous === undefined) body[key] = value
    else if (Array.isArray(previous)) previous.push(value)
    else body[key] = [previous, value]
  }
  body[FORM_BODY] = true
  return body
}

/** The body as text, or the 400 that bytes which are not UTF-8 get (the contract's bodies are UTF-8). */
function textOf(bytes: Buffer): string {
  const text = decodeUtf8(bytes)
  if (text !== undefined) return text
  throw validationError([{ field: 'body', message: 'must be UTF-8 text' }])
}

/** What the parsers throw is an Error (ApiError, SyntaxError); anything else is wrapped. */
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)))

/**
 * The two body encodings of the contract. Anything else is a 415 (Fastify's own check, mapped to
 * the envelope by the error handler); bodies over the limit are a 413 before they are read whole.
 * Bodies are read as bytes and decoded strictly, so that invalid UTF-8 is a 400 rather than U+FFFD.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser<Buffer>('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJson(textOf(body)))
    } catch (error) {
      done(asError(error), undefined)
    }
  })
  app.addContentTypeParser<Buffer>(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer' },
    (_request, body, done) => {
      try {
        done(null, parseForm(textOf(body)))
      } catch (error) {
        done(asError(error), undefined)
      }
    },
  )
  // The query string of every route, decoded as strictly as a form body (url-encoding.ts).
  app.addHook('onRequest', (request, _reply, done) => {
    if (propertyOf(request.query, MALFORMED_QUERY)) done(badEncoding('query'))
    else done()
  })
}
