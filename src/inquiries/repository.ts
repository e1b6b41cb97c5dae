import type { Queryable } from '../db/database.js'
import type { DeliveryChannel, DeliveryRow, InquiryRow, NewInquiryRow } from '../db/schema.js'
import { type Assignee, assigneesById } from './assignees.js'

/** Inquiry queries; every one takes the organization. */

export const CHANNELS: DeliveryChannel[] = ['email', 'webhook']

/** Inserts the inquiry and one pending outbox row per channel; call inside the request's transaction. */
export async function insertInquiry(db: Queryable, row: NewInquiryRow): Promise<number> {
  const { id } = await db.insertInto('inquiries').values(row).returning('id').executeTakeFirstOrThrow()
  await db
    .insertInto('inquiry_deliveries')
    .values(
      CHANNELS.map((channel) => ({
        inquiry_id: id,
        org_id: row.org_id,
        channel,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: row.created_at,
        created_at: row.created_at,
        updated_at: row.created_at,
      })),
    )
    .execute()
  return id
}

export async function findInquiry(db: Queryable, orgId: number, id: number): Promise<InquiryRow | undefined> {
  return db
    .selectFrom('inquiries')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst()
}

/** An inquiry with its outbox rows and the person handling it (null when nobody is). */
export interface InquiryWithDeliveries {
  inquiry: InquiryRow
  deliveries: DeliveryRow[]
  assignee: Assignee | null
}

/** What the inbox can be narrowed to; times in unix milliseconds, as stored. */
export interface InquiryFilter {
  kind?: string
  /** The recipient expert's id: the inquiries it received under any of its usernames. */
  expertId?: number
  /** The recipient's username when the inquiry arrived (for an expert no longer there). */
  username?: string
  status?: string
  /** The person handling them. */
  assigneeId?: number
  /** Received at or after. */
  since?: number
  /** Received before. */
  until?: number
}

export interface InquiryPage {
  items: InquiryWithDeliveries[]
  /** The id the next page continues below, or undefined on the last page. */
  nextBefore: number | undefined
}

/**
 * One page of an organization's inquiries, newest first: at most `limit` with ids below `before`.
 * Keyset paging on the id, so inquiries arriving meanwhile (higher ids) never shift a later page:
 * a walk through the pages sees every inquiry committed before it started exactly once.
 */
export async function listInquiries(
  db: Queryable,
  orgId: number,
  options: { limit: number; before?: number; filter?: InquiryFilter },
): Promise<InquiryPage> {
  const { limit, before, filter = {} } = options
  let query = db.selectFrom('inquiries').selectAll().where('org_id', '=', orgId)
  if (before !== undefined) query = query.where('id', '<', before)
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind)
  if (filter.expertId !== undefined) query = query.where('expert_id', '=', filter.expertId)
  if (filter.username !== undefined) query = query.where('username', '=', filter.username)
  if (filter.status !== undefined) query = query.where('status', '=', filter.status)
  if (filter.assigneeId !== undefined) query = query.where('assignee_id', '=', filter.assigneeId)
  if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('created_at', '<', filter.until)
  // One row more than asked tells whether there is a next page.
  const rows = await query
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute()
  const inquiries = rows.slice(0, limit)
  const last = inquiries.at(-1)
  return {
    items: await withDeliveries(db, orgId, inquiries),
    nextBefore: rows.length > limit && last ? last.id : undefined,
  }
}

/** One inquiry of the organization with its delivery rows and assignee. */
export async function findInquiryWithDeliveries(
  db: Queryable,
  orgId: number,
  id: number,
): Promise<InquiryWithDeliveries | undefined> {
  const inquiry = await findInquiry(db, orgId, id)
  return inquiry && (await withDeliveries(db, orgId, [inquiry]))[0]
}

export async function withDeliveries(
  db: Queryable,
  orgId: number,
  inquiries: InquiryRow[],
): Promise<InquiryWithDeliveries[]> {
  if (inquiries.length === 0) return []
  const assignees = await assigneesById(
    db,
    orgId,
    inquiries.map((inquiry) => inquiry.assignee_id),
  )
  const deliveries = await db
    .selectFrom('inquiry_deliveries')
    .selectAll()
    .where('org_id', '=', orgId)
    .where(
      'inquiry_id',
      'in',
      inquiries.map((inquiry) => inquiry.id),
    )
    .orderBy('inquiry_id')
    .orderBy('channel')
    .execute()
  const byInquiry = new Map<number, DeliveryRow[]>()
  for (const delivery of deliveries) {
    const list = byInquiry.get(delivery.inquiry_id) ?? []
    list.push(delivery)
    byInquiry.set(delivery.inquiry_id, list)
  }
  return inquiries.map((inquiry) => ({
    inquiry,
    deliveries: byInquiry.get(inquiry.id) ?? [],
    assignee: inquiry.assignee_id === null ? null : (assignees.get(Number(inquiry.assignee_id)) ?? null),
  }))
}
