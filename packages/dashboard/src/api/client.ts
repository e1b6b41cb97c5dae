import createClient from 'openapi-fetch'
import type { paths } from '../../../client/src/schema.ts'
import { dataOf } from './failure.ts'
import { TokenKeeper } from './tokens.ts'

/**
 * The typed API client: paths, parameters and bodies come from the OpenAPI document through the client
 * package's generated types. `/auth/*` is authenticated by the session cookie (same origin, JSON);
 * `/v2/*` by a short-lived bearer token minted from the session, which the cookie never reaches.
 */
export const api = createClient<paths>({ baseUrl: window.location.origin })

export const tokens = new TokenKeeper(async () => dataOf(await api.POST('/auth/token', { body: {} })))

/** Told when /v2 refuses the token: the session has ended (signed out elsewhere, expired, removed). */
let onSessionLost: () => void = () => {}
export function whenSessionLost(listener: () => void): void {
  onSessionLost = listener
}

api.use({
  async onRequest({ request, schemaPath }) {
    if (schemaPath.startsWith('/v2/')) request.headers.set('authorization', `Bearer ${await tokens.token()}`)
    return request
  },
  onResponse({ response, schemaPath }) {
    if (response.status === 401 && schemaPath.startsWith('/v2/')) {
      tokens.forget()
      onSessionLost()
    }
    return response
  },
})
