import type { Kysely } from 'kysely'
import type { Queryable } from '../db/database.js'
import type { DB } from '../db/schema.js'
import { writeTransaction } from '../db/transactions.js'
import { rebuildMeaning } from './meaning/maintenance.js'
import { bumpExpertSearchVersion, raiseExpertSearchVersionTo } from './search-index.js'
import { rebuildSearchIndex } from './search-maintenance.js'

/**
 * Filling the search index from the tables, outside the migrations (a migration must not run
 * application code that changes with time). The migrate step runs `rebuildSearchWhereMissing` after
 * every schema migration: it rebuilds only organizations with a profile (expert or staff member),
 * post or question that has no index row (data that predates migration 0006, staff members that
 * predate 0024, or an upgrade stopped between the two steps), an index row without the name key of 0029,
 * an expert without its meaning rows (src/derived/meaning/), or a claimed work without its row of
 * migration 0033, so on an index that is current it costs a few anti-join reads. `expertdir search
 * rebuild` rebuilds every organization (after a release changes what is indexed).
 */

/** Organizations (all, or only `orgId`) holding a profile (expert or staff), post or question that the index lacks or holds incomplete. */
async function organizationsMissingRows(db: Queryable, orgId?: number): Promise<number[]> {
  const queries = [
    db
      .selectFrom('experts')
      .select('experts.org_id')
      .distinct()
      .where((eb) => eb.and(orgId === undefined ? [] : [eb('experts.org_id', '=', orgId)]))
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('expert_search').select('expert_id').whereRef('expert_id', '=', 'experts.id'))),
      ),
    // Finding by meaning (migration 0030): experts without their meaning row.
    db
      .selectFrom('experts')
      .select('experts.org_id')
      .distinct()
      .where((eb) => eb.and(orgId === undefined ? [] : [eb('experts.org_id', '=', orgId)]))
      .where('experts.type', '=', 'expert')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('meaning_documents')
              .select('meaning_documents.expert_id')
              .whereRef('meaning_documents.org_id', '=', 'experts.org_id')
              .whereRef('meaning_documents.expert_id', '=', 'experts.id'),
          ),
        ),
      ),
    // Words and concepts (migration 0033): a work an expert claimed without its meaning_works row.
    db
      .selectFrom('work_candidates')
      .innerJoin('experts', 'experts.id', 'work_candidates.expert_id')
      .select('work_candidates.org_id')
      .distinct()
      .where((eb) => eb.and(orgId === undefined ? [] : [eb('work_candidates.org_id', '=', orgId)]))
      .where('work_candidates.state', '=', 'claimed')
      .where('experts.type', '=', 'expert')
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('meaning_works')
              .select('meaning_works.work_id')
              .whereRef('meaning_works.org_id', '=', 'work_candidates.org_id')
              .whereRef('meaning_works.work_id', '=', 'work_candidates.work_id'),
          ),
        ),
      ),
    db
      .selectFrom('spotlights')
      .select('spotlights.org_id')
      .distinct()
      .where((eb) => eb.and(orgId === undefined ? [] : [eb('spotlights.org_id', '=', orgId)]))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('spotlight_search')
              .select('spotlight_id')
              .whereRef('spotlight_id', '=', 'spotlights.id'),
          ),
        ),
      ),
    db
      .selectFrom('questions')
      .select('questions.org_id')
      .distinct()
      .where((eb) => eb.and(orgId === undefined ? [] : [eb('questions.org_id', '=', orgId)]))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('question_search').select('question_id').whereRef('question_id', '=', 'questions.id'),
          ),
        ),
      ),
    // Index rows that predate migration 0029 (no name key yet: not found by a name's likeness).
    db
      .selectFrom('expert_search')
      .select('org_id')
      .distinct()
      .where((eb) => eb.and(orgId === undefined ? [] : [eb('org_id', '=', orgId)]))
      .where('name_key', 'is', null),
  ]
  const found = new Set<number>()
  for (const query of queries) {
    for (const row of await query.execute()) found.add(Number(row.org_id))
  }
  return [...found].sort((a, b) => a - b)
}

/**
 * Rebuilds each organization in its own transaction, which first raises the organization's index
 * version (retiring cached results, past any number it had before the migrations). That write comes
 * first so that processes migrating together queue on it: the next one finds the index complete and
 * rebuilds nothing.
 */
async function rebuildOrganizations(
  db: Kysely<DB>,
  orgIds: number[],
  onlyMissing: boolean,
): Promise<number[]> {
  const rebuilt: number[] = []
  for (const orgId of orgIds) {
    const done = await writeTransaction(db, async (trx) => {
      await bumpExpertSearchVersion(trx, orgId)
      await raiseExpertSearchVersionTo(trx, orgId, Date.now())
      if (onlyMissing && (await organizationsMissingRows(trx, orgId)).length === 0) return false
      await rebuildSearchIndex(trx, orgId)
      await rebuildMeaning(trx, orgId, Date.now())
      return true
    })
    if (done) rebuilt.push(orgId)
  }
  return rebuilt
}

/** The derived step of `migrate`: rebuilds the organizations whose index lacks rows; returns their ids. */
export async function rebuildSearchWhereMissing(db: Kysely<DB>): Promise<number[]> {
  return rebuildOrganizations(db, await organizationsMissingRows(db), true)
}

/** `expertdir search rebuild`: rebuilds the index of every organization, or of `orgIds`; returns their ids. */
export async function rebuildSearchIndexes(db: Kysely<DB>, orgIds?: number[]): Promise<number[]> {
  const ids =
    orgIds ?? (await db.selectFrom('organizations').select('id').orderBy('id').execute()).map((row) => row.id)
  return rebuildOrganizations(db, ids, false)
}
