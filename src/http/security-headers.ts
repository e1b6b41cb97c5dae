import type { IncomingMessage, ServerResponse } from 'node:http'
import helmet from 'helmet'

/**
 * Helmet's response headers, computed once: with our options they do not depend on the request, so
 * running helmet's middleware chain (and re-parsing the CSP directives) on every request is waste.
 * The API answers JSON only: its CSP forbids everything. The docs UI sets its own CSP on its pages.
 */
export function securityHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()]
    },
  }
  let failure: unknown
  helmet({ contentSecurityPolicy: { directives: { defaultSrc: ["'none'"] } } })(
    {} as IncomingMessage,
    response as unknown as ServerResponse,
    (error?: unknown) => {
      failure = error
    },
  )
  if (failure) throw failure
  if (Object.keys(headers).length === 0) throw new Error('helmet set no headers')
  return Object.freeze(headers)
}
