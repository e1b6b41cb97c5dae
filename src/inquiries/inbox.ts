import type { Queryable } from '../db/database.js'
import { findExpertOrRenamed } from '../experts/repository.js'
import { idCursor } from '../http/cursor.js'
import type { InquiryStatus } from './handling.js'
import type { InquiryKind } from './kinds.js'
import { type InquiryFilter, type InquiryWithDeliveries, listInquiries } from './repository.js'
import { DEFAULT_PAGE_SIZE } from './schemas.js'

/** One request for a page of the inbox, as the API and the CLI take it: times in unix seconds. */
export interface InboxRequest {
  kind?: InquiryKind
  username?: string
  status?: InquiryStatus
  /** The id of the person handling them. */
  assignee?: number
  since?: number
  until?: number
  pageSize?: number
  cursor?: string
}

export interface InboxPage {
  items: InquiryWithDeliveries[]
  /** The cursor of the next page; null on the last one. */
  next_cursor: string | null
}

/** The inbox's paging cursor (CONTRACT §17): opaque to clients, refused when another list issued it. */
export const inboxCursor = idCursor('inq1.', 'this inbox')

/**
 * The inquiries to the expert `username` names: its current one, or an old one that still redirects
 * to it (CONTRACT §17), so the inquiries it received under any of its names. A username that leads
 * to no expert (one deleted since) matches the inquiries sent under it.
 */
async function recipientFilter(
  db: Queryable,
  orgId: number,
  username: string | undefined,
): Promise<Pick<InquiryFilter, 'expertId' | 'username'>> {
  if (username === undefined) return {}
  const expert = await findExpertOrRenamed(db, orgId, username)
  return expert ? { expertId: expert.id } : { username }
}

/** A page of the organization's inbox, newest first; a cursor not issued here is a validation error. */
export async function readInbox(db: Queryable, orgId: number, request: InboxRequest): Promise<InboxPage> {
  const { kind, username, status, assignee, since, until } = request
  const page = await listInquiries(db, orgId, {
    limit: request.pageSize ?? DEFAULT_PAGE_SIZE,
    before: inboxCursor.parameter(request.cursor),
    filter: {
      kind,
      ...(await recipientFilter(db, orgId, username)),
      status,
      assigneeId: assignee,
      since: since === undefined ? undefined : since * 1000,
      until: until === undefined ? undefined : until * 1000,
    },
  })
  return {
    items: page.items,
    next_cursor: page.nextBefore === undefined ? null : inboxCursor.encode(page.nextBefore),
  }
}
