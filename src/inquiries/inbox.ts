import type { Queryable } from '../db/database.js'
import { cursorParameter, encodeCursor } from './cursor.js'
import type { InquiryStatus } from './handling.js'
import type { InquiryKind } from './kinds.js'
import { type InquiryWithDeliveries, listInquiries } from './repository.js'
import { DEFAULT_PAGE_SIZE } from './schemas.js'

/** One request for a page of the inbox, as the API and the CLI take it: times in unix seconds. */
export interface InboxRequest {
  kind?: InquiryKind
  username?: string
  status?: InquiryStatus
  assignee?: string
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

/** A page of the organization's inbox, newest first; a cursor not issued here is a validation error. */
export async function readInbox(db: Queryable, orgId: number, request: InboxRequest): Promise<InboxPage> {
  const { kind, username, status, assignee, since, until } = request
  const page = await listInquiries(db, orgId, {
    limit: request.pageSize ?? DEFAULT_PAGE_SIZE,
    before: cursorParameter(request.cursor),
    filter: {
      kind,
      username,
      status,
      assignee: assignee?.toLowerCase(),
      since: since === undefined ? undefined : since * 1000,
      until: until === undefined ? undefined : until * 1000,
    },
  })
  return {
    items: page.items,
    next_cursor: page.nextBefore === undefined ? null : encodeCursor(page.nextBefore),
  }
}
