import type { Queryable } from '../db/database.js'
import { refreshExpertsSearch, touchExpertsSearch } from '../search/maintenance.js'
import { touchExperts } from './repository.js'

/** Which profiles a write changed: one expert, several, or every expert of the organization. */
export type ChangedProfiles = number | readonly number[] | 'all'

/**
 * The one step every write of an expert's profile passes through, inside the write's transaction:
 * account changes, section elements, the organization profile (every expert shows it), post tagging
 * and answers. It sets the experts' `updated_at` (the `modified` of reads), which the next read's
 * ETag follows, and refreshes their search index rows. Anything derived from a profile belongs here.
 */
export async function profileChanged(
  trx: Queryable,
  orgId: number,
  experts: ChangedProfiles,
  now: number,
): Promise<void> {
  if (experts === 'all') {
    await touchExperts(trx, orgId, 'all', now)
    await touchExpertsSearch(trx, orgId, now)
    return
  }
  const ids = [...new Set(typeof experts === 'number' ? [experts] : experts)]
  await touchExperts(trx, orgId, ids, now)
  await refreshExpertsSearch(trx, orgId, ids)
}
