import { Socket } from 'node:net'
import helmet, { type HelmetOptions } from 'helmet'
import { nodeHttp } from './node-http.js'

/** The security headers of a response, by how its request reached us. */
export interface SecurityHeaders {
  /** For a request that came over HTTPS (directly, or from a trusted proxy that says so). */
  readonly https: Readonly<Record<string, string>>
  /** For a request over plain HTTP. */
  readonly http: Readonly<Record<string, string>>
}

/**
 * The API answers JSON only: its CSP forbids everything. The docs UI sets its own CSP on its pages
 * (system/openapi.ts).
 */
const API_CSP = { directives: { defaultSrc: ["'none'"] } }

/** Runs helmet's middleware once on a response that is never sent, and returns what it set. */
function helmetHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const response = new nodeHttp.ServerResponse(new nodeHttp.IncomingMessage(new Socket()))
  let failure: unknown
  helmet(options)(response.req, response, (error?: unknown) => {
    failure = error
  })
  if (failure) throw failure
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(response.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  if (Object.keys(headers).length === 0) throw new Error('helmet set no headers')
  return Object.freeze(headers)
}

/**
 * Helmet's response headers, computed once per transport: with our options they do not depend on
 * anything else, so running helmet's middleware chain (and re-parsing the CSP directives) on every
 * request is waste. Over plain HTTP, `upgrade-insecure-requests` is left out of the CSP (a browser would
 * otherwise fetch a page's scripts over HTTPS from a server that only speaks HTTP), and so is
 * `Strict-Transport-Security`, which RFC 6797 §7.2 forbids on an insecure transport.
 */
export function securityHeaders(): SecurityHeaders {
  return {
    https: helmetHeaders({ contentSecurityPolicy: API_CSP }),
    http: helmetHeaders({
      contentSecurityPolicy: {
        directives: { ...API_CSP.directives, upgradeInsecureRequests: null },
      },
      strictTransportSecurity: false,
    }),
  }
}
