import { type Kysely, sql } from 'kysely'
import { bigint } from './columns.js'

/**
 * An inquiry's assignee is a person of the organization (CONTRACT §22), no longer an address among the
 * notification recipients: `inquiries.assignee` (a lower-cased address) becomes `assignee_id` (a
 * person's id; the assignment ends with the person, `on delete set null`).
 *
 * A stored address that is the email of a person of the same organization becomes that person's id. An
 * address that is nobody's is not lost: the inquiry becomes unassigned and its internal notes, which
 * the people handling it read, gain a line "Assigned to <address> before assignees were people; no
 * person has that address." (its status stays).
 */

function previousAssigneeLine() {
  return sql`'Assigned to ' || assignee || ' before assignees were people; no person has that address.'`
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('inquiries')
    .addColumn('assignee_id', bigint(db), (col) => col.references('people.id').onDelete('set null'))
    .execute()
  await sql`update inquiries set assignee_id = (
      select p.id from people p where p.org_id = inquiries.org_id and p.email_key = lower(inquiries.assignee))
    where assignee is not null`.execute(db)
  await sql`update inquiries set notes = case
      when notes is null or notes = '' then ${previousAssigneeLine()}
      else notes || ${'\n\n'} || ${previousAssigneeLine()} end
    where assignee is not null and assignee <> '' and assignee_id is null`.execute(db)
  await db.schema.dropIndex('inquiries_org_assignee').execute()
  await db.schema.alterTable('inquiries').dropColumn('assignee').execute()
  await db.schema
    .createIndex('inquiries_org_assignee')
    .on('inquiries')
    .columns(['org_id', 'assignee_id', 'id'])
    .execute()
}

/**
 * Back to the assignee's address: the person's email, lower-cased. Addresses moved into the notes
 * stay there.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inquiries').addColumn('assignee', 'text').execute()
  await sql`update inquiries set assignee = (
      select p.email_key from people p where p.id = inquiries.assignee_id and p.org_id = inquiries.org_id)
    where assignee_id is not null`.execute(db)
  await db.schema.dropIndex('inquiries_org_assignee').execute()
  await db.schema.alterTable('inquiries').dropColumn('assignee_id').execute()
  await db.schema
    .createIndex('inquiries_org_assignee')
    .on('inquiries')
    .columns(['org_id', 'assignee', 'id'])
    .execute()
}
