import type { Kysely } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import type { DB } from '../db/schema.js'
import { importContent } from '../import/index.js'
import { demoDataset } from './dataset.js'

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
  return result.ids
}
