import type { Queryable } from '../db/database.js'
import type { NoticeMailer } from '../people/mail.js'
import { REVIEWER_ROLES } from './review.js'
import type { DraftSummary } from './service.js'

/**
 * The emails of review (CONTRACT §21): reviewers (the organization's editors, admins and owners, the
 * author aside) when a draft is submitted; the author when it is approved or returned, with the
 * reviewer's comment. Sent once the step has committed, by the process that made it (the step commits
 * once: a second approval is a 409), through the SMTP server of the email channel; none without one.
 * Links are built only from the configured public address (`EXPERTDIR_PUBLIC_URL`); without it there
 * is no link.
 */
export interface DraftNotices {
  mailer: NoticeMailer
  publicUrl: string | undefined
  onError: (error: unknown) => void
}

export type DraftEvent = 'submitted' | 'approved' | 'returned'

const what = (draft: DraftSummary) =>
  draft.record.kind === 'profile'
    ? `the ${draft.part === 'account' ? 'account' : draft.part} of the profile ${draft.record.username ?? draft.record.id}`
    : `${draft.record.kind === 'spotlight' ? 'post' : 'Q&A item'} ${draft.record.id}`

async function recipients(db: Queryable, orgId: number, event: DraftEvent, draft: DraftSummary) {
  let query = db.selectFrom('people').select('email').where('org_id', '=', orgId)
  query =
    event === 'submitted'
      ? query.where('role', 'in', [...REVIEWER_ROLES]).where('id', '!=', draft.author.id)
      : query.where('id', '=', draft.author.id)
  return (await query.execute()).map((person) => person.email)
}

function message(event: DraftEvent, draft: DraftSummary, publicUrl: string | undefined) {
  const subject = {
    submitted: `A change waits for your review: ${what(draft)}`,
    approved: `Your change was approved: ${what(draft)}`,
    returned: `Your change was sent back: ${what(draft)}`,
  }[event]
  const lines = [
    {
      submitted: `A change to ${what(draft)} was submitted for review (draft ${draft.id}).`,
      approved: `Your change to ${what(draft)} (draft ${draft.id}) was approved and published.`,
      returned: `Your change to ${what(draft)} (draft ${draft.id}) was sent back to you.`,
    }[event],
    '',
  ]
  if (event === 'returned' && draft.comment) lines.push('The reviewer wrote:', '', draft.comment, '')
  if (publicUrl !== undefined) lines.push(`Open the dashboard: ${publicUrl}/admin/`)
  return { subject, text: lines.join('\n') }
}

/** Emails the people a step concerns; never throws (a failure is told to `onError`). */
export async function sendDraftNotice(
  notices: DraftNotices,
  db: Queryable,
  orgId: number,
  event: DraftEvent,
  draft: DraftSummary,
): Promise<void> {
  try {
    const to = await recipients(db, orgId, event, draft)
    const { subject, text } = message(event, draft, notices.publicUrl)
    await notices.mailer.send(to, subject, text)
  } catch (error) {
    notices.onError(error)
  }
}
