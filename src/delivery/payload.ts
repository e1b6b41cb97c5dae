import type { InquiryRow } from '../db/schema.js'
import { inquiryFields, labelledFields } from '../inquiries/mapping.js'

/**
 * What an inquiry looks like outside the database (webhook body): the sender's and the kind's fields
 * flat, as sent (times in unix seconds), and `details`: the kind's fields with readable labels, so a
 * receiver can show any kind without knowing it.
 */
export function inquiryPayload(row: InquiryRow): Record<string, unknown> {
  return {
    id: row.id,
    kind: row.kind,
    username: row.username,
    created_at: Math.floor(row.created_at / 1000),
    ...inquiryFields(row),
    details: labelledFields(row),
  }
}
