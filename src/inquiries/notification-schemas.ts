import { type Static, Type } from 'typebox'
import { propertyOf } from '../validation/guards.js'
import { Email, Flag } from '../validation/text.js'
import { KIND_NAMES } from './kinds.js'

/** The most desk addresses one kind may name. */
export const MAX_RECIPIENTS = 20

const settingFields = {
  recipients: Type.Array(Email('A desk address'), {
    maxItems: MAX_RECIPIENTS,
    description: `The desk's addresses for this kind (at most ${MAX_RECIPIENTS}); stored lower-cased`,
    'x-message': `must be a list of at most ${MAX_RECIPIENTS} email addresses`,
  }),
  expert: Flag('1: the expert an inquiry names is emailed'),
  assistant: Flag("1: the expert's assistant (assistant_email) is emailed too, when the expert has one"),
  desk: Flag(
    '1: the desk addresses are emailed about inquiries to experts too (inquiries to the organization always go to the desk)',
  ),
}

/** How the dashboard's recipients screen labels each setting; its hint is the field's description. */
const SETTING_LABELS: Record<keyof typeof settingFields, string> = {
  recipients: 'Desk addresses',
  expert: 'Email the expert',
  assistant: "Email the expert's assistant",
  desk: 'Email the desk about inquiries to experts too',
}

/** The settings of one kind as the dashboard shows them: each field's `title` and `description`. */
export function notificationDisplay() {
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(SETTING_LABELS).map(([name, title]) => [
        name,
        { title, description: propertyOf(propertyOf(settingFields, name), 'description') },
      ]),
    ),
  }
}

export const KindNotificationView = Type.Object(
  {
    recipients: Type.Array(Type.String(), { description: "The desk's addresses for this kind" }),
    expert: Type.Integer({ enum: [0, 1], description: 'Whether the expert is emailed' }),
    assistant: Type.Integer({ enum: [0, 1], description: "Whether the expert's assistant is emailed" }),
    desk: Type.Integer({
      enum: [0, 1],
      description:
        'Whether the desk is emailed about inquiries to experts (always about those to the organization)',
    }),
  },
  { title: 'KindNotification' },
)

export const NotificationSettingsView = Type.Object(
  Object.fromEntries(KIND_NAMES.map((kind) => [kind, KindNotificationView])),
  { title: 'NotificationSettings', description: 'Who is emailed about each inquiry kind' },
)

const KindNotificationChange = Type.Object(
  {
    recipients: Type.Optional(settingFields.recipients),
    expert: Type.Optional(settingFields.expert),
    assistant: Type.Optional(settingFields.assistant),
    desk: Type.Optional(settingFields.desk),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    'x-message': 'must set at least one of recipients, expert, assistant, desk',
  },
)
export type KindNotificationChangeInput = Static<typeof KindNotificationChange>

export const NotificationSettingsUpdate = Type.Object(
  Object.fromEntries(KIND_NAMES.map((kind) => [kind, Type.Optional(KindNotificationChange)])),
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'NotificationSettingsUpdate',
    description:
      'The kinds to change, each with the fields to change; kinds and fields left out keep their settings',
    'x-message': `must name at least one inquiry kind: ${KIND_NAMES.join(', ')}`,
  },
)
export type NotificationSettingsUpdateInput = Static<typeof NotificationSettingsUpdate>
