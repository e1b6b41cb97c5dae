import type { FastifyBaseLogger } from 'fastify'
import type { AppContext } from '../app-context.js'
import { issueLink, linkBase, linkUrl } from '../people/links.js'
import type { LinkMailer } from '../people/mail.js'
import { findPersonByEmail } from '../people/repository.js'
import { RESET_MAILS_PER_ACCOUNT, RESET_REQUESTS_PER_ADDRESS, type ResetLimit } from './reset-limit.js'

/** Requests waiting beyond this many are dropped (logged): a flood must not grow memory without end. */
export const MAX_WAITING_RESETS = 1_000

/**
 * Password-reset requests (`POST /auth/password-reset`). The route only hands the address over and
 * answers at once: looking the account up, the allowances, the link and the email all happen after the
 * answer, one request at a time, so an address with an account is answered exactly as one without
 * (same code, same time) and a slow mail server slows no answer.
 */
export interface PasswordResets {
  /** Takes one request: `email` already in its key form, `client` the requester's address key. */
  request(email: string, client: string): void
  /** Resolves once every request taken so far has been handled (the app waits for it on close). */
  settled(): Promise<void>
}

export interface PasswordResetDeps extends Pick<AppContext, 'db' | 'now' | 'config'> {
  readonly mailer: LinkMailer
  readonly limit: ResetLimit
  readonly passwordsAllowed: (orgId: number) => Promise<boolean>
  readonly log: FastifyBaseLogger
}

export function passwordResets(deps: PasswordResetDeps): PasswordResets {
  const { db, now, config, mailer, limit, log } = deps
  let tail: Promise<void> = Promise.resolve()
  let waiting = 0

  async function handle(email: string, client: string): Promise<void> {
    const clientAllowed = await limit.take(`address:${client}`, RESET_REQUESTS_PER_ADDRESS)
    const person = await findPersonByEmail(db, email)
    if (!person || !(await deps.passwordsAllowed(Number(person.org_id)))) return
    const id = Number(person.id)
    if (!clientAllowed || !(await limit.take(`account:${id}`, RESET_MAILS_PER_ACCOUNT))) {
      log.info({ person: id }, 'password reset link not sent: over the hourly allowance')
      return
    }
    const token = await issueLink(db, id, 'reset', now())
    const outcome = await mailer.send(person.email, 'reset', linkUrl(linkBase(config), 'reset', token))
    log.info({ person: id, outcome }, 'password reset link')
  }

  return {
    request(email, client) {
      if (waiting >= MAX_WAITING_RESETS) {
        log.warn('password reset request dropped: too many waiting')
        return
      }
      waiting += 1
      tail = tail
        .then(() => handle(email, client))
        .catch((error: unknown) => log.error({ err: error }, 'password reset failed'))
        .finally(() => {
          waiting -= 1
        })
    },
    settled: () => tail,
  }
}
