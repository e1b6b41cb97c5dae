import { Type } from 'typebox'
import { cursorPaging, NextCursor } from '../http/paging.js'
import { CorporationParams, ExpertParams } from '../http/params.js'
import { Id } from '../validation/text.js'

/** The versions API's shapes (CONTRACT §21, docs/editorial.md). */

export const VersionListQuery = Type.Object(cursorPaging('the newest versions'), {
  additionalProperties: false,
})

export const ExpertVersionParams = Type.Object({
  ...ExpertParams.properties,
  id: Id('Version id'),
})

/** `/v2/<spotlight|qanda>/:corporation/:id/versions/:version`. */
export const ItemVersionParams = Type.Object({
  corporation: CorporationParams.properties.corporation,
  id: Id('Post or question id'),
  version: Id('Version id'),
})

const Actor = Type.Object(
  {
    kind: Type.Union(
      [
        Type.Literal('person'),
        Type.Literal('client'),
        Type.Literal('cli'),
        Type.Literal('system'),
        Type.Literal('schedule'),
      ],
      {
        description:
          'A signed-in person, an API client, the command line, the service itself, or the publishing schedule',
      },
    ),
    id: Type.Union([Type.String(), Type.Null()], {
      description:
        "The person's id or the client's client_id; for the schedule, who set its time (person:<id>, client:<client_id>, cli)",
    }),
    name: Type.Union([Type.String(), Type.Null()], {
      description: "The person's name or the client's label today; null for the command line and the service",
    }),
  },
  { title: 'VersionActor' },
)

const summaryFields = {
  id: Type.Integer(),
  part: Type.String({
    description:
      "What the change wrote, as kept whole in the version: a profile's `account` or one of its sections (`biography`, `education`, ...); `item` for a post or a Q&A item",
  }),
  created_at: Type.Integer({ description: 'When (unix seconds)' }),
  actor: Actor,
  action: Type.String({ description: 'The route or the command the change came through' }),
}

export const VersionSummary = Type.Object(summaryFields, { title: 'VersionSummary' })

export const VersionList = Type.Object(
  { versions: Type.Array(VersionSummary, { description: 'Newest first' }), next_cursor: NextCursor },
  { title: 'VersionList' },
)

const WordChange = Type.Object(
  {
    op: Type.Union([Type.Literal('same'), Type.Literal('added'), Type.Literal('removed')]),
    text: Type.String(),
  },
  { title: 'WordChange' },
)

const FieldChange = Type.Object(
  {
    field: Type.String({
      description:
        'The field: `job_title`; `seo.title` inside an object; `education[12].degree` in an element of a section, `education[12]` for a whole element added or removed, `education.order` for a new order',
    }),
    before: Type.Unknown({ description: 'Its value in the version before (null: none)' }),
    after: Type.Unknown({ description: 'Its value in this version (null: none)' }),
    words: Type.Optional(
      Type.Array(WordChange, {
        description: 'Rich text fields (HTML) only: a word diff of the readable text, without markup',
      }),
    ),
  },
  { title: 'FieldChange' },
)

export const VersionDetail = Type.Object(
  {
    ...summaryFields,
    snapshot: Type.Unknown({
      description:
        'The part as it was right after the change, as the API shows it: the account element, the section as its GET answers it (`{"education": [...]}`), or the post\'s or question\'s fields as its update body takes them',
    }),
    previous_id: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'The version of the same part before this one, which the diff compares with; null for the first',
    }),
    diff: Type.Array(FieldChange, { description: 'What this change changed, field by field' }),
  },
  { title: 'VersionDetail' },
)

export const VersionRestored = Type.Object(
  {
    restored: Type.Integer({ description: 'The version restored' }),
    updated: Type.Boolean({
      description:
        'Whether the record changed: false when it already equalled the version (no new version then)',
    }),
  },
  { title: 'VersionRestored' },
)
