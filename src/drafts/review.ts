import type { Actor } from '../audit/actor.js'
import type { Queryable } from '../db/database.js'
import { readWorkflow } from '../workflow/settings.js'

/**
 * Which writes need review (CONTRACT §21, docs/editorial.md "Drafts and review"): those of a person whose
 * role the organization's `review.roles` lists, to a part its `review.sections` covers (`null`: every
 * part; a profile's `account` or a section). Posts and Q&A items are reviewed by role alone (sections
 * are a profile's). API clients, the command line and the service are never reviewed: a client
 * credential is the organization's own integration.
 */
export async function needsReview(
  db: Queryable,
  orgId: number,
  actor: Actor,
  part: { kind: 'profile'; part: string } | { kind: 'item' },
): Promise<boolean> {
  if (actor.kind !== 'person') return false
  const { review } = await readWorkflow(db, orgId)
  if (!review.roles.includes(actor.role)) return false
  if (part.kind === 'item' || review.sections === null) return true
  return review.sections.includes(part.part)
}

/** The roles that review drafts: they approve or return others' drafts and see every draft. */
export const REVIEWER_ROLES: readonly string[] = ['owner', 'admin', 'editor']

export const isReviewer = (actor: Actor): boolean =>
  actor.kind === 'person' && REVIEWER_ROLES.includes(actor.role)
