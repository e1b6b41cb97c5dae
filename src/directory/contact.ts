import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { addressKey } from '../auth/failure-limit.js'
import { queueConfirmation } from '../delivery/repository.js'
import type { DocumentLookup } from '../derived/read-documents.js'
import { ApiError, type ErrorDetail } from '../errors.js'
import { findExpert } from '../experts/repository.js'
import type { InquiryKind } from '../inquiries/kinds.js'
import { emailRecipients } from '../inquiries/notifications.js'
import { createInquiry } from '../inquiries/service.js'
import { propertyOf } from '../validation/guards.js'
import type { AddressLimit } from './address-limits.js'
import {
  allowedKinds,
  HONEYPOT,
  kindLabel,
  readSubmission,
  renderContactForm,
  submittedValues,
} from './contact-form.js'
import { readPublicProfile } from './documents.js'
import {
  checkToken,
  type FormScope,
  formSecret,
  issueToken,
  MAX_AGE_MS,
  type TokenCheck,
} from './form-token.js'
import { contactPage, type KindLink, type PageScope, type ProfileRead } from './pages.js'
import { notificationOf } from './site.js'

/**
 * The expert page's contact form (CONTRACT §18): an inquiry of a kind the organization allows, sent
 * through the durable inquiry path of §6. Spam resistance without an outside service: a honeypot
 * field, a signed form token with a minimum fill time and a maximum age (it is also the submission's
 * idempotency key, so sending the same form twice stores one inquiry), and a per-address limit. Every
 * refusal answers the person with the form again, their text kept, and a sentence saying what to do.
 */

type VisibleExpert = (
  scope: PageScope,
  username: string,
) => Promise<{ found: DocumentLookup } | { renamedTo: string }>

interface ExpertRequest {
  Params: { corporation: string; username: string }
}

const TOKEN_REFUSALS: Record<Exclude<TokenCheck, 'valid'>, string> = {
  missing:
    'The form arrived without its security token, so it was not sent. Please send it again from this page.',
  invalid: 'The form’s security token is not valid, so it was not sent. Please send it again from this page.',
  too_fast:
    'The form was sent sooner than a person can fill it in, so it was not sent. Please check it and send it again.',
  expired: `The form was opened more than ${MAX_AGE_MS / 3_600_000} hours ago, so it was not sent. Please send it again from this page.`,
}

/** "A", "A and B", "A, B and C". */
function listed(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

/** Who receives a message, and whether its sender gets a confirmation, in the words the pages use. */
export interface DeliveryNotice {
  /** On the form: who receives it, and the confirmation. */
  form: string
  /** On the thank-you page: the same, once sent. */
  sent: string
}

export function contactHandler(context: AppContext, limit: AddressLimit, visibleExpert: VisibleExpert) {
  const { db, database, config } = context
  const emails = config.smtpUrl !== ''

  const kindsOf = (scope: PageScope) => allowedKinds(scope.site.kinds)
  const nameOf = (profile: ProfileRead) => {
    const [account] = profile.account
    return account ? `${account.firstname} ${account.lastname}`.trim() : ''
  }
  const usernameOf = (profile: ProfileRead, fallback: string) => profile.account[0]?.username ?? fallback

  async function token(scope: PageScope, username: string, kind: string): Promise<string> {
    const now = context.now()
    const secret = await formSecret(db, scope.site.id, now)
    return issueToken(secret, { orgId: scope.site.id, username, kind }, now)
  }

  /**
   * Who a message of `kind` to this expert reaches, as it is really routed: by email, those the
   * organization's notification settings name (src/inquiries/notifications.ts decides, from the same
   * settings) when an SMTP server is configured; always the organization's inquiry inbox. The sender
   * is told of the confirmation email only when one can be sent.
   */
  async function noticeOf(
    scope: PageScope,
    profile: ProfileRead,
    kind: InquiryKind,
  ): Promise<DeliveryNotice> {
    const name = nameOf(profile)
    const inbox = `${scope.site.name}’s staff`
    let emailed: string[] = []
    if (emails) {
      const expert = await findExpert(db, scope.site.id, usernameOf(profile, ''))
      const roles = emailRecipients(notificationOf(scope.site, kind), expert).map(({ role }) => role)
      emailed = [...new Set(roles)].map((role) =>
        role === 'expert'
          ? name
          : role === 'assistant'
            ? `${name}’s assistant`
            : `${scope.site.name}’s inquiry desk`,
      )
    }
    const confirmation = emails
      ? 'You will get an email confirming that it arrived.'
      : 'No confirmation email is sent, so keep a copy of your message if you need one.'
    if (emailed.length === 0)
      return {
        form: `Who receives it: ${inbox}, in their inquiry inbox. ${confirmation}`,
        sent: `${inbox} receive it in their inquiry inbox. ${emails ? 'A confirmation is on its way to your email address.' : confirmation}`,
      }
    return {
      form: `Who receives it: ${listed(emailed)} by email, and ${inbox} in their inquiry inbox. ${confirmation}`,
      sent: `${listed(emailed)} receive${emailed.length === 1 ? 's' : ''} it by email, and ${inbox} in their inquiry inbox. A confirmation is on its way to your email address.`,
    }
  }

  function form(
    scope: PageScope,
    profile: ProfileRead,
    kind: InquiryKind,
    tokenValue: string,
    notice: DeliveryNotice,
    refusal?: { problem: string; values: Record<string, string>; errors?: ErrorDetail[] },
  ): string {
    const username = usernameOf(profile, '')
    return renderContactForm({
      action: scope.urls.contact(username),
      kind,
      token: tokenValue,
      recipients: notice.form,
      ...(refusal ?? {}),
    })
  }

  /** The profile a contact request is for, or the redirect of a renamed expert. */
  async function expertOf(
    request: FastifyRequest<ExpertRequest>,
    scope: PageScope,
  ): Promise<{ redirect: string } | { profile: ProfileRead }> {
    const { username } = request.params
    const expert = await visibleExpert(scope, username)
    if ('renamedTo' in expert) return { redirect: scope.urls.contact(expert.renamedTo) }
    return { profile: await readPublicProfile(db, scope.site.id, username, expert.found) }
  }

  function kindFrom(scope: PageScope, value: unknown): InquiryKind {
    const kinds = kindsOf(scope)
    const kind = kinds.find((allowed) => allowed === (value ?? kinds[0]))
    if (!kind)
      throw new ApiError(
        'validation_failed',
        `This directory takes messages of these kinds only: ${kinds.map(kindLabel).join(', ')}.`,
      )
    return kind
  }

  function formPage(
    reply: FastifyReply,
    scope: PageScope,
    profile: ProfileRead,
    view: { status: number; title: string; message?: string; form?: string },
  ) {
    const name = nameOf(profile)
    return reply
      .code(view.status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(
        contactPage(scope, {
          name,
          expertHref: scope.urls.expert(usernameOf(profile, '')),
          title: view.title,
          ...(view.message ? { message: view.message } : {}),
          ...(view.form ? { form: view.form } : {}),
        }),
      )
  }

  return {
    /** The kind of the form on the expert page: the first the organization allows. */
    defaultKind(scope: PageScope): InquiryKind {
      return kindsOf(scope)[0] ?? 'general'
    },

    /** The form with a placeholder where each response puts a fresh token (the page is kept; tokens are not). */
    async formWithMarker(scope: PageScope, profile: ProfileRead, kind: InquiryKind) {
      const marker = randomBytes(16).toString('hex')
      return { form: form(scope, profile, kind, marker, await noticeOf(scope, profile, kind)), marker }
    },

    /** Links to the forms of the organization's other kinds. */
    otherKinds(scope: PageScope, profile: ProfileRead, kind: InquiryKind): KindLink[] {
      const username = usernameOf(profile, '')
      return kindsOf(scope)
        .filter((other) => other !== kind)
        .map((other) => ({ label: kindLabel(other), href: scope.urls.contact(username, other) }))
    },

    token,

    /** `GET .../:username/contact?kind=K`: the form of one kind on a page of its own. */
    async showForm(request: FastifyRequest<ExpertRequest>, reply: FastifyReply, scope: PageScope) {
      const expert = await expertOf(request, scope)
      if ('redirect' in expert) return reply.redirect(expert.redirect, 308)
      const { profile } = expert
      const kind = kindFrom(scope, propertyOf(request.query, 'kind'))
      const username = usernameOf(profile, request.params.username)
      return formPage(reply, scope, profile, {
        status: 200,
        title: `${kindLabel(kind)} to ${nameOf(profile)}`,
        form: form(
          scope,
          profile,
          kind,
          await token(scope, username, kind),
          await noticeOf(scope, profile, kind),
        ),
      })
    },

    /** `POST .../:username/contact`: checks, then the inquiry through the durable path of §6. */
    async submit(request: FastifyRequest<ExpertRequest>, reply: FastifyReply, scope: PageScope) {
      const expert = await expertOf(request, scope)
      if ('redirect' in expert) return reply.redirect(expert.redirect, 308)
      const { profile } = expert
      const username = usernameOf(profile, request.params.username)
      const values = submittedValues(request.body)
      const refuse = async (status: number, problem: string, kind: InquiryKind, errors?: ErrorDetail[]) =>
        formPage(reply, scope, profile, {
          status,
          title: 'Your message was not sent',
          form: form(
            scope,
            profile,
            kind,
            await token(scope, username, kind),
            await noticeOf(scope, profile, kind),
            {
              problem,
              values: { ...values, [HONEYPOT]: '' },
              ...(errors ? { errors } : {}),
            },
          ),
        })

      const kind = kindFrom(scope, values.kind)
      const wait = await limit.take(addressKey(request.ip))
      if (wait !== undefined) {
        const minutes = Math.max(1, Math.ceil(wait / 60_000))
        reply.header('retry-after', String(Math.ceil(wait / 1000)))
        return formPage(reply, scope, profile, {
          status: 429,
          title: 'Your message was not sent',
          message: `Several messages have come from your address in a short time. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        })
      }
      if ((values[HONEYPOT] ?? '') !== '')
        return refuse(
          400,
          'The field “Leave this field empty” was filled in, so the form was not sent. Please leave it empty and send again.',
          kind,
        )
      const formScope: FormScope = { orgId: scope.site.id, username, kind }
      const now = context.now()
      const check = checkToken(await formSecret(db, scope.site.id, now), values.token, formScope, now)
      if (check !== 'valid') return refuse(400, TOKEN_REFUSALS[check], kind)
      const submission = readSubmission(kind, username, values)
      if (submission.errors) return refuse(400, 'Some fields need your attention:', kind, submission.errors)
      try {
        const { id } = await createInquiry(
          database,
          scope.site.id,
          submission.input,
          `directory-form:${values.token}`,
          now,
        )
        // Queued also for a replayed form (it queues nothing twice), so that a process stopped between
        // the two commits leaves no sender unconfirmed once the form is sent again.
        await database.commits.run((trx) => queueConfirmation(trx, scope.site.id, id, now))
      } catch (error) {
        if (error instanceof ApiError && error.code === 'conflict')
          return refuse(
            409,
            'This form was already sent with other content. To send another message, use this fresh form.',
            kind,
          )
        throw error
      }
      return formPage(reply, scope, profile, {
        status: 200,
        title: 'Thank you: your message was sent',
        message: (await noticeOf(scope, profile, kind)).sent,
      })
    },
  }
}

export type ContactHandler = ReturnType<typeof contactHandler>
