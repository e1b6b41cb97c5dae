import fastifyCookie from '@fastify/cookie'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { addressKey } from '../auth/failure-limit.js'
import type { Lockout } from '../auth/lockout.js'
import { isRole, roleScopes } from '../auth/roles.js'
import { formatScopes } from '../auth/scopes.js'
import { ApiError } from '../errors.js'
import { ErrorEnvelope, ok, Success } from '../http/envelope.js'
import { typedRoutes } from '../http/typed-routes.js'
import { linkBase, linkOrganization } from '../people/links.js'
import type { LinkMailer } from '../people/mail.js'
import { decoyHash, verifyPassword } from '../people/passwords.js'
import { findPersonByEmail, findPersonById } from '../people/repository.js'
import { emailKey, setPassword, setPasswordWithLink } from '../people/service.js'
import { clearSessionCookie, lifetimesOf, SESSION_COOKIE, startSession } from './cookie.js'
import { checkJson, checkSameOrigin } from './guards.js'
import { passwordResets } from './password-resets.js'
import { endSession, issuePersonToken, type LiveSession, useSession } from './repository.js'
import type { ResetLimit } from './reset-limit.js'
import {
  DashboardToken,
  Done,
  EmptyBody,
  LinkUse,
  Me,
  PasswordChange,
  ResetRequest,
  SignIn,
} from './schemas.js'

/** What the sign-in routes need beyond the app's infrastructure. */
export interface SessionContext extends AppContext {
  /** Consecutive failed sign-ins per account (email). */
  readonly accountLockout: Lockout
  /** Failed sign-ins per address, whatever the account: a higher count. */
  readonly addressLockout: Lockout
  readonly mailer: LinkMailer
  /** The hourly allowances of password-reset emails (per account, per client address). */
  readonly resetLimit: ResetLimit
  /**
   * Whether the organization's people may use passwords: an organization's single sign-on can turn
   * them off (src/sso), and then password sign-in, resets and links are refused as wrong ones are.
   */
  readonly passwordsAllowed: (orgId: number) => Promise<boolean>
}

/**
 * Failed sign-ins from one address (any accounts) before it is locked out for 15 minutes: higher than
 * the per-account count (10), so that a shared address (an office's) is not locked out by one person.
 */
export const ADDRESS_SIGN_IN_FAILURES = 50
const errors = { '4xx': ErrorEnvelope }

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A cookie-authenticated route that changes state: same origin and JSON only (src/sessions/guards.ts). */
    sameOrigin?: boolean
  }
}

function wrongCredentials(): ApiError {
  return new ApiError(
    'invalid_credentials',
    'The email or the password is wrong, or the account is locked for a while.',
  )
}

function signedOut(): ApiError {
  return new ApiError('unauthorized', 'Sign in first: there is no live session.')
}

function meOf(session: LiveSession) {
  const role = isRole(session.role) ? session.role : 'expert'
  return {
    id: session.person_id,
    organization: session.org_id,
    email: session.email,
    name: session.name,
    role,
    expert: role === 'expert' ? session.expert_username : null,
    scope: formatScopes(roleScopes(role)),
    password_change_required: session.password_must_change === 1,
    session_expires_at: new Date(session.expires_at).toISOString(),
  }
}

/**
 * Sign-in with a password, the session cookie, and the dashboard's way to the API (CONTRACT §14):
 * `POST /auth/token` mints a short-lived bearer token for the signed-in person. The cookie
 * authenticates nothing but these routes.
 */
export async function sessionRoutes(scope: FastifyInstance, context: SessionContext): Promise<void> {
  const { db, now, config } = context
  const app = typedRoutes(scope)
  const lifetimes = lifetimesOf(config)
  await app.register(fastifyCookie)
  const resets = passwordResets({ ...context, limit: context.resetLimit, log: scope.log })
  scope.addHook('onClose', () => resets.settled())
  if (config.smtpUrl !== '' && !config.publicUrl) {
    scope.log.warn(
      { links: linkBase(config) },
      'EXPERTDIR_PUBLIC_URL is not set: emailed sign-in links point at the listening address',
    )
  }

  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.config.sameOrigin) return
    checkSameOrigin(request, config.publicUrl)
    checkJson(request)
  })

  /** The live session of a cookie value, read from the table now; 401 without one. */
  const liveSession = async (token: string | undefined): Promise<LiveSession> => {
    if (!token) throw signedOut()
    const live = await useSession(db, token, now(), lifetimes)
    if (!live) throw signedOut()
    return live
  }
  const session = (request: FastifyRequest) => liveSession(request.cookies[SESSION_COOKIE])

  app.post(
    '/auth/sign-in',
    {
      config: { sameOrigin: true },
      schema: {
        operationId: 'signIn',
        tags: ['sessions'],
        summary: 'Sign in with email and password; sets the session cookie',
        description:
          'Same origin and JSON only. A wrong password, an unknown email and a locked-out account or address all get the same 401 invalid_credentials.',
        body: SignIn,
        response: { 200: Success(Me), ...errors },
      },
    },
    async (request, reply) => {
      const key = emailKey(request.body.email)
      const accountKey = `person:${key}`
      const address = `person-address:${addressKey(request.ip)}`
      const locked =
        (await context.accountLockout.isLocked(accountKey)) ||
        (await context.addressLockout.isLocked(address))
      const person = await findPersonByEmail(db, key)
      // The same argon2 check runs whatever the outcome, so timing tells nothing apart.
      const matches = await verifyPassword(
        request.body.password,
        person?.password_hash ?? (await decoyHash()),
      )
      if (
        locked ||
        !person ||
        person.password_hash === null ||
        !matches ||
        !(await context.passwordsAllowed(Number(person.org_id)))
      ) {
        await context.accountLockout.recordFailure(accountKey)
        await context.addressLockout.recordFailure(address)
        throw wrongCredentials()
      }
      await context.accountLockout.reset(accountKey)
      const token = await startSession(context, request, reply, Number(person.id))
      return ok(meOf(await liveSession(token)))
    },
  )

  app.post(
    '/auth/sign-out',
    {
      config: { sameOrigin: true },
      schema: {
        operationId: 'signOut',
        tags: ['sessions'],
        summary: 'End the session: its cookie and every token it minted stop working at once',
        body: EmptyBody,
        response: { 200: Success(Done), ...errors },
      },
    },
    async (request, reply) => {
      const live = await session(request)
      await endSession(db, live.id)
      clearSessionCookie(request, reply, config)
      return ok({ done: true as const })
    },
  )

  app.get(
    '/auth/me',
    {
      schema: {
        operationId: 'getSignedInPerson',
        tags: ['sessions'],
        summary: 'Who is signed in (from the session cookie)',
        response: { 200: Success(Me), ...errors },
      },
    },
    async (request) => ok(meOf(await session(request))),
  )

  app.post(
    '/auth/token',
    {
      config: { sameOrigin: true },
      schema: {
        operationId: 'createDashboardToken',
        tags: ['sessions'],
        summary: 'A short-lived bearer token for /v2 with the scopes of the signed-in person’s role',
        description:
          'Same origin, JSON only. The token dies with the session (sign-out, password change, removal). ' +
          "An expert person's token reaches only its own expert.",
        body: EmptyBody,
        response: { 200: Success(DashboardToken), ...errors },
      },
    },
    async (request, reply) => {
      const live = await session(request)
      if (live.password_must_change === 1) {
        throw new ApiError('forbidden', 'Change the one-time password first (POST /auth/password).')
      }
      const ttl = config.personTokenTtlSeconds
      const issued = await issuePersonToken(db, live.id, now(), ttl * 1000)
      reply.header('cache-control', 'no-store')
      return ok({
        access_token: issued.token,
        token_type: 'Bearer' as const,
        expires_in: ttl,
        scope: meOf(live).scope,
        organization: live.org_id,
      })
    },
  )

  app.post(
    '/auth/password',
    {
      config: { sameOrigin: true },
      schema: {
        operationId: 'changePassword',
        tags: ['sessions'],
        summary: 'Change the password; every other session of the person ends',
        body: PasswordChange,
        response: { 200: Success(Done), ...errors },
      },
    },
    async (request) => {
      const live = await session(request)
      const person = await findPersonById(db, live.person_id)
      if (
        !person?.password_hash ||
        !(await verifyPassword(request.body.current_password, person.password_hash))
      ) {
        throw new ApiError('validation_failed', 'The current password is wrong.', {
          details: [{ field: 'current_password', message: 'is not the password in use' }],
        })
      }
      await setPassword(db, person, request.body.new_password, now(), live.id)
      return ok({ done: true as const })
    },
  )

  app.post(
    '/auth/password-reset',
    {
      config: { sameOrigin: true },
      schema: {
        operationId: 'requestPasswordReset',
        tags: ['sessions'],
        summary: 'Email a single-use password-reset link (valid 1 hour) to the address, if it has an account',
        description:
          'The answer is the same, and comes as soon, whether or not the address has an account: the email is ' +
          'sent after the answer. An account receives at most 3 reset emails an hour, and a client address ' +
          'may ask 20 times an hour; requests past that are dropped silently. The link points at ' +
          'EXPERTDIR_PUBLIC_URL (else the configured listening address), never at the request’s host.',
        body: ResetRequest,
        response: { 200: Success(Done), ...errors },
      },
    },
    async (request) => {
      resets.request(emailKey(request.body.email), addressKey(request.ip))
      return ok({ done: true as const })
    },
  )

  for (const purpose of ['invitation', 'reset'] as const) {
    app.post(
      purpose === 'invitation' ? '/auth/invitation/accept' : '/auth/password-reset/complete',
      {
        config: { sameOrigin: true },
        schema: {
          operationId: purpose === 'invitation' ? 'acceptInvitation' : 'completePasswordReset',
          tags: ['sessions'],
          summary:
            purpose === 'invitation'
              ? 'Set the first password with an invitation link (single use, 7 days); the person is signed in'
              : 'Set a new password with a reset link (single use, 1 hour); every session of the person ends',
          ...(purpose === 'invitation'
            ? {
                description: 'Sets the session cookie, as a sign-in does: the invitation proved the address.',
              }
            : {}),
          body: LinkUse,
          response: { 200: Success(Done), ...errors },
        },
      },
      async (request, reply) => {
        const orgId = await linkOrganization(db, request.body.token, purpose)
        const allowed = orgId !== undefined && (await context.passwordsAllowed(orgId))
        const personId = allowed
          ? await setPasswordWithLink(db, request.body.token, purpose, request.body.password, now())
          : undefined
        if (personId === undefined) {
          throw new ApiError('not_found', 'This link is unknown, used or expired: ask for a new one.')
        }
        if (purpose === 'invitation') await startSession(context, request, reply, personId)
        return ok({ done: true as const })
      },
    )
  }
}
