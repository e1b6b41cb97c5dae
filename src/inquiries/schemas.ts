import { type Static, type TSchema, Type } from 'typebox'
import { CorporationParams } from '../http/params.js'
import { propertyOf } from '../validation/guards.js'
import { CountryCode, Email, Id, StateCode, Text, Url } from '../validation/text.js'
import { INQUIRY_STATUS_LABELS, INQUIRY_STATUSES, RECIPIENT_ROLES } from './handling.js'
import {
  goesToDesk,
  INQUIRY_KINDS,
  type InquiryKind,
  InquiryTime,
  KIND_NAMES,
  type KindField,
  type KindFieldValue,
  kindFields,
  SENDER_FIELD_LABELS,
} from './kinds.js'

function Username(description: string, minLength = 1) {
  return Type.String({
    minLength,
    maxLength: 64,
    pattern: '^[a-z0-9-]*$',
    description,
    'x-message': 'must be a username: lowercase letters, digits and dashes',
  })
}

/** Optional fields accept "" for "not given": website forms send their empty fields too. */
const senderFields = {
  firstname: Text({ min: 1, max: 255, description: 'Sender first name' }),
  lastname: Type.Optional(Text({ max: 255, description: 'Sender last name' })),
  email: Email('Sender email address'),
  phone: Type.Optional(
    Text({
      max: 32,
      pattern: '^[0-9 +().-]*$',
      message: 'must be at most 32 digits, spaces and + ( ) . -',
      description: 'Sender phone number',
    }),
  ),
  // The rule of every other URL field; "" is an empty website field of a form.
  website: Type.Optional(
    Type.Union([Url('Sender website'), Type.Literal('')], {
      description: 'Sender website: an http(s) URL ("" for none)',
    }),
  ),
  organization: Type.Optional(Text({ max: 255, description: 'Sender company' })),
  message: Text({ min: 1, max: 5000, multiline: true, description: 'Sender message (line breaks allowed)' }),
  location_city: Type.Optional(Text({ max: 255, description: 'Sender city' })),
  location_state: Type.Optional(StateCode('Sender state/province')),
  location_country: Type.Optional(CountryCode('Sender country')),
  username: Username('Username of the recipient expert'),
}

/** A kind that may go to the desk: without `username` (or with "", as a form sends it) it does. */
const deskUsername = Type.Optional(
  Username(
    'Username of the recipient expert; leave it out (or "") to write to the organization\'s inquiry desk',
    0,
  ),
)

const objectOptions = {
  additionalProperties: false,
  'x-subdivision': { country: 'location_country', state: 'location_state', requireCountry: true },
}

/** `expertwitness` -> `ExpertWitnessInquiry`: the title the OpenAPI document names the body schema by. */
export const titleOf = (kind: InquiryKind) =>
  `${INQUIRY_KINDS[kind].label.replace(/(^| )([a-z])/g, (_, _space, letter: string) => letter.toUpperCase())}Inquiry`

/** The body schema of `kind`: the common sender fields and the kind's own. */
function kindSchema(kind: InquiryKind) {
  const own = Object.fromEntries(
    kindFields(kind).map(([name, field]) => [
      name,
      field.optional ? Type.Optional(field.schema) : field.schema,
    ]),
  )
  const username = goesToDesk(kind) ? { username: deskUsername } : {}
  return Type.Object(
    { ...senderFields, ...username, ...own },
    { ...objectOptions, title: titleOf(kind), description: `${INQUIRY_KINDS[kind].summary}.` },
  )
}

export const INQUIRY_SCHEMAS = Object.fromEntries(
  KIND_NAMES.map((kind) => [kind, kindSchema(kind)]),
) as Record<InquiryKind, ReturnType<typeof kindSchema>>

export const DonorInquiry = INQUIRY_SCHEMAS.donor
export const EventInquiry = INQUIRY_SCHEMAS.event

export const DONOR_TYPES = Object.keys(INQUIRY_KINDS.donor.fields.donor_type.choices ?? {})
export const DONOR_FOCUSES = Object.keys(INQUIRY_KINDS.donor.fields.donor_focus.choices ?? {})

const SenderFields = Type.Object({ ...senderFields, username: deskUsername })
/** The sender's fields; `username` is absent for an inquiry to the desk. */
export type SenderInput = Static<typeof SenderFields>

/** A validated request: the sender's fields, and the kind's own fields apart. */
export interface InquiryInput extends SenderInput {
  kind: InquiryKind
  fields: Record<string, KindFieldValue>
}

/** Splits a validated body of `kind` into the sender's fields and the kind's own. */
export function toInquiryInput(kind: InquiryKind, body: Record<string, unknown>): InquiryInput {
  const fields: Record<string, KindFieldValue> = {}
  const sender: Record<string, unknown> = {}
  const own = new Set(kindFields(kind).map(([name]) => name))
  for (const [key, value] of Object.entries(body)) {
    if (own.has(key)) {
      if (typeof value === 'string' || typeof value === 'number') fields[key] = value
    } else if (!(key === 'username' && value === '')) sender[key] = value
  }
  return { ...(sender as SenderInput), kind, fields }
}

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description:
        'Makes a retry safe: the same key with the same body within 24 hours returns the first response',
      'x-message': 'must be 1 to 255 visible ASCII characters, such as a UUID',
    }),
  ),
})

export const InquiryCreated = Type.Object(
  { id: Type.Integer({ description: 'Inquiry id' }) },
  { title: 'InquiryCreated' },
)

/** The inbox page size: 1..100, 20 when not given. */
export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

export const InboxQuery = Type.Object(
  {
    kind: Type.Optional(Type.Enum(KIND_NAMES, { description: 'Only inquiries of this kind' })),
    username: Type.Optional(Username('Only inquiries to this expert')),
    status: Type.Optional(Type.Enum(INQUIRY_STATUSES, { description: 'Only inquiries with this status' })),
    assignee: Type.Optional(Id('Only inquiries assigned to this person (its id)')),
    email: Type.Optional(
      Email(
        'Export: every inquiry sent from this address, all at once (scope admin; no other parameter with it)',
      ),
    ),
    since: Type.Optional(InquiryTime('Only inquiries received at or after this time')),
    until: Type.Optional(InquiryTime('Only inquiries received before this time')),
    page_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        default: DEFAULT_PAGE_SIZE,
        description: 'Inquiries per page, 1 to 100 (default 20)',
        'x-message': 'must be an integer from 1 to 100',
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "The previous page's next_cursor; omit it for the newest inquiries",
        'x-message': 'must be the next_cursor of a previous page',
      }),
    ),
  },
  { additionalProperties: false },
)
export type InboxQueryInput = Static<typeof InboxQuery>

export const InquiryParams = Type.Object({
  corporation: CorporationParams.properties.corporation,
  id: Id('Inquiry id'),
})

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** Every kind's fields, as the inbox serves them: a field of another kind is absent. */
const kindFieldProperties = Object.fromEntries(
  KIND_NAMES.flatMap((kind) =>
    kindFields(kind).map(([name, field]: [string, KindField]) => [
      name,
      Type.Optional(
        nullable(
          field.time
            ? Type.Integer({ description: `${field.label} (${kind}): unix seconds` })
            : Type.String({ description: `${field.label} (${kind})` }),
        ),
      ),
    ]),
  ),
)

const descriptionOf = (schema: unknown) => {
  const description = propertyOf(schema, 'description')
  return typeof description === 'string' ? description : undefined
}

export const InquiryFieldsView = Type.Object(
  {
    ...Object.fromEntries(
      Object.entries(senderFields)
        .filter(([name]) => name !== 'username')
        .map(([name, schema]) => [
          name,
          name === 'firstname' || name === 'email' || name === 'message'
            ? Type.String({ description: descriptionOf(schema) })
            : nullable(Type.String({ description: descriptionOf(schema) })),
        ]),
    ),
    ...kindFieldProperties,
  },
  {
    title: 'InquiryFields',
    description: "The sender's fields and those of the inquiry's kind; a field left out is null.",
  },
)

/** One field as the dashboard shows it: its label, its named choices, and whether it is a time. */
interface FieldDisplay {
  title: string
  oneOf?: { const: string; title: string }[]
  'x-input'?: 'unix-time' | 'longtext'
}

/**
 * How the dashboard shows an inquiry (scripts/dashboard-schema.ts writes it into the dashboard), from
 * the kinds' table: every field's `title`, named choices as `oneOf` of `const` + `title`, `x-input`
 * `unix-time` for a time (shown as a date in the reader's time zone), and the statuses and kinds with
 * their labels.
 */
export function inquiryDisplay() {
  const fields: Record<string, FieldDisplay> = Object.fromEntries(
    Object.entries(SENDER_FIELD_LABELS).map(([name, title]) => [
      name,
      name === 'message' ? { title, 'x-input': 'longtext' as const } : { title },
    ]),
  )
  for (const kind of KIND_NAMES) {
    for (const [name, field] of kindFields(kind)) {
      const display: FieldDisplay = { title: field.label }
      if (field.choices)
        display.oneOf = Object.entries(field.choices).map(([value, title]) => ({ const: value, title }))
      if (field.time) display['x-input'] = 'unix-time'
      else if (field.multiline) display['x-input'] = 'longtext'
      fields[name] = display
    }
  }
  return {
    fields: { type: 'object', properties: fields },
    status: {
      oneOf: INQUIRY_STATUSES.map((status) => ({ const: status, title: INQUIRY_STATUS_LABELS[status] })),
    },
    kind: {
      oneOf: KIND_NAMES.map((kind) => {
        const { label } = INQUIRY_KINDS[kind]
        return { const: kind, title: `${label.charAt(0).toUpperCase()}${label.slice(1)}` }
      }),
    },
  }
}

export const DeliveryStatusView = Type.Object(
  {
    channel: Type.String({ description: 'email or webhook' }),
    status: Type.String({ description: 'pending, delivered, failed or skipped' }),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    last_error: nullable(Type.String({ description: 'Why the last attempt failed or was skipped' })),
  },
  { title: 'InquiryDelivery' },
)

export const RecipientView = Type.Object(
  {
    role: Type.Enum(RECIPIENT_ROLES, { description: "expert, the expert's assistant, or the desk" }),
    email: Type.String({ description: 'Address emailed' }),
  },
  { title: 'InquiryRecipient' },
)

/** A person who handles inquiries (CONTRACT §22). */
export const AssigneeView = Type.Object(
  {
    id: Type.Integer({ description: "The person's id" }),
    name: Type.String({ description: "The person's name" }),
    email: Type.String({ description: "The person's email address" }),
  },
  { title: 'InquiryAssignee', description: 'Who handles it: a person of the organization; null for nobody' },
)

export const AssigneeList = Type.Object(
  {
    assignees: Type.Array(AssigneeView, {
      description: 'The people whose role handles inquiries (owner, admin, inquiries), by name',
    }),
  },
  { title: 'InquiryAssigneeList' },
)

export const InquiryView = Type.Object(
  {
    id: Type.Integer({ description: 'Inquiry id' }),
    kind: Type.Enum(KIND_NAMES, { description: 'Kind of inquiry' }),
    username: nullable(
      Type.String({ description: "Username of the recipient expert; null for the organization's desk" }),
    ),
    created_at: Type.Integer({ description: 'When it was received: unix seconds' }),
    status: Type.Enum(INQUIRY_STATUSES, { description: 'Where its handling stands' }),
    assignee: nullable(AssigneeView),
    notes: nullable(Type.String({ description: 'Internal notes; never sent to the sender' })),
    recipients: Type.Array(RecipientView, { description: 'Who was emailed, decided when it arrived' }),
    redacted_at: nullable(
      Type.Integer({
        description:
          "When the sender's personal data was removed (retention or erasure), unix seconds: its fields are then empty",
      }),
    ),
    fields: InquiryFieldsView,
    delivery: Type.Array(DeliveryStatusView),
  },
  { title: 'Inquiry' },
)

export const InquiryList = Type.Object(
  {
    inquiries: Type.Array(InquiryView),
    next_cursor: nullable(
      Type.String({ description: 'Pass as cursor for the next page; null on the last page' }),
    ),
  },
  { title: 'InquiryList' },
)

export const InquiryPatch = Type.Object(
  {
    status: Type.Optional(Type.Enum(INQUIRY_STATUSES, { description: 'Where the handling stands' })),
    assignee: Type.Optional(
      Type.Union(
        [
          Type.Integer({
            minimum: 1,
            maximum: Number.MAX_SAFE_INTEGER,
            'x-message': "must be a person's id (a positive integer), or null to unassign",
          }),
          Type.Null(),
        ],
        {
          description:
            'Who handles it: the id of a person of the organization whose role handles inquiries (owner, admin, ' +
            'inquiries; GET .../inquiry/assignees lists them); null unassigns',
        },
      ),
    ),
    notes: Type.Optional(
      Type.Union([Text({ max: 5000, multiline: true, description: 'Internal notes' }), Type.Null()], {
        description: 'Internal notes (replace the stored ones; "" or null clears them)',
        'x-message': 'must be text of at most 5000 characters, or null',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'InquiryPatch',
    'x-message': 'must contain at least one of status, assignee, notes',
  },
)
export type InquiryPatchInput = Static<typeof InquiryPatch>

export const ErasureQuery = Type.Object(
  { email: Email('Erase every inquiry sent from this address') },
  { additionalProperties: false },
)
export type ErasureQueryInput = Static<typeof ErasureQuery>

export const ErasureResult = Type.Object(
  {
    erased: Type.Integer({ description: "Inquiries whose sender's personal data was removed" }),
  },
  { title: 'InquiryErasure' },
)
