import { errorFromResponse, isObject, jsonBodyOf } from './errors.js'

export interface TokenOptions {
  baseUrl: string
  clientId: string
  clientSecret: string
  /** Space-separated scopes to ask for (default: every scope of the client). */
  scope?: string | undefined
  fetch: typeof fetch
  now: () => number
  /** Renew this many seconds before the token expires (default 60). */
  refreshMarginSeconds: number
}

interface Token {
  value: string
  expiresAt: number
}

/** RFC 6749 §2.3.1: each part form-urlencoded, then joined and base64-encoded. */
function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (part: string) => encodeURIComponent(part).replace(/%20/g, '+')
  return btoa(`${encode(clientId)}:${encode(clientSecret)}`)
}

/**
 * Obtains an access token with the client-credentials grant, keeps it, and reuses it until shortly
 * before it expires. Callers that need a token while one is being fetched share that one request.
 */
export class TokenSource {
  private token: Token | undefined
  private pending: Promise<string> | undefined
  /** How many token requests were sent (for monitoring). */
  requests = 0

  constructor(private readonly options: TokenOptions) {}

  /** A token valid for at least the refresh margin; fetches one when needed. */
  async get(): Promise<string> {
    const { now, refreshMarginSeconds } = this.options
    if (this.token && this.token.expiresAt - refreshMarginSeconds * 1000 > now()) return this.token.value
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = undefined
    })
    return this.pending
  }

  /** Forgets `value` (the server refused it); the next `get` fetches a new one. */
  invalidate(value: string): void {
    if (this.token?.value === value) this.token = undefined
  }

  private async fetchToken(): Promise<string> {
    const { baseUrl, clientId, clientSecret, scope, now } = this.options
    const body = new URLSearchParams({ grant_type: 'client_credentials' })
    if (scope) body.set('scope', scope)
    this.requests++
    const response = await this.options.fetch(`${baseUrl}/v2/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basicCredentials(clientId, clientSecret)}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body,
    })
    const json = await jsonBodyOf(response)
    if (!response.ok || !isObject(json) || typeof json.access_token !== 'string')
      throw errorFromResponse(response, json, now())
    const lifetime = typeof json.expires_in === 'number' ? json.expires_in : 3600
    this.token = { value: json.access_token, expiresAt: now() + lifetime * 1000 }
    return json.access_token
  }
}
