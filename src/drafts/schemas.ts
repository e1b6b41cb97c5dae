import { Type } from 'typebox'
import { Success } from '../http/envelope.js'
import { CorporationParams } from '../http/params.js'

/** The answer of a write that needs review: it is kept as a draft (202), the live record unchanged. */
export const DraftOpened = Type.Object(
  {
    draft: Type.Object({ id: Type.Integer(), state: Type.Literal('open') }, { additionalProperties: false }),
  },
  { additionalProperties: false, title: 'DraftOpened' },
)

/** The 202 response of a write that may become a draft. */
export const draftResponse = { 202: Success(DraftOpened) }

const FieldChange = Type.Object(
  {
    field: Type.String(),
    before: Type.Unknown(),
    after: Type.Unknown(),
    words: Type.Optional(
      Type.Array(
        Type.Object({
          op: Type.Union([Type.Literal('same'), Type.Literal('added'), Type.Literal('removed')]),
          text: Type.String(),
        }),
      ),
    ),
  },
  { title: 'DraftFieldChange' },
)

export const DraftStateName = Type.Union(
  [
    Type.Literal('open'),
    Type.Literal('submitted'),
    Type.Literal('returned'),
    Type.Literal('approved'),
    Type.Literal('published'),
  ],
  { title: 'DraftState' },
)

export const DraftSummary = Type.Object(
  {
    id: Type.Integer(),
    record: Type.Object({
      kind: Type.String({ description: 'profile, spotlight or question' }),
      id: Type.Integer(),
      username: Type.Union([Type.String(), Type.Null()], {
        description: "A profile's username; null for a post or question",
      }),
      title: Type.Union([Type.String(), Type.Null()], {
        description: "What the record is called today: a profile's name, a post's title, the question",
      }),
    }),
    part: Type.String({ description: '`account` or a section of a profile; `item` for a post or question' }),
    state: Type.String(),
    author: Type.Object({
      id: Type.Integer(),
      name: Type.Union([Type.String(), Type.Null()], {
        description: "The person's name today; null: the person was deleted",
      }),
      delegate: Type.Boolean({
        description:
          "Whether the person wrote a profile's draft as its delegate: neither the profile's own person nor an editor, admin or owner",
      }),
    }),
    reviewer: Type.Union(
      [
        Type.Object({ kind: Type.String({ description: 'person or client' }), id: Type.String() }),
        Type.Null(),
      ],
      {
        description: 'Who approved or returned it',
      },
    ),
    comment: Type.Union([Type.String(), Type.Null()]),
    publish_at: Type.Union([Type.Integer(), Type.Null()], {
      description: 'When an approved draft is published, unix seconds; null: not scheduled',
    }),
    created_at: Type.Integer(),
    updated_at: Type.Integer(),
  },
  { title: 'DraftSummary' },
)

export const DraftList = Type.Object({ drafts: Type.Array(DraftSummary) }, { title: 'DraftList' })

export const DraftView = Type.Intersect(
  [
    DraftSummary,
    Type.Object({
      diff: Type.Array(FieldChange, { description: 'What the draft changes in the live record' }),
      conflict: Type.Boolean({ description: 'Whether the record changed live since the draft was opened' }),
      live_changes: Type.Array(FieldChange, { description: 'What changed live since the draft was opened' }),
    }),
  ],
  { title: 'Draft' },
)

export const DraftParams = Type.Object({
  corporation: CorporationParams.properties.corporation,
  id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Draft id',
    'x-message': 'must be a positive decimal integer (at most 2^53-1)',
  }),
})

export const DraftQuery = Type.Object(
  { state: Type.Optional(DraftStateName) },
  { additionalProperties: false },
)

export const DraftApproval = Type.Object(
  {
    force: Type.Optional(
      Type.Boolean({ description: 'Publish over the changes made live since the draft was opened' }),
    ),
    publish_at: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 253402300799,
        description:
          'Unix seconds: publish then (the draft is `approved` until); at once when absent or past',
      }),
    ),
  },
  { additionalProperties: false, title: 'DraftApproval' },
)

export const DraftReturn = Type.Object(
  { comment: Type.String({ minLength: 1, maxLength: 5000 }) },
  { additionalProperties: false, title: 'DraftReturn' },
)
