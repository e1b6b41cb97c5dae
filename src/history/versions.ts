import { type ActorKind, type AuditTrail, actorId, isActorKind } from '../audit/actor.js'
import { auditNames } from '../audit/describe.js'
import { insertInChunks } from '../db/chunks.js'
import type { Queryable } from '../db/database.js'
import type { RecordVersionRow } from '../db/editorial-schema.js'
import { idCursor } from '../http/cursor.js'
import { toSeconds } from '../time.js'

/**
 * Versions (CONTRACT §21, docs/editorial.md): every published change of a profile, a post or a Q&A item
 * is kept as one row, inserted by the write's service in the write's own transaction (one insert, from
 * what the write already holds), so a version exists exactly when its change committed. A version keeps
 * the part of the record the change wrote, whole, as the API shows it: a profile's `account` or one of
 * its sections, a post's or question's fields (`item`). Reading a profile's history lists every part's
 * versions; a diff compares a version with the one before it of the same part.
 */

/** What versions are kept of: a profile (an expert or a staff member, by its id), a post, a question. */
export type VersionedKind = 'profile' | 'spotlight' | 'question'

export interface VersionedRecord {
  kind: VersionedKind
  id: number
}

/** The part of a post or a question a version keeps: the item's own fields. */
export const ITEM_PART = 'item'

const cursor = idCursor('ver1.', 'this list of versions')

/** Adds the version of one change; call it with the change's transaction, after the change. */
export async function recordVersion(
  trx: Queryable,
  orgId: number,
  trail: AuditTrail,
  { record, part, snapshot }: { record: VersionedRecord; part: string; snapshot: unknown },
  now: number,
): Promise<void> {
  await trx
    .insertInto('record_versions')
    .values({
      org_id: orgId,
      record_kind: record.kind,
      record_id: record.id,
      part,
      created_at: now,
      actor_kind: trail.actor.kind,
      actor_id: actorId(trail.actor),
      action: trail.action,
      snapshot: JSON.stringify(snapshot),
    })
    .execute()
}

/** Versions of many changes at once (an import), a constant number of statements per call. */
export async function recordVersions(
  trx: Queryable,
  orgId: number,
  trail: AuditTrail,
  versions: readonly { record: VersionedRecord; part: string; snapshot: unknown }[],
  now: number,
): Promise<void> {
  const rows = versions.map(({ record, part, snapshot }) => ({
    org_id: orgId,
    record_kind: record.kind,
    record_id: record.id,
    part,
    created_at: now,
    actor_kind: trail.actor.kind,
    actor_id: actorId(trail.actor),
    action: trail.action,
    snapshot: JSON.stringify(snapshot),
  }))
  await insertInChunks(trx, rows, (chunk) => trx.insertInto('record_versions').values(chunk).execute())
}

/**
 * A record's history goes with it: its versions (a deleted expert's personal data is not kept in them)
 * and the drafts waiting beside it (src/drafts/), which nothing could publish any more.
 */
export async function deleteRecordHistory(
  trx: Queryable,
  orgId: number,
  record: VersionedRecord,
): Promise<void> {
  for (const table of ['record_versions', 'drafts'] as const)
    await trx
      .deleteFrom(table)
      .where('org_id', '=', orgId)
      .where('record_kind', '=', record.kind)
      .where('record_id', '=', record.id)
      .execute()
}

export interface VersionSummary {
  id: number
  /** `account` or a section of a profile; `item` for a post or a question. */
  part: string
  /** Unix seconds. */
  created_at: number
  /** Who made the change, with today's name (the person's, or the client's label). */
  actor: { kind: ActorKind; id: string | null; name: string | null }
  /** The route or the command it came through. */
  action: string
}

export interface Version extends VersionSummary {
  /** The part as it was right after the change. */
  snapshot: unknown
}

function summaryOf(
  row: Pick<RecordVersionRow, 'id' | 'part' | 'created_at' | 'actor_kind' | 'actor_id' | 'action'>,
) {
  return {
    id: Number(row.id),
    part: row.part,
    created_at: toSeconds(row.created_at),
    actor: { kind: isActorKind(row.actor_kind) ? row.actor_kind : 'system', id: row.actor_id },
    action: row.action,
  }
}

/** Today's names of the people and clients who made `versions`. */
async function named<T extends ReturnType<typeof summaryOf>>(
  db: Queryable,
  orgId: number,
  versions: T[],
): Promise<(T & { actor: VersionSummary['actor'] })[]> {
  const names = await auditNames(
    db,
    orgId,
    versions.map((version) => ({ ...version, record: { kind: 'version', id: null } })),
  )
  return versions.map((version) => {
    const { kind, id } = version.actor
    const name = id === null ? null : ((kind === 'person' ? names.people : names.clients).get(id) ?? null)
    return { ...version, actor: { kind, id, name } }
  })
}

const versionsOf = (db: Queryable, orgId: number, record: VersionedRecord) =>
  db
    .selectFrom('record_versions')
    .where('org_id', '=', orgId)
    .where('record_kind', '=', record.kind)
    .where('record_id', '=', record.id)

/** One page of a record's versions, newest first, and the cursor of the next page (null on the last). */
export async function listVersions(
  db: Queryable,
  orgId: number,
  record: VersionedRecord,
  page: { page_size: number; cursor?: string | undefined },
): Promise<{ versions: VersionSummary[]; next_cursor: string | null }> {
  const before = cursor.parameter(page.cursor)
  let select = versionsOf(db, orgId, record)
    .select(['id', 'part', 'created_at', 'actor_kind', 'actor_id', 'action'])
    .orderBy('id', 'desc')
    .limit(page.page_size + 1)
  if (before !== undefined) select = select.where('id', '<', before)
  const rows = await select.execute()
  const versions = rows.slice(0, page.page_size).map(summaryOf)
  const last = versions.at(-1)
  return {
    versions: await named(db, orgId, versions),
    next_cursor: rows.length > page.page_size && last ? cursor.encode(last.id) : null,
  }
}

/** A version of the record with the version of the same part before it (null for the part's first). */
export async function findVersion(
  db: Queryable,
  orgId: number,
  record: VersionedRecord,
  id: number,
): Promise<{ version: Version; previous: Version | null } | undefined> {
  const row = await versionsOf(db, orgId, record).selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) return undefined
  const before = await versionsOf(db, orgId, record)
    .selectAll()
    .where('part', '=', row.part)
    .where('id', '<', row.id)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  const rows = before ? [row, before] : [row]
  const [version, previous] = await named(
    db,
    orgId,
    rows.map((found) => {
      const snapshot: unknown = JSON.parse(found.snapshot)
      return { ...summaryOf(found), snapshot }
    }),
  )
  if (!version) return undefined
  return { version, previous: previous ?? null }
}
