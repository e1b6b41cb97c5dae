import { sql } from 'kysely'
import type { Queryable } from '../db/database.js'
import { idCursor } from '../http/cursor.js'
import { toSeconds } from '../time.js'
import { type ActorKind, type AuditTrail, actorId, isActorKind } from './actor.js'
import { type AuditSubject, auditNames, describeEntry } from './describe.js'

/**
 * The audit log (CONTRACT §14, docs/security.md): every administrative write records who did it,
 * through which route or command, to which record and when, with `recordAudit` inside the write's
 * own transaction, so an entry exists exactly when its write committed.
 */

const cursor = idCursor('aud1.', 'this log')

/** The kinds of record an entry names; the `kind` filter of the audit route takes these. */
export const RECORD_KINDS = [
  'expert',
  'staff',
  'section',
  'spotlight',
  'question',
  'answer',
  'organization',
  'avatar',
  'file',
  'inquiry',
  'notification_settings',
  'privacy_request',
  'import',
  'client',
  'webhook',
  'person',
  'sso_settings',
  'concept',
  'workflow',
  'draft',
  'delegate',
] as const

export type RecordKind = (typeof RECORD_KINDS)[number]

/** The record a write touched: its kind and the id the API knows it by (a username, a number, a client id). */
export interface AuditRecord {
  kind: RecordKind
  id: string | number | null
}

/** Adds one entry; call it with the write's transaction. */
export async function recordAudit(
  trx: Queryable,
  orgId: number,
  trail: AuditTrail,
  record: AuditRecord,
  now: number,
): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      org_id: orgId,
      created_at: now,
      actor_kind: trail.actor.kind,
      actor_id: actorId(trail.actor),
      action: trail.action,
      record_kind: record.kind,
      record_id: record.id === null ? null : String(record.id),
      on_behalf_of: (trail.actor.kind === 'person' && trail.actor.onBehalfOf) || null,
    })
    .execute()
}

export interface AuditEntry {
  id: number
  /** Unix seconds, as every time in the API. */
  created_at: number
  /**
   * Who, with today's name: the person's, or the client's label (describe.ts); for the schedule, who
   * set the time it carried out (`id` as the `actor` filter names them: `person:12`).
   */
  actor: { kind: ActorKind; id: string | null; name: string | null }
  /** The profile a delegate acted on through its grant (CONTRACT §21), with its name; null otherwise. */
  on_behalf_of: { username: string; name: string | null } | null
  /** The route or the command, as recorded. */
  action: string
  /** The entry as a sentence: "Changed the biography of Ada Okafor". */
  summary: string
  record: { kind: string; id: string | null; label: string | null; subject: AuditSubject | null }
}

export interface AuditQuery {
  actor_kind?: ActorKind | undefined
  actor_id?: string | undefined
  kind?: RecordKind | undefined
  /**
   * Only the history of this record (with `kind`): for an expert or staff member that includes its
   * photo and profile sections, for a question its answers.
   */
  record?: string | undefined
  page_size: number
  cursor?: string | undefined
}

/** The kinds whose entries name a record inside another's (`<username>/<section>/<id>`, `<question>/<answer>`). */
const PARTS: Partial<Record<RecordKind, readonly RecordKind[]>> = {
  expert: ['avatar', 'section', 'delegate'],
  staff: ['avatar', 'section'],
  question: ['answer'],
}

/** `LIKE` matches `%` and `_` anywhere; a record id is matched as written. */
const likePrefix = (id: string) => `${id.replace(/[\\%_]/g, (character) => `\\${character}`)}/%`

/** One page of the organization's entries, newest first, and the cursor of the next page (null on the last). */
export async function readAuditLog(
  db: Queryable,
  orgId: number,
  query: AuditQuery,
): Promise<{ entries: AuditEntry[]; next_cursor: string | null }> {
  const before = cursor.parameter(query.cursor)
  let select = db
    .selectFrom('audit_log')
    .selectAll()
    .where('org_id', '=', orgId)
    .orderBy('id', 'desc')
    .limit(query.page_size + 1)
  if (before !== undefined) select = select.where('id', '<', before)
  if (query.actor_kind !== undefined) select = select.where('actor_kind', '=', query.actor_kind)
  if (query.actor_id !== undefined) select = select.where('actor_id', '=', query.actor_id)
  const { kind, record } = query
  if (kind !== undefined && record !== undefined) {
    const parts = PARTS[kind] ?? []
    select = select.where((where) =>
      where.or([
        where.and([where('record_kind', '=', kind), where('record_id', '=', record)]),
        ...(parts.includes('avatar')
          ? [where.and([where('record_kind', '=', 'avatar'), where('record_id', '=', record)])]
          : []),
        ...parts
          .filter((part) => part !== 'avatar')
          .map((part) =>
            where.and([
              where('record_kind', '=', part),
              sql<boolean>`record_id like ${likePrefix(record)} escape '\\'`,
            ]),
          ),
      ]),
    )
  } else if (kind !== undefined) select = select.where('record_kind', '=', kind)
  const rows = await select.execute()
  const page = rows.slice(0, query.page_size).map((row) => ({
    id: Number(row.id),
    created_at: toSeconds(row.created_at),
    actor: { kind: isActorKind(row.actor_kind) ? row.actor_kind : 'system', id: row.actor_id },
    action: row.action,
    record: { kind: row.record_kind, id: row.record_id },
    onBehalfOf: row.on_behalf_of,
  }))
  const names = await auditNames(db, orgId, page)
  const last = page.at(-1)
  return {
    entries: page.map(({ onBehalfOf, ...entry }) => {
      const described = describeEntry({ ...entry, onBehalfOf }, names)
      return {
        ...entry,
        actor: { ...entry.actor, name: described.actorName },
        on_behalf_of: onBehalfOf === null ? null : { username: onBehalfOf, name: described.onBehalfOfName },
        summary: described.summary,
        record: { ...entry.record, label: described.label, subject: described.subject },
      }
    }),
    next_cursor: rows.length > query.page_size && last ? cursor.encode(last.id) : null,
  }
}
