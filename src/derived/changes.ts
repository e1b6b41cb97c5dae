import { CONTENT_KIND_NAMES, type ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import { markEmbeddingsDue } from './meaning/embedding-marks.js'
import { refreshMeaning, removeMeaning } from './meaning/maintenance.js'
import { bumpOrganizationVersion, deleteDocument } from './read-documents.js'
import { bumpExpertSearchVersion } from './search-index.js'
import {
  refreshContentSearch,
  refreshExpertsSearch,
  removeExpertSearch,
  touchExpertsSearch,
} from './search-maintenance.js'
import { listItemsOfExpert, staleContentShowingExperts, touchContent, touchExperts } from './versions.js'

/**
 * The hub every write and delete of the features passes through, inside the write's transaction: it
 * keeps what is derived from the stored records (read documents, the search index) in step with them.
 * Anything derived from a profile, a post or a Q&A item belongs here; this folder imports no feature.
 */

/**
 * The tables `profileChanged` writes rows of for each expert it is given (the search index and the
 * meaning rows): what a bulk write analyzes as it grows (src/db/statistics.ts).
 */
export const PROFILE_DERIVED_TABLES = [
  'expert_search',
  'expert_facets',
  'meaning_documents',
  'expert_concepts',
  'expert_terms',
  'concept_df',
  'term_df',
] as const

/** Which profiles a write changed: one expert, several, or every expert of the organization. */
export type ChangedProfiles = number | readonly number[] | 'all'

/**
 * Every write of an expert's profile: account changes, section elements, the organization profile
 * (every expert shows it), post tagging and answers. It sets the experts' `updated_at` (the `modified`
 * of reads) and makes their stored read documents stale: each expert's `doc_version` is bumped, or,
 * for the organization profile, the organization's `profile_version` (one row, however many experts).
 * It refreshes their search index rows and meaning rows, and makes their embeddings due (when kept).
 *
 * `account`: the write changed account fields (names, job title) that posts tagging the experts and
 * questions they answered show too; those items' documents go stale as well.
 */
export async function profileChanged(
  trx: Queryable,
  orgId: number,
  experts: ChangedProfiles,
  now: number,
  { account = false }: { account?: boolean } = {},
): Promise<void> {
  if (experts === 'all') {
    await bumpOrganizationVersion(trx, orgId)
    await touchExperts(trx, orgId, 'all', now)
    await touchExpertsSearch(trx, orgId, now)
    return
  }
  const ids = [...new Set(typeof experts === 'number' ? [experts] : experts)]
  await touchExperts(trx, orgId, ids, now)
  if (account) await staleContentShowingExperts(trx, orgId, ids)
  await refreshExpertsSearch(trx, orgId, ids)
  await refreshMeaning(trx, orgId, ids, now)
  await markEmbeddingsDue(trx, orgId, ids, now)
}

/**
 * An expert hid or showed a concept of its fingerprint: only the meaning rows derive from that, and what
 * is kept under the search version (the directory's expert pages show similar experts). The version is
 * taken before the meaning rows, in the order `profileChanged` takes them.
 */
export async function fingerprintChanged(trx: Queryable, orgId: number, expertId: number, now: number) {
  await bumpExpertSearchVersion(trx, orgId)
  await refreshMeaning(trx, orgId, [expertId], now)
}

/**
 * A stored work's fields changed (a source refreshed its title, abstract or concepts): the experts who
 * claimed it get their meaning rows recomputed. Their profiles change through `profileChanged` when
 * the article they show changes as well. The search version moves too (see `fingerprintChanged`).
 */
export async function workChanged(trx: Queryable, orgId: number, workId: number, now: number): Promise<void> {
  const claimed = await trx
    .selectFrom('work_candidates')
    .select('expert_id')
    .where('org_id', '=', orgId)
    .where('work_id', '=', workId)
    .where('state', '=', 'claimed')
    .execute()
  if (claimed.length > 0) await bumpExpertSearchVersion(trx, orgId)
  const experts = claimed.map((row) => Number(row.expert_id))
  await refreshMeaning(trx, orgId, experts, now)
  await markEmbeddingsDue(trx, orgId, experts, now)
}

/**
 * Every write of a post or a Q&A item: it sets the item's `updated_at` (the `modified` of reads) and
 * bumps its `doc_version`, so its stored read document is rebuilt on the next read. Writes that change
 * the item's content call `itemChanged`, which refreshes its search row as well.
 */
export async function contentChanged(
  trx: Queryable,
  orgId: number,
  kind: ContentKind,
  id: number,
  now: number,
): Promise<void> {
  await touchContent(trx, orgId, kind, id, now)
}

/**
 * A post or a Q&A item changed: its own documents and search row, the profiles it shows, and the
 * organization's search version, which the kept post and Q&A searches are keyed by (one version for
 * the organization's three searches). The version row is shared by every writer of the organization,
 * so it is taken last, after the experts' rows, in the order expert writes take them: on PostgreSQL,
 * writers of posts and of profiles then wait for each other instead of deadlocking.
 */
export async function itemChanged(
  trx: Queryable,
  orgId: number,
  kind: ContentKind,
  id: number,
  experts: readonly number[],
  now: number,
): Promise<void> {
  await contentChanged(trx, orgId, kind, id, now)
  await refreshContentSearch(trx, orgId, kind, id)
  await profileChanged(trx, orgId, experts, now)
  await bumpExpertSearchVersion(trx, orgId)
}

/**
 * A post or a Q&A item was deleted (call it after the delete): its stored read document and its
 * search row go, and the experts it showed in (`experts`, listed before the delete) no longer list it.
 */
export async function itemDeleted(
  trx: Queryable,
  orgId: number,
  kind: ContentKind,
  id: number,
  experts: readonly number[],
  now: number,
): Promise<void> {
  await deleteDocument(trx, kind, id)
  await refreshContentSearch(trx, orgId, kind, id)
  await profileChanged(trx, orgId, experts, now)
  await bumpExpertSearchVersion(trx, orgId)
}

/**
 * Deletes an expert through `remove` (the account's own delete, which answers whether a row went):
 * before it, the expert leaves the search index (the questions it answered are re-indexed without its
 * answers, which the delete removes with it); after it, its stored read document goes and the posts
 * that tagged it and the questions it answered change. Returns what `remove` answered; nothing
 * derived changes after a `false`.
 */
export async function expertDeleted(
  trx: Queryable,
  orgId: number,
  expertId: number,
  now: number,
  remove: () => Promise<boolean>,
): Promise<boolean> {
  const items = await listItemsOfExpert(trx, expertId)
  await removeExpertSearch(trx, orgId, expertId)
  await removeMeaning(trx, orgId, expertId)
  if (!(await remove())) return false
  await deleteDocument(trx, 'expert', expertId)
  for (const kind of CONTENT_KIND_NAMES) {
    for (const id of items[kind]) {
      await contentChanged(trx, orgId, kind, id, now)
      // A question's answers by a deleted expert went with it: its search row was rebuilt without them before.
      if (kind === 'spotlight') await refreshContentSearch(trx, orgId, kind, id)
    }
  }
  return true
}
