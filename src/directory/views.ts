import { byContentKind, CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import { reusableQuery } from '../db/reusable-query.js'
import { profileVisibleWithin, visibilityBounds } from '../derived/audience.js'
import { currentDocument, type DocumentLookup } from '../derived/read-documents.js'
import { type DirectorySite, selectDirectory, siteOf } from './site.js'

/**
 * A page view's lookups in one statement: the organization's directory with the record the page shows
 * (with its stored document when current) or the organization's search version. On PostgreSQL a page
 * view then costs one round trip, as the API's reads do; on SQLite the kept answers
 * (src/directory/lookups.ts) run no statement at all.
 */

/** The directory and the record, when the public may see it (the finders answer undefined when the directory is unknown or off). */
export interface RecordView {
  site: DirectorySite
  found: DocumentLookup | undefined
}

/** An expert's page view: its similar experts depend on every expert, so it follows the search version too. */
export interface ExpertView extends RecordView {
  searchVersion: number
}

const PUBLIC = visibilityBounds('public')

const expertView = reusableQuery(
  (db: Queryable, orgId: number, username: string, minPublished: number, maxPrivate: number) =>
    selectDirectory(db, orgId)
      .leftJoin('experts', (join) =>
        join
          .onRef('experts.org_id', '=', 'organizations.id')
          .on('experts.username', '=', username)
          .on('experts.type', '=', 'expert')
          .on(profileVisibleWithin('experts', { minPublished, maxPrivate })),
      )
      .leftJoin('read_documents', (join) =>
        currentDocument(join, 'expert', 'experts', 'public').onRef(
          'read_documents.org_version',
          '=',
          'organizations.profile_version',
        ),
      )
      .leftJoin('expert_search_versions', 'expert_search_versions.org_id', 'organizations.id')
      .select([
        'expert_search_versions.version as search_version',
        'experts.id as record_id',
        'experts.doc_version as record_version',
        'read_documents.body as body',
        'read_documents.etag as etag',
      ]),
  'directory_expert_view',
)

const contentView = (kind: ContentKind) =>
  reusableQuery(
    (db: Queryable, orgId: number, id: number, minPublished: number) =>
      selectDirectory(db, orgId)
        .leftJoin(`${CONTENT_KINDS[kind].table} as item` as 'spotlights as item', (join) =>
          join
            .onRef('item.org_id', '=', 'organizations.id')
            .on('item.id', '=', id)
            .on('item.published', '>=', minPublished),
        )
        .leftJoin('read_documents', (join) => currentDocument(join, kind, 'item', 'public'))
        .select([
          'item.id as record_id',
          'item.doc_version as record_version',
          'read_documents.body as body',
          'read_documents.etag as etag',
        ]),
    `directory_${kind}_view`,
  )

const CONTENT_VIEWS = byContentKind(contentView)

const searchView = reusableQuery(
  (db: Queryable, orgId: number) =>
    selectDirectory(db, orgId)
      .leftJoin('expert_search_versions', 'expert_search_versions.org_id', 'organizations.id')
      .select('expert_search_versions.version as search_version'),
  'directory_search_view',
)

interface RecordColumns {
  record_id: number | null
  record_version: number | null
  body: Buffer | null
  etag: string | null
}

function foundIn(row: RecordColumns, orgVersion: number): DocumentLookup | undefined {
  if (row.record_id === null || row.record_version === null) return undefined
  return {
    id: Number(row.record_id),
    version: Number(row.record_version),
    org_version: orgVersion,
    body: row.body,
    etag: row.etag,
  }
}

/** The directory with the public expert `username` (found or not). */
export async function findExpertView(
  db: Queryable,
  orgId: number,
  username: string,
): Promise<ExpertView | undefined> {
  const [row] = await expertView(db, orgId, username, PUBLIC.minPublished, PUBLIC.maxPrivate)
  if (!row) return undefined
  const site = siteOf(row)
  return { site, found: foundIn(row, site.version), searchVersion: Number(row.search_version ?? 0) }
}

/** The directory with the public post or question `id` (found or not). */
export async function findContentView(
  db: Queryable,
  kind: ContentKind,
  orgId: number,
  id: number,
): Promise<RecordView | undefined> {
  const [row] = await CONTENT_VIEWS[kind](db, orgId, id, PUBLIC.minPublished)
  // Posts and questions do not depend on the organization's profile (src/derived/read-documents.ts).
  return row && { site: siteOf(row), found: foundIn(row, 0) }
}

export interface SearchView {
  site: DirectorySite
  searchVersion: number
}

/** The directory with its search version. */
export async function findSearchView(db: Queryable, orgId: number): Promise<SearchView | undefined> {
  const [row] = await searchView(db, orgId)
  return row && { site: siteOf(row), searchVersion: Number(row.search_version ?? 0) }
}
