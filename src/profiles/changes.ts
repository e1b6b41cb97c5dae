import type { Queryable } from '../db/database.js'
import { touchExperts } from './repository.js'

/** Which profiles a write changed: one expert, several, or every expert of the organization. */
export type ChangedProfiles = number | readonly number[] | 'all'

/**
 * The one step every write of an expert's profile passes through, inside the write's transaction:
 * account changes, section elements, the organization profile (every expert shows it), post tagging
 * and answers. It sets the experts' `updated_at` (the `modified` of reads), which the next read's
 * ETag follows. Anything derived from a profile (a search index, a stored read document) belongs here.
 */
export async function profileChanged(
  trx: Queryable,
  orgId: number,
  experts: ChangedProfiles,
  now: number,
): Promise<void> {
  const ids = typeof experts === 'number' ? [experts] : experts
  await touchExperts(trx, orgId, ids === 'all' ? 'all' : [...new Set(ids)], now)
}
