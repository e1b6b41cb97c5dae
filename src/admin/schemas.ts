import { type Static, Type } from 'typebox'
import { ACTOR_KINDS } from '../audit/actor.js'
import { RECORD_KINDS } from '../audit/log.js'
import { ROLES } from '../auth/roles.js'
import { SCOPES } from '../auth/scopes.js'
import { cursorPaging, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, NextCursor, nullable } from '../http/paging.js'
import { ExpertParams } from '../http/params.js'
import { Clearable } from '../validation/fields.js'
import { Email, Flag, Id, Text, Url } from '../validation/text.js'

/** The admin API's shapes (CONTRACT §14): clients, the webhook, people and the audit log. Times are unix seconds. */

const UnixTime = (description: string) => Type.Integer({ description: `${description}, unix seconds` })

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE }

const paging = cursorPaging('the newest entries')

// Clients

export const ClientParams = Type.Object({
  corporation: ExpertParams.properties.corporation,
  client_id: Type.String({
    pattern: '^[A-Za-z0-9_-]{1,80}$',
    description: 'The client id (`cl_...`)',
    'x-message': 'must be a client id: letters, digits, - or _',
  }),
})

export const ClientCreate = Type.Object(
  {
    label: Type.Optional(Text({ max: 200, description: 'A note on what the client is for' })),
    scope: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        pattern: '^[a-z:]+( [a-z:]+)*$',
        title: 'What the client may do',
        description: `What the client may do, space-separated, of: ${SCOPES.join(', ')} (default: read write inquiries:create inquiries:read)`,
        'x-message': `must be scopes separated by single spaces, of: ${SCOPES.join(', ')}`,
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'ClientCreate',
    examples: [{ label: 'www.example.edu', scope: 'read:public inquiries:create' }],
  },
)
export type ClientCreateInput = Static<typeof ClientCreate>

export const ClientView = Type.Object(
  {
    client_id: Type.String(),
    label: nullable(Type.String(), 'What the client is for'),
    scope: Type.String({ description: 'The scopes the client may request, space-separated' }),
    created_at: UnixTime('When it was created'),
    revoked_at: nullable(UnixTime('When it was revoked'), 'When it was revoked; null while it works'),
  },
  { title: 'Client' },
)

export const ClientList = Type.Object({ clients: Type.Array(ClientView) }, { title: 'ClientList' })

export const ClientIssued = Type.Object(
  {
    client_id: Type.String(),
    client_secret: Type.String({ description: 'Shown this once: only its hash is stored' }),
    label: nullable(Type.String(), 'What the client is for'),
    scope: Type.String({ description: 'The scopes the client may request, space-separated' }),
  },
  {
    title: 'ClientIssued',
    examples: [
      {
        client_id: 'cl_Jx3kPq8sVn2WmT0a',
        client_secret: 'b3Vy-c2VjcmV0LXNob3duLW9uY2UtYW5kLW5ldmVyLWFnYWlu',
        label: 'www.example.edu',
        scope: 'read:public inquiries:create',
      },
    ],
  },
)

export const ClientRevoked = Type.Object(
  {
    client_id: Type.String(),
    revoked: Type.Literal(true),
    revoked_at: UnixTime('When it was revoked (the first time, when it already was)'),
  },
  { title: 'ClientRevoked' },
)

// Webhook

export const WebhookView = Type.Object(
  {
    url: nullable(Type.String(), 'Where inquiries are POSTed; null without a webhook'),
    configured: Type.Boolean(),
    updated_at: nullable(UnixTime('Last change'), 'Last change; null without a webhook'),
  },
  {
    title: 'Webhook',
    examples: [{ url: 'https://www.example.edu/hooks/expertdir', configured: true, updated_at: 1795480700 }],
  },
)

export const WebhookSet = Type.Object(
  {
    url: Url({
      title: 'Webhook URL',
      description: 'Where each inquiry is POSTed, signed (docs/webhooks.md)',
    }),
    keep_secret: Type.Optional(
      Flag({
        title: 'Keep the signing secret',
        description: '1: change only the URL and keep the signing secret (default 0: a new one)',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'WebhookSet',
    examples: [{ url: 'https://www.example.edu/hooks/expertdir' }],
  },
)
export type WebhookSetInput = Static<typeof WebhookSet>

export const WebhookSaved = Type.Object(
  {
    url: Type.String(),
    secret: Type.Optional(
      Type.String({ description: 'The new signing secret, shown this once; absent with keep_secret=1' }),
    ),
  },
  {
    title: 'WebhookSaved',
    examples: [
      {
        url: 'https://www.example.edu/hooks/expertdir',
        secret: 'whsec_7yJqkM2xv0cE9r3pW1nT5bLhS8dQ4aZ6uF0gK2mN',
      },
    ],
  },
)

export const WebhookCleared = Type.Object({ cleared: Type.Literal(true) }, { title: 'WebhookCleared' })

export const WebhookTestResult = Type.Object(
  {
    delivered: Type.Boolean({ description: 'Whether the receiver answered 2xx within 10 seconds' }),
    error: nullable(Type.String(), 'Why it failed, as the delivery log says it; null when delivered'),
  },
  { title: 'WebhookTestResult', examples: [{ delivered: false, error: 'webhook answered HTTP 503' }] },
)

export const DeliveryQuery = Type.Object(paging, { additionalProperties: false })
export type DeliveryQueryInput = Static<typeof DeliveryQuery>

export const WebhookDeliveryView = Type.Object(
  {
    id: Type.Integer({ description: 'The delivery id (X-Expertdir-Delivery)' }),
    inquiry_id: Type.Integer(),
    status: Type.Enum(['pending', 'delivered', 'failed', 'skipped']),
    attempts: Type.Integer(),
    last_error: nullable(Type.String(), 'Why the last attempt failed'),
    created_at: UnixTime('When the inquiry arrived'),
    delivered_at: nullable(UnixTime('When it was delivered'), 'When it was delivered'),
    next_attempt_at: nullable(
      UnixTime('When it is attempted next'),
      'When it is attempted next, while pending',
    ),
  },
  { title: 'WebhookDelivery' },
)

export const WebhookDeliveryList = Type.Object(
  { deliveries: Type.Array(WebhookDeliveryView), next_cursor: NextCursor },
  { title: 'WebhookDeliveryList' },
)

// People

export const PersonParams = Type.Object({
  corporation: ExpertParams.properties.corporation,
  id: Id('The person id'),
})

const Role = Type.Enum(ROLES, {
  title: 'Role',
  description: 'owner, admin, editor, inquiries or expert (CONTRACT §14)',
})
const PersonName = Text({ max: 200, min: 1, description: 'Display name' })
const ExpertUsername = ExpertParams.properties.username

export const PersonCreate = Type.Object(
  {
    email: Email({
      title: 'Sign-in email',
      description: 'Sign-in email, unique across the service; the invitation goes there',
    }),
    role: Role,
    name: Type.Optional(PersonName),
    expert: Type.Optional(ExpertUsername),
  },
  {
    additionalProperties: false,
    title: 'PersonCreate',
    examples: [{ email: 'editor@example.edu', role: 'editor', name: 'Sam Editor' }],
  },
)
export type PersonCreateInput = Static<typeof PersonCreate>

export const PersonUpdate = Type.Object(
  {
    name: Type.Optional(PersonName),
    role: Type.Optional(Role),
    expert: Clearable(ExpertUsername),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    title: 'PersonUpdate',
    'x-message': 'must change at least one of name, role, expert',
    examples: [{ role: 'admin' }],
  },
)
export type PersonUpdateInput = Static<typeof PersonUpdate>

export const PersonView = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    name: Type.String(),
    role: Role,
    expert: nullable(Type.String(), 'For the expert role: the username of its expert'),
    has_password: Type.Boolean({ description: 'false while an invitation is not accepted' }),
    invitation_expires_at: nullable(
      UnixTime('When the invitation link ends'),
      'When the invitation link ends (in the past: expired); null without one (a password is set)',
    ),
    created_at: UnixTime('When the person was added'),
  },
  { title: 'Person' },
)

export const PersonList = Type.Object({ people: Type.Array(PersonView) }, { title: 'PersonList' })

export const PersonInvited = Type.Object(
  {
    person: PersonView,
    invitation: Type.Enum(['sent', 'failed', 'skipped'], {
      description:
        'The emailed invitation (valid 7 days): sent, failed (the mail server refused it: remove and add again), or skipped (no EXPERTDIR_SMTP_URL: the operator prints a link with the CLI)',
    }),
  },
  { title: 'PersonInvited' },
)

export const PersonRemoved = Type.Object(
  { id: Type.Integer(), removed: Type.Literal(true) },
  { title: 'PersonRemoved' },
)

// Audit log

export const AuditQuery = Type.Object(
  {
    actor: Type.Optional(
      Type.String({
        pattern: '^(person:[1-9][0-9]{0,15}|client:cl_[A-Za-z0-9_-]{1,64}|cli|system|schedule)$',
        description:
          'Only entries of this actor: person:<id>, client:<client_id>, cli, system or schedule (the publishing schedule)',
        'x-message': 'must be person:<id>, client:<client_id>, cli, system or schedule',
      }),
    ),
    kind: Type.Optional(Type.Enum(RECORD_KINDS, { description: 'Only entries about this kind of record' })),
    record: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description:
          "With kind: only the history of this record, by the id the entries name it with (an expert's username: its photo and profile sections included; a question's id: its answers included)",
      }),
    ),
    ...paging,
  },
  { additionalProperties: false },
)
export type AuditQueryInput = Static<typeof AuditQuery>

export const AuditEntryView = Type.Object(
  {
    id: Type.Integer(),
    created_at: UnixTime('When the write committed'),
    actor: Type.Object({
      kind: Type.Enum(ACTOR_KINDS, {
        description:
          'A person (dashboard), a client, the CLI, the service, or the publishing schedule (a scheduled publish or unpublish)',
      }),
      id: nullable(
        Type.String(),
        "The person's or the client's id; for the schedule, who set its time (person:<id>, client:<client_id>, cli); null for the CLI and the service",
      ),
      name: nullable(
        Type.String(),
        "The person's name or the client's label as they are now (for the schedule: of who set it); null for the CLI and the service",
      ),
    }),
    on_behalf_of: nullable(
      Type.Object({
        username: Type.String({ description: "The profile's username as the entry recorded it" }),
        name: nullable(Type.String(), "The profile's name as it is now; null when it no longer exists"),
      }),
      'The profile a delegate acted on through its grant (the actor is the delegate); null otherwise',
    ),
    action: Type.String({ description: 'The route (METHOD /v2/...) or the command (cli ...)' }),
    summary: Type.String({
      description:
        'What was done, as a sentence with the names of today: "Changed the biography of Ada Okafor"',
    }),
    record: Type.Object({
      kind: Type.String({ description: `One of: ${RECORD_KINDS.join(', ')}` }),
      id: nullable(
        Type.String(),
        'The id the API knows the record by (a username, a number, <username>/<section>/<id>, <question>/<answer>)',
      ),
      label: nullable(
        Type.String(),
        "The record's name: an expert's name, a post's title, a person's name, a client's label",
      ),
      subject: nullable(
        Type.Object({
          kind: Type.Enum(['expert', 'staff', 'spotlight', 'question', 'inquiry', 'person', 'client'], {
            description:
              "The kind of record to open: an expert's profile for a change to one of its sections",
          }),
          id: Type.String({ description: 'Its id: a username, a number, a client id' }),
        }),
        'The record a reader opens for this entry, while it exists; null when it is gone or has no page',
      ),
    }),
  },
  {
    title: 'AuditEntry',
    examples: [
      {
        id: 42,
        created_at: 1795480700,
        actor: { kind: 'person', id: '7', name: 'Grace Lee' },
        on_behalf_of: null,
        action: 'PUT /v2/organization/:corporation/expert/:username/biography',
        summary: 'Changed the biography of Ada Okafor',
        record: {
          kind: 'section',
          id: 'ada-okafor/biography/12',
          label: 'Ada Okafor',
          subject: { kind: 'expert', id: 'ada-okafor' },
        },
      },
    ],
  },
)

export const AuditLog = Type.Object(
  { entries: Type.Array(AuditEntryView), next_cursor: NextCursor },
  { title: 'AuditLog' },
)
