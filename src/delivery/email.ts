import { createRequire } from 'node:module'
import type { Transporter } from 'nodemailer'
import type { InquiryRow } from '../db/schema.js'
import type { Recipient } from '../inquiries/handling.js'
import { kindLabel, labelledFields, readableTime } from '../inquiries/mapping.js'
import { propertyOf } from '../validation/guards.js'
import type { Confirmation } from './confirmation.js'
import { DeliveryError } from './webhook.js'

/**
 * Sends inquiry emails to the recipients decided when the inquiry arrived (the expert, the assistant,
 * the desk: src/inquiries/notifications.ts); `undefined` from `createEmailChannel` means SMTP is not
 * configured.
 */
export interface EmailChannel {
  send(inquiry: InquiryRow, recipients: readonly Recipient[], context: EmailContext): Promise<void>
  /** Sends the sender of `inquiry` the confirmation that it arrived (src/delivery/confirmation.ts). */
  confirm(inquiry: InquiryRow, confirmation: Confirmation): Promise<void>
  close(): void
}

const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

/** What an email says beyond the inquiry: the expert's name and the time zone of its dates. */
export interface EmailContext {
  /** The recipient expert's name; null for an inquiry to the desk (or an expert removed since). */
  expertName: string | null
  /**
   * IANA time zone of the dates, which each date names. The organization has no time zone setting, so
   * the outbox writes UTC.
   */
  timeZone: string
}

/** Subject and text of the email an expert receives. */
export function composeEmail(
  inquiry: InquiryRow,
  context: EmailContext = { expertName: null, timeZone: 'UTC' },
): { subject: string; text: string } {
  const sender = [inquiry.firstname, inquiry.lastname].filter(Boolean).join(' ')
  const when = (seconds: number) => readableTime(seconds, context.timeZone)
  const lines: [string, string | number | null][] = [
    ['From', `${sender} <${inquiry.email}>`],
    ['Received', when(Math.floor(inquiry.created_at / 1000))],
    ['Phone', inquiry.phone],
    ['Website', inquiry.website],
    ['Organization', inquiry.organization],
    [
      'Location',
      [inquiry.location_city, inquiry.location_state, inquiry.location_country].filter(Boolean).join(', ') ||
        null,
    ],
  ]
  for (const { label, text } of labelledFields(inquiry, when)) lines.push([label, text])
  const header = lines
    .filter(([, value]) => value !== null && value !== '')
    .map(([label, value]) => `${label}: ${value}`)
  const addressee =
    inquiry.username === null ? "the organization's inquiry desk" : (context.expertName ?? inquiry.username)
  const text = [
    `You have received a new ${kindLabel(inquiry.kind)} inquiry (#${inquiry.id}) for ${addressee}.`,
    '',
    ...header,
    '',
    inquiry.message,
    '',
    'Reply to this email to answer the sender directly.',
  ].join('\n')
  return { subject: `New ${kindLabel(inquiry.kind)} inquiry from ${sender}`, text }
}

/** nodemailer's error as a delivery error: its messages name the server's reply, never the URL's credentials. */
function failure(error: unknown): DeliveryError {
  const parts = ['code', 'responseCode', 'message'].map((key) => propertyOf(error, key))
  return new DeliveryError(`email failed: ${parts.filter((part) => part !== undefined).join(' ')}`)
}

/** An SMTP channel for `smtpUrl` (`smtp://user:pass@host:587`, `smtps://...`), or undefined when it is "". */
export function createEmailChannel(smtpUrl: string, from: string): EmailChannel | undefined {
  if (smtpUrl === '') return undefined
  // Loaded only when an SMTP server is configured: nodemailer costs about 20 MiB of memory.
  const nodemailer: typeof import('nodemailer') = createRequire(import.meta.url)('nodemailer')
  const transport: Transporter = nodemailer.createTransport({ url: smtpUrl, ...TIMEOUTS })
  return {
    async send(inquiry, recipients, context) {
      const { subject, text } = composeEmail(inquiry, context)
      try {
        await transport.sendMail({
          from,
          to: recipients.map((recipient) => recipient.email),
          replyTo: {
            name: [inquiry.firstname, inquiry.lastname].filter(Boolean).join(' '),
            address: inquiry.email,
          },
          subject,
          text,
          headers: { 'X-Expertdir-Inquiry': String(inquiry.id) },
        })
      } catch (error) {
        const parts = ['code', 'responseCode', 'message'].map((key) => propertyOf(error, key))
        // nodemailer's messages name the server's reply, never the credentials of the URL.
        throw new DeliveryError(`email failed: ${parts.filter((part) => part !== undefined).join(' ')}`)
      }
    },
    async confirm(inquiry, { subject, text }) {
      try {
        await transport.sendMail({
          from,
          to: inquiry.email,
          subject,
          text,
          headers: { 'X-Expertdir-Inquiry': String(inquiry.id), 'Auto-Submitted': 'auto-replied' },
        })
      } catch (error) {
        throw failure(error)
      }
    },
    close: () => transport.close(),
  }
}
