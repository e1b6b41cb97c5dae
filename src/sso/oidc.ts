import type { FastifyBaseLogger } from 'fastify'
import { LRUCache } from 'lru-cache'
import * as client from 'openid-client'
import { ApiError } from '../errors.js'
import { type AssertedIdentity, valuesOf } from './identity.js'
import type { SecretBox } from './secret-box.js'
import { type SsoSettings, secretContext } from './settings.js'
import { oidcValues } from './transactions.js'

/**
 * OpenID Connect sign-in with `openid-client`: authorization code with PKCE (S256), state and nonce,
 * the ID token verified by the library, the claims completed from the userinfo endpoint.
 */

/** How long an identity provider may take to answer one request. */
const PROVIDER_TIMEOUT_SECONDS = 10

function unavailable(): ApiError {
  return new ApiError(
    'unavailable',
    'The identity provider of this organization did not answer as expected: try again later, or tell its administrators.',
  )
}

function notVerified(): ApiError {
  return new ApiError(
    'unauthorized',
    'The identity provider’s answer could not be verified: start the sign-in again from the sign-in page.',
  )
}

/**
 * The identity providers' configurations (their discovery documents), one per organization and
 * settings version, kept for an hour so that a sign-in does not fetch the document every time.
 */
export function oidcClients(secretBox: SecretBox | undefined, log: FastifyBaseLogger) {
  const cache = new LRUCache<string, Promise<client.Configuration>>({ max: 500, ttl: 3600_000 })

  const discover = async (settings: SsoSettings): Promise<client.Configuration> => {
    const { issuer, clientId, sealedClientSecret } = settings
    if (issuer === null || clientId === null) throw unavailable()
    let secret: string | undefined
    if (sealedClientSecret !== null) {
      if (!secretBox) {
        log.error(
          { org: settings.orgId },
          'sso: a client secret is stored but EXPERTDIR_SECRET_KEY is not set',
        )
        throw unavailable()
      }
      try {
        secret = secretBox.open(sealedClientSecret, secretContext(settings.orgId))
      } catch (error) {
        log.error({ org: settings.orgId, err: error }, 'sso: the stored client secret does not decrypt')
        throw unavailable()
      }
    }
    const url = new URL(issuer)
    try {
      const configuration = await client.discovery(
        url,
        clientId,
        undefined,
        secret === undefined ? client.None() : client.ClientSecretBasic(secret),
        {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          // http only reaches this machine: settings refuse any other http issuer.
          ...(url.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
        },
      )
      configuration.timeout = PROVIDER_TIMEOUT_SECONDS
      return configuration
    } catch (error) {
      log.warn({ org: settings.orgId, err: error }, 'sso: OpenID Connect discovery failed')
      throw unavailable()
    }
  }

  const configuration = (settings: SsoSettings): Promise<client.Configuration> => {
    const key = `${settings.orgId}:${settings.updatedAt}`
    const cached = cache.get(key)
    if (cached) return cached
    const pending = discover(settings)
    cache.set(key, pending)
    pending.catch(() => cache.delete(key))
    return pending
  }

  return {
    /** The provider's authorization URL for a new transaction (its cookie value `key`). */
    async authorizationUrl(settings: SsoSettings, key: string, redirectUri: string): Promise<URL> {
      const config = await configuration(settings)
      const { state, nonce, codeVerifier } = oidcValues(key)
      return client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: settings.scope,
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      })
    },

    /**
     * Completes the transaction `key` with the provider's answer at `currentUrl` (the redirect URI
     * with the query the browser brought): the code is exchanged with the PKCE verifier, the ID
     * token's signature, issuer, audience, expiry and nonce and the state are checked by the library.
     */
    async identity(settings: SsoSettings, key: string, currentUrl: URL): Promise<AssertedIdentity> {
      const config = await configuration(settings)
      const { state, nonce, codeVerifier } = oidcValues(key)
      let claims: Record<string, unknown>
      let subject: AssertedIdentity['subject']
      try {
        const tokens = await client.authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: codeVerifier,
          expectedState: state,
          expectedNonce: nonce,
          idTokenExpected: true,
        })
        // Present: the library refuses an answer without a valid ID token (idTokenExpected).
        const idToken = tokens.claims()
        if (!idToken) throw notVerified()
        subject = { issuer: idToken.iss, subject: idToken.sub }
        const userInfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub)
        claims = { ...userInfo, ...idToken }
      } catch (error) {
        if (error instanceof ApiError) throw error
        if (error instanceof client.AuthorizationResponseError) {
          throw new ApiError(
            'unauthorized',
            `The identity provider did not sign you in (${error.error}): start again from the sign-in page.`,
          )
        }
        log.info({ org: settings.orgId, err: error }, 'sso: OpenID Connect answer refused')
        if (error instanceof TypeError) throw unavailable()
        throw notVerified()
      }
      if (claims.email_verified === false) {
        throw new ApiError('forbidden', 'The identity provider has not verified your email address.')
      }
      return {
        subject,
        email: typeof claims.email === 'string' ? claims.email : '',
        name: displayName(claims),
        groups: valuesOf(claims[settings.groupsClaim]),
      }
    },
  }
}

export type OidcClients = ReturnType<typeof oidcClients>

function displayName(claims: Record<string, unknown>): string | undefined {
  if (typeof claims.name === 'string' && claims.name.trim() !== '') return claims.name.trim()
  const parts = [claims.given_name, claims.family_name].filter((part) => typeof part === 'string')
  return parts.length > 0 ? parts.join(' ') : undefined
}
