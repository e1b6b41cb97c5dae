import { staleContentShowingExperts } from '../content/repository.js'
import type { Queryable } from '../db/database.js'
import { bumpOrganizationVersion } from '../documents/repository.js'
import { refreshExpertsSearch, touchExpertsSearch } from '../search/maintenance.js'
import { touchExperts } from './repository.js'

/** Which profiles a write changed: one expert, several, or every expert of the organization. */
export type ChangedProfiles = number | readonly number[] | 'all'

/**
 * The one step every write of an expert's profile passes through, inside the write's transaction:
 * account changes, section elements, the organization profile (every expert shows it), post tagging
 * and answers. It sets the experts' `updated_at` (the `modified` of reads) and makes their stored read
 * documents stale (src/documents): each expert's `doc_version` is bumped, or, for the organization
 * profile, the organization's `profile_version` (one row, however many experts). It refreshes their
 * search index rows. Anything derived from a profile belongs here.
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
}
