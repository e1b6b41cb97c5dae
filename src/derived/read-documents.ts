import type { Insertable, JoinBuilder } from 'kysely'
import { byContentKind, CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import type { ReadConnection } from '../db/read-connection.js'
import { reusableQuery } from '../db/reusable-query.js'
import type { DocumentKind, ProfileType, ReadDocumentsTable } from '../db/schema.js'
import { type Audience, profileVisibleWithin, visibilityBounds } from './audience.js'

/** Stored read documents: the lookup a read starts with, the guarded store, the removal. */

/** A record found by its public key, with its stored document when that is current (else nulls). */
export interface DocumentLookup {
  id: number
  version: number
  org_version: number
  body: Buffer | null
  etag: string | null
}

/**
 * The join to a record's stored document for `audience`, when it was built from the record's current
 * `doc_version` (`recordAlias`: the record's table or alias). Expert documents also depend on the
 * organization's profile (the caller adds `org_version`).
 */
// biome-ignore lint/suspicious/noExplicitAny: the record's table is whichever the query joins from
export function currentDocument<J extends JoinBuilder<any, any>>(
  join: J,
  kind: DocumentKind,
  recordAlias: string,
  audience: Audience,
): J {
  return join
    .on('read_documents.kind', '=', kind)
    .onRef('read_documents.record_id', '=', `${recordAlias}.id`)
    .on('read_documents.audience', '=', audience)
    .onRef('read_documents.record_version', '=', `${recordAlias}.doc_version`) as J
}

const expertDocument = reusableQuery(
  (
    db: Queryable,
    orgId: number,
    username: string,
    type: ProfileType,
    audience: Audience,
    minPublished: number,
    maxPrivate: number,
  ) =>
    db
      .selectFrom('experts')
      .innerJoin('organizations', 'organizations.id', 'experts.org_id')
      .leftJoin('read_documents', (join) =>
        currentDocument(join, 'expert', 'experts', audience).onRef(
          'read_documents.org_version',
          '=',
          'organizations.profile_version',
        ),
      )
      .select([
        'experts.id as id',
        'experts.doc_version as version',
        'organizations.profile_version as org_version',
        'read_documents.body as body',
        'read_documents.etag as etag',
      ])
      .where('experts.org_id', '=', orgId)
      .where('experts.username', '=', username)
      .where('experts.type', '=', type)
      .where(profileVisibleWithin('experts', { minPublished, maxPrivate })),
  'read_expert_document',
)

/**
 * The expert (or staff member: `type`) by username when `audience` may see it, with its document for that audience only when
 * that was built from the expert's current `doc_version` and its organization's current
 * `profile_version`. One indexed query; on PostgreSQL a named statement (both audiences share it).
 */
export function findExpertDocument(
  db: Queryable,
  orgId: number,
  username: string,
  type: ProfileType,
  audience: Audience,
): Promise<DocumentLookup[]> {
  const { minPublished, maxPrivate } = visibilityBounds(audience)
  return expertDocument(db, orgId, username, type, audience, minPublished, maxPrivate)
}

/** `findExpertDocument` on SQLite's read connection, synchronously (src/db/read-connection.ts). */
export function findExpertDocumentOn(
  reads: ReadConnection,
  db: Queryable,
  orgId: number,
  username: string,
  type: ProfileType,
  audience: Audience,
): DocumentLookup[] {
  const { minPublished, maxPrivate } = visibilityBounds(audience)
  return expertDocument.readOn(reads, db, orgId, username, type, audience, minPublished, maxPrivate)
}

const contentDocument = (kind: ContentKind) =>
  reusableQuery(
    (db: Queryable, orgId: number, id: number, audience: Audience, minPublished: number) =>
      db
        .selectFrom(`${CONTENT_KINDS[kind].table} as item` as 'spotlights as item')
        .leftJoin('read_documents', (join) => currentDocument(join, kind, 'item', audience))
        .select([
          'item.id as id',
          'item.doc_version as version',
          'read_documents.org_version as org_version',
          'read_documents.body as body',
          'read_documents.etag as etag',
        ])
        .where('item.org_id', '=', orgId)
        .where('item.id', '=', id)
        .where('item.published', '>=', minPublished),
    `read_${kind}_document`,
  )

const CONTENT_DOCUMENTS = byContentKind(contentDocument)

/** A post (`spotlight`) or question by id when `audience` may see it, with its document for that audience when current. */
export async function findContentDocument(
  db: Queryable,
  kind: ContentKind,
  orgId: number,
  id: number,
  audience: Audience,
): Promise<DocumentLookup | undefined> {
  const [row] = await CONTENT_DOCUMENTS[kind](
    db,
    orgId,
    id,
    audience,
    visibilityBounds(audience).minPublished,
  )
  return row && { ...row, org_version: 0 }
}

/** `findContentDocument` on SQLite's read connection, synchronously (src/db/read-connection.ts). */
export function findContentDocumentOn(
  reads: ReadConnection,
  db: Queryable,
  kind: ContentKind,
  orgId: number,
  id: number,
  audience: Audience,
): DocumentLookup | undefined {
  const query = CONTENT_DOCUMENTS[kind]
  const [row] = query.readOn(reads, db, orgId, id, audience, visibilityBounds(audience).minPublished)
  return row && { ...row, org_version: 0 }
}

/**
 * Stores a document unless one built from newer versions is already there (versions only grow), so
 * a reader that built from older data never replaces what a later reader stored.
 */
export async function storeDocument(db: Queryable, document: Insertable<ReadDocumentsTable>): Promise<void> {
  await db
    .insertInto('read_documents')
    .values(document)
    .onConflict((conflict) =>
      conflict
        .columns(['kind', 'record_id', 'audience'])
        .doUpdateSet((eb) => ({
          record_version: eb.ref('excluded.record_version'),
          org_version: eb.ref('excluded.org_version'),
          etag: eb.ref('excluded.etag'),
          body: eb.ref('excluded.body'),
        }))
        .where((eb) =>
          eb.and([
            eb('read_documents.record_version', '<=', eb.ref('excluded.record_version')),
            eb('read_documents.org_version', '<=', eb.ref('excluded.org_version')),
          ]),
        ),
    )
    .execute()
}

export async function deleteDocument(db: Queryable, kind: DocumentKind, recordId: number): Promise<void> {
  await db.deleteFrom('read_documents').where('kind', '=', kind).where('record_id', '=', recordId).execute()
}

/** Every document of the organization's experts goes stale at once: one row, whatever their number. */
export async function bumpOrganizationVersion(db: Queryable, orgId: number): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ profile_version: eb('profile_version', '+', 1) }))
    .where('id', '=', orgId)
    .execute()
}
