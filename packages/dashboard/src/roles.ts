import type { Me } from './api/session.ts'
import generated from './generated/schemas.json'

const REVIEWER_ROLES: readonly string[] = generated.workflow.reviewers

const hasScope = (me: Me, scope: string) => me.scope.split(' ').includes(scope)

export const canWrite = (me: Me) => hasScope(me, 'write')
export const canHandleInquiries = (me: Me) => hasScope(me, 'inquiries:handle')
/** Posts, Q&A, staff and the organization's profile are the organization's, out of an expert person's reach. */
export const writesContent = (me: Me) => canWrite(me) && me.role !== 'expert'
/** Owners and admins: the organization's settings (scope admin). */
export const administers = (me: Me) => hasScope(me, 'admin')
/** Finding experts for a pasted text: everyone who reads the organization's experts (not an expert person). */
export const findsExperts = (me: Me) => hasScope(me, 'read') && me.role !== 'expert'
export const readsInquiries = (me: Me) => hasScope(me, 'inquiries:read')
/**
 * Reviewers approve or send back others' drafts (CONTRACT §21): the reviewing roles of the server's own
 * table (src/drafts/review.ts), whatever the organization's review rules say today, so that drafts left
 * from earlier rules can still be decided.
 */
export const reviews = (me: Me) => canWrite(me) && REVIEWER_ROLES.includes(me.role)

/** Where a person starts: an expert on its own profile. */
export function homeOf(me: Me): string {
  if (me.role === 'expert' && me.expert) return `/experts/${me.expert}`
  return me.role === 'inquiries' ? '/inquiries' : '/experts'
}

/** An expert person may see only its own profile (with its publications) and its own inquiries. */
export function reaches(me: Me, path: string): boolean {
  if (me.role !== 'expert') return true
  const own = `/experts/${me.expert}`
  return path === own || path === `${own}/publications` || path === '/inquiries'
}
