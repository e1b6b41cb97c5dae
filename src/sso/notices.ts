import type { Actor } from '../audit/actor.js'
import type { Queryable } from '../db/database.js'
import type { NoticeMailer } from '../people/mail.js'

/**
 * Every change of an organization's single sign-on is emailed to its owners (docs/security.md): who
 * decides how people sign in is an owner's business, and a change they did not make is how a takeover
 * would begin. Links are built only from the configured public address; without one the message
 * has none.
 */
export interface SsoNotices {
  mailer: NoticeMailer
  /** `EXPERTDIR_PUBLIC_URL`; never the request's host. */
  publicUrl: string | undefined
  /** Told of a failure to read the owners (the change itself is committed). */
  onError?: (error: unknown) => void
}

/** A notices channel that sends nothing (tests of the service that do not look at mail). */
export const NO_NOTICES: SsoNotices = {
  mailer: { send: async () => 'skipped', close() {} },
  publicUrl: undefined,
}

export interface SsoChange {
  orgId: number
  actor: Actor
  /** What happened, as a sentence's end: "changed", "removed", "verified the domain example.edu". */
  what: string
  /** The settings fields the change touched, by their API names. */
  fields?: readonly string[]
  /** How many people's bindings to the identity provider were forgotten. */
  forgotten?: number
  now: number
}

async function actorText(db: Queryable, actor: Actor): Promise<string> {
  if (actor.kind === 'cli') return 'the service’s operator (command line)'
  if (actor.kind === 'system') return 'the service'
  if (actor.kind === 'client') return `the integration client ${actor.id}`
  if (actor.kind === 'schedule') return 'the publishing schedule'
  const person = await db.selectFrom('people').select('email').where('id', '=', actor.id).executeTakeFirst()
  return `${person?.email ?? `person ${actor.id}`} (${actor.role})`
}

/** Emails the organization's owners about a change; never throws. */
export async function notifyOwners(db: Queryable, notices: SsoNotices, change: SsoChange): Promise<void> {
  try {
    const owners = await db
      .selectFrom('people')
      .select('email')
      .where('org_id', '=', change.orgId)
      .where('role', '=', 'owner')
      .orderBy('id')
      .execute()
    if (owners.length === 0) return
    const lines = [
      `The single sign-on of your expert directory organization was ${change.what}.`,
      '',
      `By: ${await actorText(db, change.actor)}`,
      `At: ${new Date(change.now).toISOString()}`,
    ]
    if (change.fields && change.fields.length > 0) lines.push(`Settings changed: ${change.fields.join(', ')}`)
    if (change.forgotten !== undefined && change.forgotten > 0) {
      lines.push(
        `The identity provider changed: ${change.forgotten} people will confirm their next single sign-on by email.`,
      )
    }
    lines.push('')
    if (notices.publicUrl !== undefined) lines.push(`Review the settings: ${notices.publicUrl}/admin/sso`, '')
    lines.push(
      'If you did not expect this change, review your organization’s people and integrations at once: ' +
        'only an owner or the service’s operator can change single sign-on.',
    )
    await notices.mailer.send(
      owners.map((owner) => owner.email),
      'Single sign-on of your expert directory changed',
      lines.join('\n'),
    )
  } catch (error) {
    notices.onError?.(error)
  }
}
