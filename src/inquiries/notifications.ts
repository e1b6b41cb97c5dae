import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import type { ExpertRow, InquiryNotificationRow } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
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

/** Stores the given kinds' settings whole. */
async function saveNotificationSettings(
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

/** A change of some kinds' settings, as `PUT .../notifications` takes it: only the fields given change. */
export type NotificationChanges = Partial<Record<InquiryKind, Partial<KindNotification>>>

/**
 * Merges `changes` into the stored settings in one transaction (recipients lower-cased, each once) and
 * returns every kind's settings after it.
 */
export async function updateNotificationSettings(
  { db, orgId, now, trail }: WriteContext,
  changes: NotificationChanges,
): Promise<NotificationSettings> {
  return writeTransaction(db, async (trx) => {
    const current = await readNotificationSettings(trx, orgId)
    const changed: NotificationSettings = new Map()
    for (const [kind, stored] of current) {
      const change = changes[kind]
      if (!change) continue
      const recipients = change.recipients?.map((email) => email.toLowerCase())
      changed.set(kind, {
        ...stored,
        ...change,
        ...(recipients ? { recipients: [...new Set(recipients)] } : {}),
      })
    }
    await saveNotificationSettings(trx, orgId, changed, now)
    await recordAudit(trx, orgId, trail, { kind: 'notification_settings', id: orgId }, now)
    return new Map([...current, ...changed])
  })
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
