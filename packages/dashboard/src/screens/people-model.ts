import type { components } from '../../../client/src/schema.ts'
import { type FieldSpec, fieldsOf } from '../forms/model.ts'
import { PERSON_SCHEMAS } from '../schemas.ts'

/** What the People screen shows of roles and invitations, and its forms' generated fields. */

export type Person = components['schemas']['Person']
export type Role = Person['role']

/** What each role may do (CONTRACT §14), said where a role is chosen. */
export const ROLE_HINTS: Readonly<Record<Role, string>> = {
  owner: 'Owner: everything, including people, owners and the organization’s settings.',
  admin: 'Admin: everything but owners: people, settings, experts, posts, Q&A and inquiries.',
  editor: 'Editor: experts, posts, Q&A and the organization profile; no inquiries.',
  inquiries: 'Inquiries: reads and handles inquiries; reads experts.',
  expert: 'Expert: only their own profile and the inquiries sent to them.',
}
export const ROLE_NAMES: Readonly<Record<Role, string>> = {
  owner: 'Owner',
  admin: 'Admin',
  editor: 'Editor',
  inquiries: 'Inquiries',
  expert: 'Expert',
}
/** Roles whose tokens hold `admin`: the ones that keep this screen. */
export const ADMINISTERING: readonly string[] = ['owner', 'admin']

const LABELS: Readonly<Record<string, string>> = { email: 'Email', name: 'Name', role: 'Role' }

/** The generated fields of a person's write, short labels and role names; the expert has a picker of its own. */
function personFields(schema: typeof PERSON_SCHEMAS.create): FieldSpec[] {
  return fieldsOf(schema)
    .filter((field) => field.name !== 'expert')
    .map((field) => ({
      ...field,
      label: LABELS[field.name] ?? field.label,
      hint: field.name === 'role' ? '' : field.hint,
      options: field.options.map((option) => ({
        ...option,
        label: ROLE_NAMES[option.value as Role] ?? option.label,
      })),
    }))
}
export const inviteFields = personFields(PERSON_SCHEMAS.create)
export const editFields = personFields(PERSON_SCHEMAS.update)

/** The role field's hint follows the chosen role. */
export const withRoleHint = (fields: readonly FieldSpec[], role: unknown): FieldSpec[] =>
  fields.map((field) =>
    field.name === 'role'
      ? { ...field, hint: ROLE_HINTS[role as Role] ?? 'Choose what the person may do.' }
      : field,
  )

export const day = (seconds: number) => new Date(seconds * 1000).toLocaleDateString()
export const when = (seconds: number) => new Date(seconds * 1000).toLocaleString()

/** What became of an invitation email, as a sentence; without a mail server, the command that prints its link. */
export function invitationOutcome(
  outcome: components['schemas']['PersonInvited']['invitation'],
  email: string,
): string {
  switch (outcome) {
    case 'sent':
      return 'The invitation was emailed. Its link works once, for 7 days.'
    case 'failed':
      return 'The mail server refused the invitation, so it was not sent: send a new one in a while.'
    case 'skipped':
      return (
        'No mail server is set up, so the invitation was not emailed. The operator prints its link with ' +
        `this command and hands it over: expertdir people invite --email ${email}`
      )
  }
}

/** Where a person stands: a password set, an invitation pending or expired, or neither (single sign-on). */
export function invitationState(person: Person): 'accepted' | 'pending' | 'expired' | 'none' {
  if (person.has_password) return 'accepted'
  const ends = person.invitation_expires_at
  if (ends === null) return 'none'
  return ends * 1000 > Date.now() ? 'pending' : 'expired'
}
