import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { AppContext } from '../app-context.js'
import { hashToken } from '../auth/secrets.js'
import { isUniqueViolation } from '../db/database.js'
import { ApiError } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'
import { typedRoutes } from '../http/typed-routes.js'
import { secureCookies, startSession } from '../sessions/cookie.js'
import {
  CONFIRMATION_TTL_MS,
  confirmationPending,
  findBoundPerson,
  insertBinding,
  insertConfirmation,
  takeConfirmation,
} from './bindings.js'
import type { TxtResolver } from './domains.js'
import { resolvePerson, type SignInOutcome } from './identity.js'
import type { SsoNotices } from './notices.js'
import type { OidcClients } from './oidc.js'
import { ssoForDomain } from './repository.js'
import {
  OidcCallbackQuery,
  type Protocol,
  SamlPost,
  SsoConfirmQuery,
  SsoLookup,
  SsoOptions,
} from './schemas.js'
import type { SecretBox } from './secret-box.js'
import { loadSsoSettings, type SsoSettings } from './settings.js'
import {
  insertTransaction,
  newTransactionKey,
  recordSamlPerson,
  samlTransactionKeyHash,
  TRANSACTION_TTL_MS,
  takeOidcTransaction,
  takeSamlTransaction,
} from './transactions.js'
import { baseUrlOf, ssoUrls } from './urls.js'

/** What single sign-on needs beyond the app's infrastructure. */
export interface SsoContext extends AppContext {
  /** Opens the stored OIDC client secrets; absent without EXPERTDIR_SECRET_KEY. */
  readonly secretBox: SecretBox | undefined
  /** The owners' notices of changes, and the mailer of confirmation links. */
  readonly notices: SsoNotices
  /** The DNS lookup that verifies a domain's TXT record. */
  readonly resolveTxt: TxtResolver
}

/** The browser's sign-in under way (src/sso/transactions.ts): sent back only to /auth/sso. */
const TRANSACTION_COOKIE = 'expertdir_sso'
const COOKIE_PATH = '/auth/sso'
/** Where a signed-in person lands. */
const DASHBOARD = '/admin/'
/** Where a person whose first sign-in waits for the emailed link lands: the sign-in page says so. */
const CHECK_EMAIL = '/admin/?sso=check-email'

const PROTOCOL_NAMES: Record<Protocol, string> = { oidc: 'OpenID Connect', saml: 'SAML' }

const errors = { '4xx': ErrorEnvelope }

function notConfirmable(): ApiError {
  return new ApiError(
    'unauthorized',
    'This link works once, for 30 minutes, in the browser where you signed in through single sign-on: open it there, or sign in again from the sign-in page.',
  )
}

const CONFIRMATION_SUBJECT = 'Confirm your single sign-on to the expert directory'

function confirmationText(url: string): string {
  return [
    'Someone (we hope you) just signed in to the expert directory through your organization’s single sign-on, for the first time with your account.',
    '',
    `To confirm it was you, open this link in the same browser within 30 minutes: ${url}`,
    '',
    'If it was not you, do not open the link, and tell your organization’s owner: someone may be trying to sign in as you.',
  ].join('\n')
}

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

  const setTransactionCookie = (
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    lifetimeMs = TRANSACTION_TTL_MS,
  ) => {
    reply.setCookie(TRANSACTION_COOKIE, key, {
      path: COOKIE_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies(request, config),
      maxAge: lifetimeMs / 1000,
    })
  }

  const transactionKey = (request: FastifyRequest): string => {
    const key = request.cookies[TRANSACTION_COOKIE]
    if (!key) throw notStarted()
    return key
  }

  /**
   * A first sign-in into an existing account: the link goes to the person's own address, and works
   * only in this browser (its transaction cookie, kept for the link's lifetime).
   */
  const confirmFirst = async (
    request: FastifyRequest,
    reply: FastifyReply,
    orgId: number,
    outcome: Extract<SignInOutcome, { kind: 'confirm' }>,
    keyHash: string,
    /** The browser's cookie, when it came (OIDC); SAML's ACS arrives without it. */
    key: string | undefined,
    landing: string,
  ) => {
    const { publicUrl } = config
    if (publicUrl === undefined || config.smtpUrl === '') {
      throw new ApiError(
        'forbidden',
        'Your account existed before single sign-on: its first sign-in must be confirmed through a link emailed to you, ' +
          'and this service cannot send one (its operator has set no email server or no public address). Sign in with your password, or ask the operator.',
      )
    }
    const token = await insertConfirmation(db, orgId, outcome.personId, outcome.subject, keyHash, now())
    const url = `${publicUrl}/auth/sso/confirm?token=${token}`
    const sent = await context.notices.mailer.send(
      [outcome.email],
      CONFIRMATION_SUBJECT,
      confirmationText(url),
    )
    if (sent !== 'sent') {
      throw new ApiError(
        'unavailable',
        'The confirmation email could not be sent: try again in a few minutes.',
      )
    }
    if (key !== undefined) setTransactionCookie(request, reply, key, CONFIRMATION_TTL_MS)
    return reply.code(303).header('cache-control', 'no-store').redirect(landing)
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
      const outcome = await resolvePerson(db, settings, identity, now())
      if (outcome.kind === 'confirm')
        return confirmFirst(request, reply, orgId, outcome, hashToken(key), key, CHECK_EMAIL)
      return signedIn(request, reply, outcome.personId)
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
      const outcome = await resolvePerson(db, settings, identity, now())
      if (outcome.kind === 'confirm') {
        const keyHash = await samlTransactionKeyHash(db, settings.orgId, requestId)
        if (keyHash === undefined) throw notStarted()
        // The browser's cookie comes with the completion step, which then sends it to the sign-in page.
        const complete = `${COOKIE_PATH}/saml/complete`
        return confirmFirst(request, reply, settings.orgId, outcome, keyHash, undefined, complete)
      }
      await recordSamlPerson(db, settings.orgId, requestId, outcome.personId)
      // A top-level GET: SameSite=Lax sends the transaction cookie with it.
      return reply.code(303).header('cache-control', 'no-store').redirect(`${COOKIE_PATH}/saml/complete`)
    },
  )

  app.get(
    '/auth/sso/saml/complete',
    { schema: { hide: true, querystring: Type.Object({}, { additionalProperties: false }) } },
    async (request, reply) => {
      const key = transactionKey(request)
      const personId = await takeSamlTransaction(db, key, now())
      if (personId === undefined) {
        if (!(await confirmationPending(db, key, now()))) throw notStarted()
        setTransactionCookie(request, reply, key, CONFIRMATION_TTL_MS)
        return reply.code(303).header('cache-control', 'no-store').redirect(CHECK_EMAIL)
      }
      return signedIn(request, reply, personId)
    },
  )

  // The link of a first sign-in's email: a mail scanner's GET, or one from another browser, lacks the
  // transaction cookie and leaves the confirmation in place.
  app.get(
    '/auth/sso/confirm',
    { schema: { hide: true, querystring: SsoConfirmQuery } },
    async (request, reply) => {
      const key = request.cookies[TRANSACTION_COOKIE]
      if (!key) throw notConfirmable()
      const confirmation = await takeConfirmation(db, request.query.token, key, now())
      if (!confirmation) throw notConfirmable()
      try {
        await insertBinding(db, confirmation.orgId, confirmation.personId, confirmation.subject, now())
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
        const bound = await findBoundPerson(db, confirmation.orgId, confirmation.subject)
        if (bound !== confirmation.personId) {
          throw new ApiError(
            'forbidden',
            'Your account is linked to another identity at this organization’s identity provider, or that identity to another account: ask your organization’s owner.',
          )
        }
      }
      return signedIn(request, reply, confirmation.personId)
    },
  )
}
