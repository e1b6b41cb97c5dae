import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import helmet from 'helmet'

/**
 * Helmet's response headers, computed once: with our options they do not depend on the request, so
 * running helmet's middleware chain (and re-parsing the CSP directives) on every request is waste.
 * The API answers JSON only: its CSP forbids everything. The docs UI sets its own CSP on its pages.
 */
export function securityHeaders(): Readonly<Record<string, string>> {
  // A response of no connection: helmet only sets and removes headers on it.
  const request = new IncomingMessage(new Socket())
  const response = new ServerResponse(request)
  let failure: unknown
  helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"] } } })(
    request,
    response,
    (error?: unknown) => {
      failure = error
    },
  )
  if (failure) throw failure
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  if (Object.keys(headers).length === 0) throw new Error('helmet set no headers')
  return Object.freeze(headers)
}
