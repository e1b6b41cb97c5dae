import type { DeliveryRow, InquiryRow } from '../db/schema.js'
import { isObject } from '../validation/guards.js'
import type { Assignee } from './assignees.js'
import { isInquiryStatus, parseRecipients } from './handling.js'
import { INQUIRY_KINDS, isInquiryKind, type KindFieldValue, kindFields, storedKind } from './kinds.js'
import type { InquiryWithDeliveries } from './repository.js'

/** Stored rows -> the shapes the inbox, the webhook and the email show. */

const SENDER_COLUMNS = [
  'firstname',
  'lastname',
  'email',
  'phone',
  'website',
  'organization',
  'message',
  'location_city',
  'location_state',
  'location_country',
] as const

/** Status, assignee, notes, recipients and whether the sender's data was removed: the inbox and the CLI show them. */
export function handlingView(row: InquiryRow, assignee: Assignee | null) {
  return {
    status: isInquiryStatus(row.status) ? row.status : 'new',
    assignee,
    notes: row.notes,
    recipients: parseRecipients(row.recipients),
    redacted_at: row.redacted_at === null ? null : Math.floor(row.redacted_at / 1000),
  }
}

/** The kind's fields as stored, each present (`null` when the sender left an optional one out). */
export function kindFieldValues(
  row: Pick<InquiryRow, 'kind' | 'kind_fields'>,
): Record<string, KindFieldValue | null> {
  const stored = parseKindFields(row.kind_fields)
  if (!isInquiryKind(row.kind)) return stored
  return Object.fromEntries(kindFields(row.kind).map(([name]) => [name, stored[name] ?? null]))
}

/** `inquiries.kind_fields` as written by the service: a JSON object of strings and numbers. */
function parseKindFields(text: string): Record<string, KindFieldValue> {
  const parsed: unknown = JSON.parse(text)
  if (!isObject(parsed)) return {}
  return Object.fromEntries(
    Object.entries(parsed).filter(
      (entry): entry is [string, KindFieldValue] =>
        typeof entry[1] === 'string' || typeof entry[1] === 'number',
    ),
  )
}

/** Every field the sender filled in: the common ones, then the kind's. Absent ones are `null`. */
export function inquiryFields(row: InquiryRow): Record<string, KindFieldValue | null> {
  return {
    ...Object.fromEntries(SENDER_COLUMNS.map((column) => [column, row[column]])),
    ...kindFieldValues(row),
  }
}

/** One of the kind's fields with its readable label and its value as a person reads it. */
export interface LabelledField {
  field: string
  label: string
  value: KindFieldValue | null
  /** The allowed value's label (`tv` -> `TV`), a time as `formatTime` writes it, or the text itself. */
  text: string | null
}

/** A unix time in seconds as ISO 8601 (UTC): the webhook payload's form. */
export const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString()

/**
 * A unix time in seconds as a person reads it, in `timeZone` (IANA), which it names:
 * "Thursday 1 January 2026 at 09:30 UTC".
 */
export function readableTime(seconds: number, timeZone = 'UTC'): string {
  return new Intl.DateTimeFormat('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone,
    timeZoneName: 'short',
  }).format(new Date(seconds * 1000))
}

export function labelledFields(
  row: InquiryRow,
  formatTime: (seconds: number) => string = isoTime,
): LabelledField[] {
  if (!isInquiryKind(row.kind)) return []
  const values = kindFieldValues(row)
  return kindFields(row.kind).map(([field, spec]) => {
    const value = values[field] ?? null
    const text =
      value === null
        ? null
        : spec.time
          ? formatTime(Number(value))
          : (spec.choices?.[String(value)] ?? String(value))
    return { field, label: spec.label, value, text }
  })
}

/** `media` -> `media`, `expertwitness` -> `expert witness`: for "a new ... inquiry". */
export function kindLabel(kind: string): string {
  return isInquiryKind(kind) ? INQUIRY_KINDS[kind].label : kind
}

export interface DeliveryView {
  channel: string
  status: string
  attempts: number
  last_error: string | null
}

export function deliveryView(row: DeliveryRow): DeliveryView {
  return { channel: row.channel, status: row.status, attempts: row.attempts, last_error: row.last_error }
}

/** An inquiry as the inbox serves it (CONTRACT §11); `created_at` in unix seconds. */
export function inquiryView({ inquiry: row, deliveries, assignee }: InquiryWithDeliveries) {
  return {
    id: row.id,
    kind: storedKind(row.kind),
    username: row.username,
    created_at: Math.floor(row.created_at / 1000),
    ...handlingView(row, assignee),
    fields: inquiryFields(row),
    delivery: deliveries.map(deliveryView),
  }
}
