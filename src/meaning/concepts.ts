import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import { lockedForWrite, writeTransaction } from '../db/transactions.js'
import { fingerprintChanged } from '../derived/changes.js'
import { notFound } from '../errors.js'
import { profileNotFound } from '../experts/profile-type.js'
import { findExpert } from '../experts/repository.js'
import { byCode, norm, vectorOf } from './rank.js'
import { readConceptFrequencies, readConceptsOf, readTotals } from './repository.js'
import type { ConceptViewData } from './schemas.js'

/**
 * An expert's fingerprint as its editors see it, and hiding a concept (as Pure lets researchers do):
 * a hidden concept leaves the vector, every ranking and every explanation, and stays hidden whatever
 * later writes recompute; showing it again brings it back.
 */

const round = (value: number) => Math.round(value * 1e4) / 1e4

async function conceptViews(db: Queryable, orgId: number, expertId: number): Promise<ConceptViewData[]> {
  const rows = await readConceptsOf(db, orgId, [expertId], { withHidden: true })
  const visible = rows.filter((row) => row.hidden === 0)
  const totals = await readTotals(db, orgId)
  const vector = vectorOf(
    visible,
    await readConceptFrequencies(
      db,
      orgId,
      visible.map((row) => row.concept),
    ),
    totals,
  )
  const length = norm(vector.weights) || 1
  return rows
    .map((row) => ({
      concept: row.concept,
      label: row.label,
      weight: row.hidden ? 0 : round((vector.weights.get(row.concept) ?? 0) / length),
      hidden: row.hidden === 1,
    }))
    .sort((a, b) => b.weight - a.weight || byCode(a.label, b.label) || byCode(a.concept, b.concept))
}

export async function listConcepts(
  db: Queryable,
  orgId: number,
  username: string,
): Promise<ConceptViewData[]> {
  const expert = await findExpert(db, orgId, username)
  if (!expert) throw profileNotFound('expert', username)
  return conceptViews(db, orgId, expert.id)
}

/** Hides or shows one concept of the expert's fingerprint; 404 when the fingerprint has no such concept. */
export async function setConceptHidden(
  { db, orgId, now, trail }: WriteContext,
  username: string,
  concept: string,
  hidden: boolean,
): Promise<ConceptViewData> {
  return writeTransaction(db, async (trx) => {
    const expert = await lockedForWrite(
      trx,
      trx
        .selectFrom('experts')
        .select(['id', 'username'])
        .where('org_id', '=', orgId)
        .where('username', '=', username)
        .where('type', '=', 'expert'),
    ).executeTakeFirst()
    if (!expert) throw profileNotFound('expert', username)
    const known = await trx
      .selectFrom('expert_concepts')
      .select('hidden')
      .where('org_id', '=', orgId)
      .where('expert_id', '=', expert.id)
      .where('concept', '=', concept)
      .executeTakeFirst()
    if (!known) throw notFound(`Concept ${concept} of expert ${username}`)
    if ((known.hidden === 1) !== hidden) {
      if (hidden)
        await trx
          .insertInto('hidden_concepts')
          .values({ org_id: orgId, expert_id: expert.id, concept, hidden_at: now })
          .onConflict((conflict) => conflict.columns(['org_id', 'expert_id', 'concept']).doNothing())
          .execute()
      else
        await trx
          .deleteFrom('hidden_concepts')
          .where('org_id', '=', orgId)
          .where('expert_id', '=', expert.id)
          .where('concept', '=', concept)
          .execute()
      await fingerprintChanged(trx, orgId, expert.id, now)
      await recordAudit(trx, orgId, trail, { kind: 'concept', id: `${expert.username}/${concept}` }, now)
    }
    const view = (await conceptViews(trx, orgId, expert.id)).find((entry) => entry.concept === concept)
    if (!view) throw notFound(`Concept ${concept} of expert ${username}`)
    return view
  })
}
