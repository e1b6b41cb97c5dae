import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { ApiError, validationError } from './errors.js'
import { FORM_BODY } from './validation.js'

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

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
  const body: Record<string | symbol, unknown> = {}
  for (const [key, value] of new URLSearchParams(text)) {
    if (FORBIDDEN_KEYS.has(key)) throw forbiddenKey(key)
    const previous = body[key]
    if (previous === undefined) body[key] = value
    else if (Array.isArray(previous)) previous.push(value)
    else body[key] = [previous, value]
  }
  body[FORM_BODY] = true
  return body
}

/**
 * The two body encodings of the contract. Anything else is a 415 (Fastify's own check, mapped to
 * the envelope by the error handler); bodies over the limit are a 413 before they are read whole.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJson(body as string))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      try {
        done(null, parseForm(body as string))
      } catch (error) {
        done(error as Error, undefined)
      }
    },
  )
}
