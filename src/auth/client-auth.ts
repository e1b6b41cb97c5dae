import type { FastifyRequest } from 'fastify'
import type { ClientRow } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { isObject } from '../validation/guards.js'
import { findClient } from './clients.js'
import type { AuthContext } from './context.js'
import { addressGate, addressKey } from './failure-limit.js'
import { DECOY_SECRET_HASH, verifySecret } from './secrets.js'

/** Client authentication for the OAuth endpoints (RFC 6749 §2.3.1): body parameters or HTTP Basic. */

interface Credentials {
  clientId: string
  clientSecret: string
  viaBasic: boolean
}

const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="expertdir"' }
/** Secret checks per address running at once in this process (failure-limit.ts). */
const checks = addressGate()

const INVALID_CLIENT = 'Client authentication failed: unknown client, wrong secret or revoked client.'

export function invalidRequest(message: string): ApiError {
  return new ApiError('invalid_request', message)
}

function basicCredentials(request: FastifyRequest): Credentials | undefined {
  const header = request.headers.authorization
  if (!header) return undefined
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : ''
  const colon = decoded.indexOf(':')
  if (colon < 0) {
    throw new ApiError('invalid_client', 'The Authorization header is not valid HTTP Basic credentials.', {
      headers: BASIC_CHALLENGE,
    })
  }
  try {
    // Both parts are form-urlencoded before being joined.
    const decode = (part: string) => decodeURIComponent(part.replaceAll('+', ' '))
    return {
      clientId: decode(decoded.slice(0, colon)),
      clientSecret: decode(decoded.slice(colon + 1)),
      viaBasic: true,
    }
  } catch {
    throw invalidRequest('The HTTP Basic credentials are not correctly encoded.')
  }
}

/** The client id a request claims, for rate-limit keys; never throws. */
export function claimedClientId(request: FastifyRequest): string {
  try {
    const basic = basicCredentials(request)
    if (basic) return basic.clientId
  } catch {
    // A malformed header counts under the empty client id.
  }
  const body = isObject(request.body) ? request.body : undefined
  return typeof body?.client_id === 'string' ? body.client_id.slice(0, 128) : ''
}

/** RFC 6749 §3.1: "Parameters sent without a value MUST be treated as if they were omitted". */
function given(value: unknown): boolean {
  return value !== undefined && value !== ''
}

function credentialsOf(request: FastifyRequest): Credentials {
  const body = isObject(request.body) ? request.body : {}
  const basic = basicCredentials(request)
  const inBody = given(body.client_id) || given(body.client_secret)
  if (basic && inBody)
    throw invalidRequest('Send the client credentials either in the body or as HTTP Basic, not both.')
  if (basic) return basic
  const { client_id: clientId, client_secret: clientSecret } = body
  if (
    typeof clientId === 'string' &&
    given(clientId) &&
    typeof clientSecret === 'string' &&
    given(clientSecret)
  ) {
    return { clientId, clientSecret, viaBasic: false }
  }
  const missing = ['client_id', 'client_secret'].filter(
    (key) => typeof body[key] !== 'string' || !given(body[key]),
  )
  throw invalidRequest(`Missing parameter: ${missing.join(', ')}.`)
}

/** The 429 of an address that used up its failed authentications (failure-limit.ts). */
function tooManyFailures(waitMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000))
  return new ApiError(
    'rate_limited',
    `Too many failed client authentications from this address: retry in ${seconds} seconds.`,
    { headers: { 'retry-after': String(seconds) } },
  )
}

/**
 * The authenticated, unrevoked client of the request, or a 401 `invalid_client` that is the same for an
 * unknown client, a wrong secret, a revoked client and a locked-out (client id, IP) pair. Before any
 * secret is checked, the address must have failed fewer than the configured times this minute (429);
 * at most a few checks of one address run at once, the others wait their turn.
 */
export async function authenticateClient(context: AuthContext, request: FastifyRequest): Promise<ClientRow> {
  const credentials = credentialsOf(request)
  const failure = new ApiError(
    'invalid_client',
    INVALID_CLIENT,
    credentials.viaBasic ? { headers: BASIC_CHALLENGE } : {},
  )
  const lockKey = `${credentials.clientId}|${request.ip}`
  if (await context.lockout.isLocked(lockKey)) throw failure
  const address = addressKey(request.ip)
  const leave = await checks.enter(address)
  if (!leave)
    throw new ApiError(
      'rate_limited',
      'Too many client authentications from this address at once: retry in 1 second.',
      {
        headers: { 'retry-after': '1' },
      },
    )
  try {
    const wait = await context.authFailures.blocked(address)
    if (wait !== undefined) throw tooManyFailures(wait)
    const client = await findClient(context.db, credentials.clientId)
    // An unknown client costs the same scrypt as a known one, so timing does not tell them apart.
    const valid = await verifySecret(credentials.clientSecret, client?.secret_hash ?? DECOY_SECRET_HASH)
    if (!client || !valid || client.revoked_at !== null) {
      await context.authFailures.recordFailure(address)
      await context.lockout.recordFailure(lockKey)
      throw failure
    }
    await context.lockout.reset(lockKey)
    return client
  } finally {
    leave()
  }
}
