import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { ApiError } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { secureCookies, startSession } from '../sessions/cookie.js'
import { resolvePerson } from './identity.js'
import type { OidcClients } from './oidc.js'
import { ssoForDomain } from './repository.js'
import { OidcCallbackQuery, type Protocol, SamlPost, SsoLookup, SsoOptions } from './schemas.js'
import type { SecretBox } from './secret-box.js'
import { loadSsoSettings, type SsoSettings } from './settings.js'
import {
  insertTransaction,
  newTransactionKey,
  recordSamlPerson,
  TRANSACTION_TTL_MS,
  takeOidcTransaction,
  takeSamlTransaction,
} from './transactions.js'
import { baseUrlOf, ssoUrls } from './urls.js'

/** What single sign-on needs beyond the app's infrastructure. */
export interface SsoContext extends AppContext {
  /** Opens the stored OIDC client secrets; absent without EXPERTDIR_SECRET_KEY. */
  readonly secretBox: SecretBox | undefined
}

/** The browser's sign-in under way (src/sso/transactions.ts): sent back only to /auth/sso. */
const TRANSACTION_COOKIE = 'expertdir_sso'
const COOKIE_PATH = '/auth/sso'
/** Where a signed-in person lands. */
const DASHBOARD = '/admin/'

const PROTOCOL_NAMES: Record<Protocol, string> = { oidc: 'OpenID Connect', saml: 'SAML' }

const errors = { '4xx': ErrorEnvelope }

function notStarted(): ApiError {
  return new ApiError(
    'unauthorized',
    'This sign-in was not started in this browser, was already used, or took longer than 10 minutes: start again from the sign-in page.',
  )
}

/**
 * Single sign-on in the browser (CONTRACT §14, docs/security.md): the sign-in page's lookup of an
 * organization's SSO, the OpenID Connect redirect and callback, and the SAML metadata, redirect,
 * assertion consumer service and completion. Each sign-in ends in a session made as password
 * sign-in makes one (`startSession`), and a redirect to the dashboard.
 */
export async function ssoRoutes(scope: FastifyInstance, context: SsoContext): Promise<void> {
  const { db, now, config } = context
  const app = typedRoutes(scope)
  // The protocols' libraries (openid-client; node-saml with its XML stack) are loaded by the first
  // sign-in that uses them, not by every process at start.
  let oidcClients: Promise<OidcClients> | undefined
  const oidc = () =>
    (oidcClients ??= import('./oidc.js').then((module) => module.oidcClients(context.secretBox, scope.log)))
  const samlProvider = () => import('./saml.js')
  const saml = { db, now, log: scope.log }
  const base = (request: FastifyRequest) => baseUrlOf(request, config.publicUrl)

  const settingsFor = async (orgId: number, protocol: Protocol): Promise<SsoSettings> => {
    const settings = await loadSsoSettings(db, orgId)
    if (settings?.protocol !== protocol) {
      throw new ApiError('not_found', `This organization has no ${PROTOCOL_NAMES[protocol]} sign-in set up.`)
    }
    return settings
  }

  const option = (request: FastifyRequest, orgId: number, protocol: Protocol, passwordsOff: boolean) => ({
    organization: orgId,
    protocol,
    sign_in_url: ssoUrls(base(request), orgId).signIn(protocol),
    passwords: !passwordsOff,
  })

  const setTransactionCookie = (request: FastifyRequest, reply: FastifyReply, key: string) => {
    reply.setCookie(TRANSACTION_COOKIE, key, {
      path: COOKIE_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies(request, config),
      maxAge: TRANSACTION_TTL_MS / 1000,
    })
  }

  const transactionKey = (request: FastifyRequest): string => {
    const key = request.cookies[TRANSACTION_COOKIE]
    if (!key) throw notStarted()
    return key
  }

  /** The end of every sign-in: the session cookie, the transaction's cookie gone, the dashboard. */
  const signedIn = async (request: FastifyRequest, reply: FastifyReply, personId: number) => {
    await startSession(context, request, reply, personId)
    reply.clearCookie(TRANSACTION_COOKIE, { path: COOKIE_PATH })
    return reply.code(303).header('cache-control', 'no-store').redirect(DASHBOARD)
  }

  app.get(
    '/auth/sso',
    {
      schema: {
        operationId: 'findSingleSignOn',
        tags: ['sessions'],
        summary: 'The single sign-on of the organizations that answer for an email’s domain',
        description:
          'For the sign-in page, without a session: only the domain of the address is used (an organization lists ' +
          'it in its allowed_domains), so the answer says nothing of whether the address has an account.',
        querystring: SsoLookup,
        response: { 200: Success(SsoOptions), ...errors },
      },
    },
    async (request) => {
      const { email } = request.query
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase()
      const rows = await ssoForDomain(db, domain)
      return ok({
        options: rows.flatMap((row) =>
          row.protocol === 'oidc' || row.protocol === 'saml'
            ? [option(request, Number(row.org_id), row.protocol, Number(row.passwords_off) === 1)]
            : [],
        ),
      })
    },
  )

  app.get(
    '/auth/sso/:corporation',
    {
      schema: {
        operationId: 'getOrganizationSingleSignOn',
        tags: ['sessions'],
        summary: 'An organization’s single sign-on button, for the sign-in page',
        description: 'The protocol and where to send the browser; 404 when the organization has none.',
        params: CorporationParams,
        response: { 200: Success(SsoOptions), ...errors },
      },
    },
    async (request) => {
      const orgId = request.params.corporation
      const settings = await loadSsoSettings(db, orgId)
      if (!settings) throw new ApiError('not_found', 'This organization has no single sign-on set up.')
      return ok({ options: [option(request, orgId, settings.protocol, settings.passwordsOff)] })
    },
  )

  app.get(
    '/auth/sso/:corporation/oidc',
    { schema: { hide: true, params: CorporationParams } },
    async (request, reply) => {
      const settings = await settingsFor(request.params.corporation, 'oidc')
      const key = newTransactionKey()
      const url = await (await oidc()).authorizationUrl(
        settings,
        key,
        ssoUrls(base(request), settings.orgId).redirectUri,
      )
      await insertTransaction(db, key, settings.orgId, 'oidc', now())
      setTransactionCookie(request, reply, key)
      return reply.header('cache-control', 'no-store').redirect(url.href)
    },
  )

  app.get(
    '/auth/sso/oidc/callback',
    { schema: { hide: true, querystring: OidcCallbackQuery } },
    async (request, reply) => {
      const key = transactionKey(request)
      const orgId = await takeOidcTransaction(db, key, now())
      if (orgId === undefined) throw notStarted()
      const settings = await settingsFor(orgId, 'oidc')
      const redirectUri = ssoUrls(base(request), orgId).redirectUri
      const answer = new URL(redirectUri)
      answer.search = new URL(request.url, redirectUri).search
      const identity = await (await oidc()).identity(settings, key, answer)
      return signedIn(request, reply, await resolvePerson(db, settings, identity, now()))
    },
  )

  app.get(
    '/auth/sso/:corporation/saml/metadata',
    { schema: { hide: true, params: CorporationParams } },
    async (request, reply) => {
      const settings = await settingsFor(request.params.corporation, 'saml')
      const { spMetadata } = await samlProvider()
      return reply
        .type('application/samlmetadata+xml; charset=utf-8')
        .send(spMetadata(settings, base(request), saml))
    },
  )

  app.get(
    '/auth/sso/:corporation/saml',
    { schema: { hide: true, params: CorporationParams } },
    async (request, reply) => {
      const settings = await settingsFor(request.params.corporation, 'saml')
      const key = newTransactionKey()
      const { samlAuthorizationUrl } = await samlProvider()
      const url = await samlAuthorizationUrl(settings, base(request), key, saml)
      setTransactionCookie(request, reply, key)
      return reply.header('cache-control', 'no-store').redirect(url)
    },
  )

  // The identity provider's form POST arrives cross-site, without our cookies and without our Origin:
  // the one state-changing /auth route with no same-origin check. The signed assertion is its proof;
  // the browser's own transaction cookie is checked at the completion step below (docs/security.md).
  app.post(
    '/auth/sso/:corporation/saml/acs',
    { schema: { hide: true, params: CorporationParams, body: SamlPost } },
    async (request, reply) => {
      const settings = await settingsFor(request.params.corporation, 'saml')
      const { samlIdentityOf } = await samlProvider()
      const { identity, requestId } = await samlIdentityOf(
        settings,
        base(request),
        request.body.SAMLResponse,
        saml,
      )
      const personId = await resolvePerson(db, settings, identity, now())
      await recordSamlPerson(db, settings.orgId, requestId, personId)
      // A top-level GET: SameSite=Lax sends the transaction cookie with it.
      return reply.code(303).header('cache-control', 'no-store').redirect(`${COOKIE_PATH}/saml/complete`)
    },
  )

  app.get(
    '/auth/sso/saml/complete',
    { schema: { hide: true, querystring: Type.Object({}, { additionalProperties: false }) } },
    async (request, reply) => {
      const personId = await takeSamlTransaction(db, transactionKey(request), now())
      if (personId === undefined) throw notStarted()
      return signedIn(request, reply, personId)
    },
  )
}
