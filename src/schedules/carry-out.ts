import type { AuditTrail } from '../audit/actor.js'
import type { WriteContext } from '../audit/write-context.js'
import { updateItem } from '../content/publishing.js'
import type { Queryable } from '../db/database.js'
import { updateExpert } from '../experts/service.js'

/** What the schedule carries out: one time of one record (CONTRACT §21). */
export type ScheduledAction = 'publish' | 'unpublish'
export type ScheduledKind = 'expert' | 'spotlight' | 'question'

export interface DueTime {
  kind: ScheduledKind
  orgId: number
  id: number
  action: ScheduledAction
  /** Unix milliseconds. */
  at: number
  /** Who set the time (an actor reference, src/audit/actor.ts), whom the audit entry names. */
  setBy: string | null
}

/** The audit trail of a scheduled write: the schedule is the actor, naming who set it. */
export function scheduleTrail(due: Pick<DueTime, 'action' | 'setBy'>): AuditTrail {
  return { actor: { kind: 'schedule', setBy: due.setBy }, action: `schedule ${due.action}` }
}

/** Thrown inside the write when the time is no longer due: another process carried it out, or it was changed. */
class NoLongerDue extends Error {}

const TABLES = { expert: 'experts', spotlight: 'spotlights', question: 'questions' } as const

/**
 * Refuses the write unless the time is still set and due, read again in the write's transaction with
 * the record's row locked: of two processes carrying out the same time, the second finds it cleared by
 * the first's commit and writes nothing. This, not the loop, is what makes each time happen once.
 */
function stillDue(due: DueTime, now: number) {
  return async (trx: Queryable) => {
    const column = due.action === 'publish' ? 'publish_at' : 'unpublish_at'
    const row = await trx
      .selectFrom(TABLES[due.kind])
      .select(column)
      .where('org_id', '=', due.orgId)
      .where('id', '=', due.id)
      .executeTakeFirst()
    const at = row?.[column] ?? null
    if (at === null || at > now) throw new NoLongerDue()
  }
}

/**
 * Carries out one due time: the same publish or unpublish write as the API's (`PUT` of the expert, the
 * post or the Q&A item: its audit entry, read documents, search index and meaning rows follow), which
 * also clears the time. The single place where a scheduled publish calls the normal publish: a publish
 * gate checked by that write path applies here too. Answers false when the time was no longer due.
 */
export async function carryOut(
  context: Omit<WriteContext, 'orgId' | 'trail'>,
  due: DueTime,
): Promise<boolean> {
  const write: WriteContext = { ...context, orgId: due.orgId, trail: scheduleTrail(due) }
  const published = due.action === 'publish' ? 1 : 0
  const condition = stillDue(due, context.now)
  try {
    if (due.kind === 'expert') {
      const expert = await context.db
        .selectFrom('experts')
        .select(['username', 'type'])
        .where('org_id', '=', due.orgId)
        .where('id', '=', due.id)
        .executeTakeFirst()
      if (!expert) return false
      await updateExpert(write, {
        username: expert.username,
        type: expert.type,
        input: { is_published: published, [`${due.action}_at`]: null },
        condition,
      })
    } else {
      await updateItem(write, {
        kind: due.kind,
        id: due.id,
        input: { published, [`${due.action}_at`]: null },
        condition,
      })
    }
    return true
  } catch (error) {
    if (error instanceof NoLongerDue) return false
    throw error
  }
}
