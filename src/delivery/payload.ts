import type { InquiryRow } from '../db/schema.js'
import { parseRecipients } from '../inquiries/handling.js'
import { inquiryFields, labelledFields } from '../inquiries/mapping.js'

/**
 * What an inquiry looks like outside the database (webhook body): the sender's and the kind's fields
 * flat, as sent (times in unix seconds), and `details`: the kind's fields with readable labels, so a
 * receiver can show any kind without knowing it. `username` is null for an inquiry to the desk;
 * `recipients` says who is emailed (expert, assistant, desk) by the organization's notification settings.
 */
export function inquiryPayload(row: InquiryRow): Record<string, unknown> {
  return {
    id: row.id,
    kind: row.kind,
    username: row.username,
    created_at: Math.floor(row.created_at / 1000),
    recipients: parseRecipients(row.recipients),
    ...inquiryFields(row),
    details: labelledFields(row),
  }
}
