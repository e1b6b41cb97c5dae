import { Type } from 'typebox'
import { SECTION_NAMES } from '../db/sections.js'
import { GATE_LIMITS } from './settings.js'

/** The workflow settings' and the publish checklist's shapes (CONTRACT §21, docs/editorial.md). */

/** The parts of a profile a review rule may name: its account, each section, its photo. */
export const REVIEWABLE_SECTIONS = ['account', ...SECTION_NAMES] as const

const Limit = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()], {
    description: `${description}; null: not checked`,
    'x-message': 'must be an integer from 0 to 1000000, or null',
  })

/** The settings' schema over the organization's role names (src/auth/roles.ts, above this folder). */
export function workflowSchema(roles: readonly string[]) {
  const Role = Type.String({
    enum: [...roles],
    'x-message': `must be one of the roles ${roles.join(', ')}`,
  })
  const Section = Type.String({
    enum: [...REVIEWABLE_SECTIONS],
    'x-message': `must be account or a profile section: ${SECTION_NAMES.join(', ')}`,
  })
  return Type.Object(
    {
      review: Type.Object(
        {
          roles: Type.Array(Role, {
            maxItems: roles.length,
            uniqueItems: true,
            description:
              'The roles whose changes need review ([]: no review). Stored now; it takes effect with drafts (docs/editorial.md)',
          }),
          sections: Type.Union(
            [
              Type.Array(Section, {
                maxItems: REVIEWABLE_SECTIONS.length,
                uniqueItems: true,
                description: 'The parts of a profile whose changes need review',
              }),
              Type.Null(),
            ],
            { description: 'null: every part of the profile' },
          ),
        },
        { additionalProperties: false, title: 'ReviewRules' },
      ),
      gate: Type.Object(
        {
          photo_min_px: Limit("The photo's shorter side in pixels, at least"),
          tagline_max: Limit("The tagline's characters, at most"),
          biography_max: Limit("The biography's characters of text (without markup), at most"),
          topics_min: Limit('Topics, at least'),
        },
        {
          additionalProperties: false,
          title: 'PublishGate',
          description: 'What a profile must meet to be published',
        },
      ),
    },
    { additionalProperties: false, title: 'WorkflowSettings' },
  )
}

export const WorkflowUpdated = Type.Object(
  { updated: Type.Boolean({ description: 'Whether the settings changed' }) },
  { title: 'WorkflowUpdated' },
)

const ChecklistItem = Type.Object(
  {
    check: Type.Union(
      [
        Type.Literal(GATE_LIMITS[0]),
        Type.Literal(GATE_LIMITS[1]),
        Type.Literal(GATE_LIMITS[2]),
        Type.Literal(GATE_LIMITS[3]),
      ],
      { description: 'The limit of the publish gate' },
    ),
    section: Type.Union(
      [Type.Literal('avatar'), Type.Literal('tagline'), Type.Literal('biography'), Type.Literal('topic')],
      { description: 'The profile section it concerns' },
    ),
    ok: Type.Boolean(),
    limit: Type.Integer({ description: "The organization's limit" }),
    value: Type.Integer({
      description:
        "The profile's figure: the photo's shorter side in pixels (0: no photo), characters, topics",
    }),
    message: Type.String({ description: 'What it is, or what is missing, as a sentence' }),
  },
  { title: 'ChecklistItem' },
)

export const Checklist = Type.Object(
  {
    ready: Type.Boolean({ description: 'Whether the profile may be published: every item ok' }),
    items: Type.Array(ChecklistItem, { description: 'One per limit the organization set' }),
  },
  { title: 'PublishChecklist' },
)
