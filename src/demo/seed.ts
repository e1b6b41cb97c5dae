import type { Kysely } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { importContent } from '../import/index.js'
import { setOrganizationProfile } from '../profiles/organization.js'
import { demoDataset } from './dataset.js'

/** The demo directory's look. */
const DEMO_DIRECTORY = { brand_color: '#0b3d6b', accent_color: '#b45309' }

export interface SeededContent {
  experts: string[]
  spotlights: number[]
  questions: number[]
}

/**
 * Fills an organization with the demo content (src/demo/dataset.ts) through the import code; returns
 * the usernames and ids. Seeding twice updates the same records instead of duplicating them.
 */
export async function seedDemo(
  db: Kysely<DB>,
  orgId: number,
  now: number,
  trail: AuditTrail,
): Promise<SeededContent> {
  const result = await importContent(db, orgId, JSON.stringify(demoDataset()), { now, trail })
  // The demo shows the public directory: /directory/<org>/ (CONTRACT §18).
  await writeTransaction(db, async (trx) => {
    if (await setOrganizationProfile(trx, orgId, { public_directory: 1, ...DEMO_DIRECTORY }, now))
      await recordAudit(trx, orgId, trail, { kind: 'organization', id: orgId }, now)
  })
  return result.ids
}
