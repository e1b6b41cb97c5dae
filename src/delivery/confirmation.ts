import type { Queryable } from '../db/database.js'
import type { InquiryRow } from '../db/schema.js'

/**
 * The confirmation a sender of the public directory's contact form receives (the `confirmation`
 * channel of the outbox). The sender's address is not verified, so anyone could have typed it: the
 * email carries nothing the sender wrote (no name, no message), only what the organization itself
 * published (its name, the expert's name) and a link built from the configured public address, never
 * from a request's Host header. Without a public address there is no link.
 */
export interface Confirmation {
  subject: string
  text: string
}

/** The confirmation of `inquiry`, with the organization's and the expert's names as they are now. */
export async function composeConfirmation(
  db: Queryable,
  inquiry: InquiryRow,
  publicUrl: string | undefined,
): Promise<Confirmation> {
  const organization = await db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', inquiry.org_id)
    .executeTakeFirst()
  const expert =
    inquiry.expert_id === null
      ? undefined
      : await db
          .selectFrom('experts')
          .select(['firstname', 'lastname', 'username'])
          .where('org_id', '=', inquiry.org_id)
          .where('id', '=', inquiry.expert_id)
          .executeTakeFirst()
  const orgName = organization?.name ?? 'the organization'
  const expertName = expert ? `${expert.firstname} ${expert.lastname}`.trim() : undefined
  const addressee = expertName ? `${expertName} at ${orgName}` : orgName
  const sent = new Date(inquiry.created_at)
    .toISOString()
    .replace(/\.\d{3}Z$/, ' UTC')
    .replace('T', ' ')
  const link =
    publicUrl && expert
      ? `${publicUrl}/directory/${inquiry.org_id}/${encodeURIComponent(expert.username)}`
      : undefined
  const text = [
    `Your message to ${addressee} was received on ${sent} (reference #${inquiry.id}).`,
    'Any answer will come to this address; there is no need to send the message again.',
    ...(link ? ['', `The expert's page: ${link}`] : []),
    '',
    'If you did not write this message, someone else typed your address: you can ignore this email.',
  ].join('\n')
  return { subject: `Your message to ${addressee} was received`, text }
}
