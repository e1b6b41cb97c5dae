import type { Queryable } from '../db/database.js'
import type { ExpertRow, InquiryNotificationRow } from '../db/schema.js'
import type { Recipient } from './handling.js'
import { type InquiryKind, KIND_NAMES } from './kinds.js'

/**
 * The organization's notification settings (CONTRACT §17): per inquiry kind, the desk's addresses
 * and whether the expert, the expert's assistant and the desk are emailed. A kind never set notifies
 * the expert only, as before the desk existed.
 */

export interface KindNotification {
  /** The desk's addresses for this kind, lower-cased. */
  recipients: string[]
  expert: number
  assistant: number
  desk: number
}

/** Every kind with its settings. */
export type NotificationSettings = Map<InquiryKind, KindNotification>

export const DEFAULT_NOTIFICATION: Readonly<KindNotification> = {
  recipients: [],
  expert: 1,
  assistant: 0,
  desk: 0,
}

function parseAddresses(stored: string): string[] {
  const value: unknown = JSON.parse(stored)
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : []
}

function fromRow(row: InquiryNotificationRow): KindNotification {
  return {
    recipients: parseAddresses(row.recipients),
    expert: row.expert,
    assistant: row.assistant,
    desk: row.desk,
  }
}

/** Every kind's settings, the defaults where none were saved. */
export async function readNotificationSettings(db: Queryable, orgId: number): Promise<NotificationSettings> {
  const rows = await db.selectFrom('inquiry_notifications').selectAll().where('org_id', '=', orgId).execute()
  const saved = new Map(rows.map((row) => [row.kind, fromRow(row)]))
  return new Map(KIND_NAMES.map((kind) => [kind, saved.get(kind) ?? { ...DEFAULT_NOTIFICATION }]))
}

/** One kind's settings (one indexed read: the inquiry path calls this). */
export async function notificationFor(
  db: Queryable,
  orgId: number,
  kind: InquiryKind,
): Promise<KindNotification> {
  const row = await db
    .selectFrom('inquiry_notifications')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('kind', '=', kind)
    .executeTakeFirst()
  return row ? fromRow(row) : { ...DEFAULT_NOTIFICATION }
}

/** Stores the given kinds' settings whole (the caller merged them with what was stored). */
export async function saveNotificationSettings(
  db: Queryable,
  orgId: number,
  settings: NotificationSettings,
  now: number,
): Promise<void> {
  for (const [kind, setting] of settings) {
    const values = {
      recipients: JSON.stringify(setting.recipients),
      expert: setting.expert,
      assistant: setting.assistant,
      desk: setting.desk,
      updated_at: now,
    }
    await db
      .insertInto('inquiry_notifications')
      .values({ org_id: orgId, kind, ...values })
      .onConflict((conflict) => conflict.columns(['org_id', 'kind']).doUpdateSet(values))
      .execute()
  }
}

/** Every desk address of the organization, over all kinds: who an inquiry may be assigned to. */
export async function organizationRecipients(db: Queryable, orgId: number): Promise<Set<string>> {
  const rows = await db
    .selectFrom('inquiry_notifications')
    .select('recipients')
    .where('org_id', '=', orgId)
    .execute()
  return new Set(rows.flatMap((row) => parseAddresses(row.recipients)))
}

/**
 * Who is emailed about an inquiry: to an expert, the expert, the assistant and the desk as the
 * kind's settings say; to the organization (no expert), the desk always. Each address once.
 */
export function emailRecipients(
  setting: KindNotification,
  expert: Pick<ExpertRow, 'email' | 'assistant_email'> | undefined,
): Recipient[] {
  const candidates: Recipient[] = []
  if (expert) {
    if (setting.expert) candidates.push({ role: 'expert', email: expert.email })
    if (setting.assistant && expert.assistant_email)
      candidates.push({ role: 'assistant', email: expert.assistant_email })
  }
  if (!expert || setting.desk) {
    for (const email of setting.recipients) candidates.push({ role: 'desk', email })
  }
  const seen = new Set<string>()
  return candidates.filter(({ email }) => {
    const key = email.toLowerCase()
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
