import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import { writeTransaction } from '../db/transactions.js'
import { notFound } from '../errors.js'
import { requireAssignable } from './assignees.js'
import type { HandlingChange } from './handling.js'
import { findInquiry, findInquiryWithDeliveries, type InquiryWithDeliveries } from './repository.js'

/**
 * Changes an inquiry's status, assignee and notes (`PATCH .../inquiry/:id`). An assignee is a person
 * of the organization whose role handles inquiries (CONTRACT §22). Assigning a `new` inquiry without
 * naming a status makes it `assigned`.
 */
export async function handleInquiry(
  { db, orgId, now, trail }: WriteContext,
  id: number,
  change: HandlingChange,
): Promise<InquiryWithDeliveries> {
  await writeTransaction(db, async (trx) => {
    const inquiry = await findInquiry(trx, orgId, id)
    if (!inquiry) throw notFound(`Inquiry ${id}`)
    const assignee = change.assignee
    const assigning = assignee !== undefined && assignee !== null
    if (assigning) await requireAssignable(trx, orgId, assignee)
    const status = change.status ?? (assigning && inquiry.status === 'new' ? 'assigned' : undefined)
    await trx
      .updateTable('inquiries')
      .set({
        ...(status === undefined ? {} : { status }),
        ...(assignee === undefined ? {} : { assignee_id: assignee }),
        ...(change.notes === undefined ? {} : { notes: change.notes === '' ? null : change.notes }),
      })
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .execute()
    await recordAudit(trx, orgId, trail, { kind: 'inquiry', id }, now)
  })
  const updated = await findInquiryWithDeliveries(db, orgId, id)
  if (!updated) throw notFound(`Inquiry ${id}`)
  return updated
}
