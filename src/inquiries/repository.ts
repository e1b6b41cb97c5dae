import type { Queryable } from '../db/database.js'
import type { DeliveryChannel, DeliveryRow, InquiryRow, NewInquiryRow } from '../db/schema.js'

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

export interface InquiryWithDeliveries {
  inquiry: InquiryRow
  deliveries: DeliveryRow[]
}

/** The newest `limit` inquiries of an organization with their delivery rows, newest first. */
export async function listInquiries(
  db: Queryable,
  orgId: number,
  limit: number,
): Promise<InquiryWithDeliveries[]> {
  const inquiries = await db
    .selectFrom('inquiries')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  if (inquiries.length === 0) return []
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
  return inquiries.map((inquiry) => ({ inquiry, deliveries: byInquiry.get(inquiry.id) ?? [] }))
}
