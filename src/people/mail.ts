import { createRequire } from 'node:module'
import type { LinkPurpose } from './links.js'

/**
 * Sends invitation and password-reset links through the email channel's SMTP server
 * (`EXPERTDIR_SMTP_URL`). Unlike inquiry notifications these are sent at once rather than queued in
 * the outbox: a queued message would keep a live link (a secret) in the database, where only hashes
 * belong. A failed send leaves nothing behind; the person asks again (reset) or is invited again.
 */
export interface LinkMailer {
  /** Resolves with what happened; never throws. */
  send(to: string, purpose: LinkPurpose, url: string): Promise<'sent' | 'failed' | 'skipped'>
  close(): void
}

const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }

const MESSAGES: Record<LinkPurpose, { subject: string; body: (url: string) => string }> = {
  invitation: {
    subject: 'You are invited to the expert directory',
    body: (url) =>
      [
        'You have been invited to sign in to your organization’s expert directory.',
        '',
        `Choose your password here (the link works once, for 7 days): ${url}`,
      ].join('\n'),
  },
  reset: {
    subject: 'Reset your expert directory password',
    body: (url) =>
      [
        'Someone (we hope you) asked to reset the password of this address.',
        '',
        `Choose a new password here (the link works once, for 1 hour): ${url}`,
        '',
        'If it was not you, ignore this message: your password stays as it is.',
      ].join('\n'),
  },
}

export function createLinkMailer(
  smtpUrl: string,
  from: string,
  onError: (error: unknown) => void,
): LinkMailer {
  if (smtpUrl === '') return { send: async () => 'skipped', close() {} }
  // Loaded only when an SMTP server is configured: nodemailer costs about 20 MiB of memory.
  const nodemailer: typeof import('nodemailer') = createRequire(import.meta.url)('nodemailer')
  const transport = nodemailer.createTransport({ url: smtpUrl, ...TIMEOUTS })
  return {
    async send(to, purpose, url) {
      const message = MESSAGES[purpose]
      try {
        await transport.sendMail({ from, to, subject: message.subject, text: message.body(url) })
        return 'sent'
      } catch (error) {
        onError(error)
        return 'failed'
      }
    },
    close: () => transport.close(),
  }
}

/** A plain message to one or more people: a notice (SSO settings changed) or a confirmation link. */
export interface NoticeMailer {
  /** Resolves with what happened; never throws. */
  send(to: readonly string[], subject: string, text: string): Promise<'sent' | 'failed' | 'skipped'>
  close(): void
}

/** Sends notices at once through the SMTP server (`EXPERTDIR_SMTP_URL`); skipped when none is set. */
export function createNoticeMailer(
  smtpUrl: string,
  from: string,
  onError: (error: unknown) => void,
): NoticeMailer {
  if (smtpUrl === '') return { send: async () => 'skipped', close() {} }
  const nodemailer: typeof import('nodemailer') = createRequire(import.meta.url)('nodemailer')
  const transport = nodemailer.createTransport({ url: smtpUrl, ...TIMEOUTS })
  return {
    async send(to, subject, text) {
      if (to.length === 0) return 'skipped'
      try {
        await transport.sendMail({ from, to: [...to], subject, text })
        return 'sent'
      } catch (error) {
        onError(error)
        return 'failed'
      }
    },
    close: () => transport.close(),
  }
}
