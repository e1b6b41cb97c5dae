import { type TSchema, Type } from 'typebox'
import { SeoInput } from '../content/schemas.js'
import type { ContentKind } from '../db/content-kinds.js'
import { ExpertCreate } from '../experts/schemas.js'
import { ORGANIZATION_FIELDS } from '../profiles/organization.js'
import {
  AvatarInput,
  isStoredSection,
  SINGLE_SECTIONS,
  STORED_SECTIONS,
  sectionInput,
} from '../profiles/section-fields.js'
import { Key, LongText, ShortText, UnixSeconds, Url } from '../validation/fields.js'
import { Flag } from '../validation/text.js'

const SUBDIVISION = { country: 'location_country', state: 'location_state', requireCountry: true }
const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]))

/** A photo given as a local image file (JPEG, PNG or WebP), relative to the import file's folder. */
export const AvatarFile = Type.Object(
  { file: Type.String({ minLength: 1, maxLength: 4096, description: 'Path of a JPEG, PNG or WebP image' }) },
  { additionalProperties: false },
)

/** `sections` of an imported expert: any stored section, plus the avatar (renditions, or a local file). */
export const ImportSections = Type.Object(
  {
    ...Object.fromEntries(
      STORED_SECTIONS.map((section) => [
        section,
        Type.Optional(Type.Array(sectionInput(section), SINGLE_SECTIONS.has(section) ? { maxItems: 1 } : {})),
      ]),
    ),
    avatar: Type.Optional(Type.Union([AvatarInput, AvatarFile])),
  },
  { additionalProperties: false },
)

// An import sets the flags itself; scheduled publishing (publish_at, unpublish_at) is the API's.
const {
  is_published: _published,
  is_private: _private,
  publish_at: _publishAt,
  unpublish_at: _unpublishAt,
  ...writable
} = ExpertCreate.properties

/** An expert: the writable fields of the API (create column), the flags, its key and its sections. */
export const ImportExpert = Type.Object(
  {
    key: Key('Stable import key: a re-import updates the expert with this key'),
    ...writable,
    is_published: Type.Optional(Flag('Published flag (default 0)')),
    is_private: Type.Optional(Flag('Private flag (default 0)')),
    sections: Type.Optional(ImportSections),
  },
  { additionalProperties: false, 'x-subdivision': SUBDIVISION },
)

const Tags = Type.Array(ShortText('Tag', 100), { maxItems: 100 })
const ExpertRef = Key('An expert: the key of an imported expert, or the username of an existing one')
const publication = {
  published: Type.Optional(Flag('Published flag (default 0)')),
  published_date: nullable(UnixSeconds('Publication time')),
  tags: Type.Optional(Tags),
  seo: Type.Optional(SeoInput),
}

/** A post: its html, the experts it tags, its tags and SEO record. */
export const ImportSpotlight = Type.Object(
  {
    key: Key('Stable import key of the post'),
    title: ShortText('Title', 500),
    html: LongText('Body (HTML)', 1_000_000),
    featured_image: nullable(Url('Featured image')),
    experts: Type.Optional(Type.Array(ExpertRef, { maxItems: 1000 })),
    ...publication,
  },
  { additionalProperties: false },
)

const ImportAnswer = Type.Object(
  {
    key: Type.Optional(Key('Import key of the answer (default: its position)')),
    expert: ExpertRef,
    answer: LongText('Answer (HTML)', 1_000_000),
    created: Type.Optional(UnixSeconds('Creation time (default: the import time)')),
  },
  { additionalProperties: false },
)

/** A Q&A item: the question, its answers by experts, tags and SEO record. */
export const ImportQuestion = Type.Object(
  {
    key: Key('Stable import key of the question'),
    question: ShortText('Question', 1000),
    details: nullable(LongText('Details (HTML or text)', 100_000)),
    answers: Type.Optional(Type.Array(ImportAnswer, { maxItems: 1000 })),
    ...publication,
  },
  { additionalProperties: false },
)

/** Each content kind's import record; its `key` is the stable import key a re-import updates the item by. */
export const CONTENT_RECORDS = {
  spotlight: ImportSpotlight,
  question: ImportQuestion,
} as const satisfies Record<ContentKind, TSchema>

/** The organization's public profile (the corporationprofile and corporationsocial sections). */
export const ImportOrganization = Type.Object(
  Object.fromEntries(Object.entries(ORGANIZATION_FIELDS).map(([name, schema]) => [name, nullable(schema)])),
  { additionalProperties: false, 'x-subdivision': SUBDIVISION },
)

export { isStoredSection }
