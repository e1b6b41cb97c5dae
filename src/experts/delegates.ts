import { actorReference } from '../audit/actor.js'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import { writeTransaction } from '../db/transactions.js'
import { notFound, validationError } from '../errors.js'
import { toSeconds } from '../time.js'
import { profileNotFound } from './profile-type.js'
import { findExpertForWrite } from './repository.js'

/**
 * Delegates of an expert's profile (CONTRACT §21): a person of the organization whom the expert (or an
 * editor) lets edit that one profile, as the expert could, until a time. The grant itself raises no
 * role: the bearer check (src/auth/bearer.ts) reads it on every request that addresses the profile and
 * that the person's own role does not reach, so an expired or revoked grant stops working at once.
 */

export interface DelegateView {
  person: { id: number; name: string; email: string; role: string }
  /** Unix seconds: the grant ends then. */
  until: number
  /** Unix seconds: when it was granted (or last extended). */
  granted_at: number
}

/** The live grants of a profile, soonest to end first; 404 for an unknown expert. */
export async function listDelegates(
  db: Queryable,
  orgId: number,
  username: string,
  now: number,
): Promise<DelegateView[]> {
  const expert = await db
    .selectFrom('experts')
    .select('id')
    .where('org_id', '=', orgId)
    .where('username', '=', username)
    .where('type', '=', 'expert')
    .executeTakeFirst()
  if (!expert) throw profileNotFound('expert', username)
  const rows = await db
    .selectFrom('expert_delegates as d')
    .innerJoin('people as p', 'p.id', 'd.person_id')
    .select(['p.id', 'p.name', 'p.email', 'p.role', 'd.until', 'd.created_at'])
    .where('d.org_id', '=', orgId)
    .where('p.org_id', '=', orgId)
    .where('d.expert_id', '=', expert.id)
    .where('d.until', '>', now)
    .orderBy('d.until')
    .orderBy('p.id')
    .execute()
  return rows.map((row) => ({
    person: { id: Number(row.id), name: row.name, email: row.email, role: row.role },
    until: toSeconds(row.until),
    granted_at: toSeconds(row.created_at),
  }))
}

/** How the audit log names a grant: `<username>/<person id>`. */
const delegateRecord = (username: string, personId: number) =>
  ({ kind: 'delegate', id: `${username}/${personId}` }) as const

/**
 * Grants `personId` edit rights on the expert `username` until `until` (unix seconds), or moves the end
 * of its grant. 400 naming the field for a time not in the future, a person who is not of this
 * organization (another organization's person reads as unknown), the granting person itself, or the
 * person the profile belongs to.
 */
export async function grantDelegate(
  { db, orgId, now, trail }: WriteContext,
  { username, personId, until }: { username: string; personId: number; until: number },
): Promise<{ created: boolean }> {
  if (until * 1000 <= now)
    throw validationError([{ field: 'until', message: 'must be in the future (unix seconds)' }])
  if (trail.actor.kind === 'person' && trail.actor.id === personId)
    throw validationError([{ field: 'person', message: 'cannot be yourself: a grant is for another person' }])
  return writeTransaction(db, async (trx) => {
    const expert = await findExpertForWrite(trx, orgId, username, 'expert')
    if (!expert) throw profileNotFound('expert', username)
    const person = await trx
      .selectFrom('people')
      .select(['id', 'expert_id'])
      .where('org_id', '=', orgId)
      .where('id', '=', personId)
      .executeTakeFirst()
    if (!person) throw validationError([{ field: 'person', message: 'is not a person of this organization' }])
    if (person.expert_id !== null && Number(person.expert_id) === expert.id)
      throw validationError([{ field: 'person', message: 'is the person this profile belongs to' }])
    const values = { until: until * 1000, granted_by: actorReference(trail.actor), created_at: now }
    const existing = await trx
      .selectFrom('expert_delegates')
      .select('person_id')
      .where('org_id', '=', orgId)
      .where('expert_id', '=', expert.id)
      .where('person_id', '=', personId)
      .executeTakeFirst()
    if (existing)
      await trx
        .updateTable('expert_delegates')
        .set(values)
        .where('org_id', '=', orgId)
        .where('expert_id', '=', expert.id)
        .where('person_id', '=', personId)
        .execute()
    else
      await trx
        .insertInto('expert_delegates')
        .values({ org_id: orgId, expert_id: expert.id, person_id: personId, ...values })
        .execute()
    await recordAudit(trx, orgId, trail, delegateRecord(username, personId), now)
    return { created: !existing }
  })
}

/** Ends a grant at once; 404 when the person holds none on this profile (an expired one included). */
export async function revokeDelegate(
  { db, orgId, now, trail }: WriteContext,
  { username, personId }: { username: string; personId: number },
): Promise<void> {
  await writeTransaction(db, async (trx) => {
    const expert = await findExpertForWrite(trx, orgId, username, 'expert')
    if (!expert) throw profileNotFound('expert', username)
    const removed = await trx
      .deleteFrom('expert_delegates')
      .where('org_id', '=', orgId)
      .where('expert_id', '=', expert.id)
      .where('person_id', '=', personId)
      .where('until', '>', now)
      .executeTakeFirst()
    // An expired grant is gone too, but it is not one to revoke.
    await trx
      .deleteFrom('expert_delegates')
      .where('org_id', '=', orgId)
      .where('expert_id', '=', expert.id)
      .where('person_id', '=', personId)
      .execute()
    if (Number(removed.numDeletedRows) === 0) throw notFound(`A grant to person ${personId} on ${username}`)
    await recordAudit(trx, orgId, trail, delegateRecord(username, personId), now)
  })
}
