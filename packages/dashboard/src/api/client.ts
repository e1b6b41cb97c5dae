import createClient from 'openapi-fetch'
import type { paths } from '../../../client/src/schema.ts'
import { dataOf } from './failure.ts'
import { TokenKeeper } from './tokens.ts'

/** Told when /v2 refuses the token: the session has ended (signed out elsewhere, expired, removed). */
let onSessionLost: () => void = () => {}
export function whenSessionLost(listener: () => void): void {
  onSessionLost = listener
}

const isV2 = (request: Request) => new URL(request.url).pathname.startsWith('/v2/')

/**
 * Every call the dashboard makes goes through here: `/v2/*` carries a short-lived bearer token minted
 * from the session (which the cookie never reaches), and a 401 there ends the session on screen.
 * `/auth/*` is authenticated by the session cookie (same origin, JSON).
 */
export async function authorizedFetch(request: Request): Promise<Response> {
  if (isV2(request)) request.headers.set('authorization', `Bearer ${await tokens.token()}`)
  const response = await fetch(request)
  if (response.status === 401 && isV2(request)) {
    tokens.forget()
    onSessionLost()
  }
  return response
}

/**
 * The typed API client: paths, parameters and bodies come from the OpenAPI document through the client
 * package's generated types.
 */
export const api = createClient<paths>({ baseUrl: window.location.origin, fetch: authorizedFetch })

export const tokens = new TokenKeeper(async () => dataOf(await api.POST('/auth/token', { body: {} })))
