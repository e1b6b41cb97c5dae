import { SAML, ValidateInResponseTo } from '@node-saml/node-saml'
import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { ApiError } from '../errors.js'
import type { AssertedIdentity } from './identity.js'
import { assertionIdentity, samlIdentity, samlSubject } from './saml-attributes.js'
import { type SsoSettings, spEntityIdOf } from './settings.js'
import {
  recordAssertion,
  type SamlRequestStore,
  samlRequestStore,
  TRANSACTION_TTL_MS,
} from './transactions.js'
import { ssoUrls } from './urls.js'

/**
 * SAML 2.0 service provider with `@node-saml/node-saml`: SP-initiated sign-in over the HTTP-Redirect
 * binding, responses over HTTP-POST. An assertion is accepted only when it is signed by the configured
 * certificate, names this service as its audience, is within its validity window (one minute of clock
 * skew), answers a request this service made that no other response answered, and carries an id never
 * seen before.
 */

/** Clock difference between the identity provider and this service that is tolerated. */
const CLOCK_SKEW_MS = 60_000

export interface SamlContext {
  db: Kysely<DB>
  now: () => number
  log: FastifyBaseLogger
}

function samlFor(settings: SsoSettings, baseUrl: string, store: SamlRequestStore): SAML {
  const { entryPoint, idpCertificate } = settings
  if (entryPoint === null || idpCertificate === null) {
    throw new ApiError('not_found', 'This organization has no SAML sign-in set up.')
  }
  const entityId = spEntityIdOf(settings, baseUrl)
  return new SAML({
    entryPoint,
    idpCert: idpCertificate,
    issuer: entityId,
    audience: entityId,
    callbackUrl: ssoUrls(baseUrl, settings.orgId).acsUrl,
    wantAssertionsSigned: true,
    // The assertion's own signature is required; a signature over the whole response is not.
    wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: TRANSACTION_TTL_MS,
    cacheProvider: store,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // No NameIDPolicy format and no requested authentication context: the identity provider decides
    // (asking for a password context would refuse people who sign in with a security key).
    identifierFormat: null,
    disableRequestedAuthnContext: true,
  })
}

/** The SP metadata an identity provider imports: entity id, ACS URL, signed assertions wanted. */
export function spMetadata(settings: SsoSettings, baseUrl: string, context: SamlContext): string {
  return samlFor(
    settings,
    baseUrl,
    samlRequestStore(context.db, settings.orgId, context.now),
  ).generateServiceProviderMetadata(null, null)
}

/** Starts a sign-in for the transaction `key`: the identity provider's URL carrying the AuthnRequest. */
export async function samlAuthorizationUrl(
  settings: SsoSettings,
  baseUrl: string,
  key: string,
  context: SamlContext,
): Promise<string> {
  const store = samlRequestStore(context.db, settings.orgId, context.now, key)
  return samlFor(settings, baseUrl, store).getAuthorizeUrlAsync('', undefined, {})
}

function refused(): ApiError {
  return new ApiError(
    'unauthorized',
    'The SAML response was refused: it is not signed by the identity provider, not for this service, expired, or already used. Start again from the sign-in page.',
  )
}

/**
 * Verifies a posted SAML response and returns who it signs in, with the request it answers. Every
 * refusal is the same 401 (the reason is logged), so a forger learns nothing from it.
 */
export async function samlIdentityOf(
  settings: SsoSettings,
  baseUrl: string,
  samlResponse: string,
  context: SamlContext,
): Promise<{ identity: AssertedIdentity; requestId: string }> {
  const store = samlRequestStore(context.db, settings.orgId, context.now)
  let result: Awaited<ReturnType<SAML['validatePostResponseAsync']>>
  try {
    result = await samlFor(settings, baseUrl, store).validatePostResponseAsync({ SAMLResponse: samlResponse })
  } catch (error) {
    context.log.info(
      { org: settings.orgId, reason: error instanceof Error ? error.message : String(error) },
      'sso: SAML response refused',
    )
    throw refused()
  }
  const { profile } = result
  const requestId = typeof profile?.inResponseTo === 'string' ? profile.inResponseTo : undefined
  if (!profile || requestId === undefined) throw refused()
  // Of two responses to one request (a replay racing the original), only the one that claimed it goes on.
  if (!store.claimed(requestId) && (await store.removeAsync(requestId)) === null) {
    context.log.info({ org: settings.orgId }, 'sso: SAML response to a request already answered')
    throw refused()
  }
  const assertion = assertionIdentity(profile, context.now())
  if (
    assertion.id === '' ||
    !(await recordAssertion(context.db, settings.orgId, assertion.id, assertion.notOnOrAfter + CLOCK_SKEW_MS))
  ) {
    context.log.info({ org: settings.orgId }, 'sso: SAML assertion replayed')
    throw refused()
  }
  const subject = samlSubject(profile, settings.entryPoint ?? '')
  if (!subject) {
    throw new ApiError(
      'forbidden',
      'The identity provider sent only a transient identifier for you, which cannot be recognized next time: ' +
        'its administrators should release a persistent NameID or the subject-id attribute to this service.',
    )
  }
  return { identity: samlIdentity(profile, settings.groupsClaim, subject), requestId }
}
