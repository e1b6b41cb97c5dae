import type { DraftState, DraftSummary } from '../api/drafts.ts'
import { sectionLabel } from '../schemas.ts'

/** How the review screens name a draft's record, its part, its author and its state. */

/** The record: a profile's name, a post's title, the question (as they read now). */
export function draftRecordName(draft: DraftSummary): string {
  const { kind, id, username, title } = draft.record
  if (kind === 'spotlight') return title ? `Post “${title}”` : `Post ${id}`
  if (kind === 'question') return title ? `Question “${title}”` : `Question ${id}`
  return title || username || `Profile ${id}`
}

/** The part of the record it changes: a profile's account or a section; a post's or a question's fields. */
export function draftPartName(draft: DraftSummary): string {
  if (draft.record.kind !== 'profile') return draft.record.kind === 'spotlight' ? 'The post' : 'The question'
  return draft.part === 'account' ? 'Account' : sectionLabel(draft.part)
}

/** Who wrote it, and for whom when a delegate did. */
export function draftAuthorLine(draft: DraftSummary): string {
  const name = draft.author.name || 'a person since removed'
  if (!draft.author.delegate) return `by ${name}`
  return `by ${name}, as delegate of ${draft.record.title || draft.record.username || 'the expert'}`
}

/** The states a reviewer filters the queue by, in the order offered; `waiting`: every one not yet published. */
export const QUEUE_FILTERS: readonly { value: DraftState | 'waiting'; label: string }[] = [
  { value: 'submitted', label: 'Waiting for review' },
  { value: 'returned', label: 'Sent back' },
  { value: 'open', label: 'Not submitted yet' },
  { value: 'approved', label: 'Approved for later' },
  { value: 'waiting', label: 'Every draft not yet published' },
  { value: 'published', label: 'Published' },
]

/** A draft's state in a word or two, for its badge. */
export function draftStateLabel(state: string): string {
  switch (state) {
    case 'open':
      return 'Not submitted'
    case 'submitted':
      return 'Waiting for review'
    case 'returned':
      return 'Sent back'
    case 'approved':
      return 'Approved for later'
    case 'published':
      return 'Published'
    default:
      return state
  }
}
