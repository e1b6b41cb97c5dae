import type { ContentKind } from '../db/content-kinds.js'
import type { Database } from '../db/database.js'
import { SqliteError } from '../db/sqlite.js'
import {
  type DocumentLookup,
  findContentDocument,
  findContentDocumentOn,
  findExpertDocument,
  findExpertDocumentOn,
} from '../derived/read-documents.js'
import { readExpertSearchVersion, readExpertSearchVersionOn } from '../derived/search-index.js'
import { ValidatedAnswers } from '../kept-reads/validated-answers.js'
import { type DirectorySite, findDirectory, findDirectoryOn } from './site.js'
import {
  type ExpertView,
  findContentView,
  findExpertView,
  findSearchView,
  type RecordView,
  type SearchView,
} from './views.js'

/**
 * What every page view asks before its kept page can be sent: the organization's directory (undefined
 * when unknown or off) with the record or the search version the page shows (src/directory/views.ts).
 */
export interface DirectoryLookups {
  site(orgId: number): Promise<DirectorySite | undefined>
  /** A public expert by username, with its current version. */
  expert(orgId: number, username: string): Promise<DocumentLookup | undefined>
  /** The directory with a public expert by username, and the search version (its similar experts). */
  expertView(orgId: number, username: string): Promise<ExpertView | undefined>
  /** The directory with a public post (`spotlight`) or question by id. */
  contentView(kind: ContentKind, orgId: number, id: number): Promise<RecordView | undefined>
  /** The directory with the organization's search version (src/derived/search-index.ts). */
  searchView(orgId: number): Promise<SearchView | undefined>
}

/** Bytes of kept directory answers; a lookup keeps its stored document (a few KB) with it. */
const ANSWER_BYTES = 8 * 1024 * 1024
const SITE_BYTES = 1024
const VERSION_BYTES = 16
const LOOKUP_BYTES = 200

/**
 * The directory's lookups. On SQLite in a file they are answered in the process, read on the read
 * connection and kept while its change check has not moved (src/kept-reads/validated-answers.ts), as the
 * API's token checks and versions are (src/auth/principals.ts): a write by any process is seen at the
 * next page view, and a page view whose answers are kept runs no statement. Otherwise, or when the
 * read connection cannot answer now, the queries.
 */
export function directoryLookups(database: Database): DirectoryLookups {
  const { db } = database
  const queries: DirectoryLookups = {
    site: (orgId) => findDirectory(db, orgId),
    expert: async (orgId, username) => (await findExpertDocument(db, orgId, username, 'expert', 'public'))[0],
    expertView: (orgId, username) => findExpertView(db, orgId, username),
    contentView: (kind, orgId, id) => findContentView(db, kind, orgId, id),
    searchView: (orgId) => findSearchView(db, orgId),
  }
  const reads = database.readConnection()
  if (!reads) return queries

  const validated = new ValidatedAnswers(reads)
  const sites = validated.map<DirectorySite>(ANSWER_BYTES / 8, () => SITE_BYTES)
  const searchVersions = validated.map<{ version: number }>(ANSWER_BYTES / 8, () => VERSION_BYTES)
  const lookups = validated.map<DocumentLookup>(
    (3 * ANSWER_BYTES) / 4,
    (lookup) => LOOKUP_BYTES + (lookup.body?.length ?? 0),
  )
  /** The kept answer, else the query's when the read connection is busy. */
  const kept = async <T>(
    read: () => T | null,
    query: () => Promise<T | undefined>,
  ): Promise<T | undefined> => {
    try {
      validated.refresh()
      return read() ?? undefined
    } catch (error) {
      if (error instanceof SqliteError) return query()
      throw error
    }
  }
  const site = (orgId: number) =>
    kept(
      () => sites.get(`${orgId}`, (connection) => findDirectoryOn(connection, db, orgId) ?? null),
      () => queries.site(orgId),
    )
  const expert = (orgId: number, username: string) =>
    kept(
      () =>
        lookups.get(
          `expert ${orgId} ${username}`,
          (connection) =>
            findExpertDocumentOn(connection, db, orgId, username, 'expert', 'public')[0] ?? null,
        ),
      () => queries.expert(orgId, username),
    )
  const content = (kind: ContentKind, orgId: number, id: number) =>
    kept(
      () =>
        lookups.get(
          `${kind} ${orgId} ${id}`,
          (connection) => findContentDocumentOn(connection, db, kind, orgId, id, 'public') ?? null,
        ),
      () => findContentDocument(db, kind, orgId, id, 'public'),
    )
  const searchVersion = async (orgId: number) =>
    (
      await kept(
        () =>
          searchVersions.get(`${orgId}`, (connection) => ({
            version: readExpertSearchVersionOn(connection, db, orgId),
          })),
        async () => ({ version: await readExpertSearchVersion(db, orgId) }),
      )
    )?.version ?? 0

  // The directory, then what the page shows in it: both kept answers, so usually no statement.
  return {
    site,
    expert,
    expertView: async (orgId, username) => {
      const directory = await site(orgId)
      return (
        directory && {
          site: directory,
          found: await expert(orgId, username),
          searchVersion: await searchVersion(orgId),
        }
      )
    },
    contentView: async (kind, orgId, id) => {
      const directory = await site(orgId)
      return directory && { site: directory, found: await content(kind, orgId, id) }
    },
    searchView: async (orgId) => {
      const directory = await site(orgId)
      return directory && { site: directory, searchVersion: await searchVersion(orgId) }
    },
  }
}
