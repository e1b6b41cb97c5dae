import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { addressKey } from '../auth/failure-limit.js'
import type { DocumentLookup } from '../derived/read-documents.js'
import { ApiError, type ErrorDetail } from '../errors.js'
import type { InquiryKind } from '../inquiries/kinds.js'
import { createInquiry } from '../inquiries/service.js'
import { propertyOf } from '../validation/guards.js'
import {
  allowedKinds,
  HONEYPOT,
  kindLabel,
  readSubmission,
  renderContactForm,
  submittedValues,
} from './contact-form.js'
import type { ContactLimit } from './contact-limit.js'
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

export function contactHandler(context: AppContext, limit: ContactLimit, visibleExpert: VisibleExpert) {
  const { db, database } = context

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

  function form(
    scope: PageScope,
    profile: ProfileRead,
    kind: InquiryKind,
    tokenValue: string,
    refusal?: { problem: string; values: Record<string, string>; errors?: ErrorDetail[] },
  ): string {
    const username = usernameOf(profile, '')
    return renderContactForm({
      action: scope.urls.contact(username),
      kind,
      token: tokenValue,
      recipient: nameOf(profile),
      organization: scope.site.name,
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
    formWithMarker(scope: PageScope, profile: ProfileRead, kind: InquiryKind) {
      const marker = randomBytes(16).toString('hex')
      return { form: form(scope, profile, kind, marker), marker }
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
        form: form(scope, profile, kind, await token(scope, username, kind)),
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
          form: form(scope, profile, kind, await token(scope, username, kind), {
            problem,
            values: { ...values, [HONEYPOT]: '' },
            ...(errors ? { errors } : {}),
          }),
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
        await createInquiry(database, scope.site.id, submission.input, `directory-form:${values.token}`, now)
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
        message: `${nameOf(profile)} and ${scope.site.name} have received your message and will answer you by email.`,
      })
    },
  }
}

export type ContactHandler = ReturnType<typeof contactHandler>
