import { type TSchema, Type } from 'typebox'
import { listExpertQuestions, listExpertSpotlights } from '../content/repository.js'
import type { Queryable } from '../db/database.js'
import { parseItemData } from '../db/item-data.js'
import { toSeconds } from '../time.js'
import { listProfileItems, ORGANIZATION_PROFILE_COLUMNS, type OrganizationProfile } from './repository.js'
import {
  AVATAR_SIZES,
  DERIVED_SECTIONS,
  isStoredSection,
  STORED_SECTIONS,
  sectionOutput,
} from './section-fields.js'
import { elementOf } from './sections.js'

type Element = Record<string, unknown>

const SOCIAL_COLUMNS: readonly (typeof ORGANIZATION_PROFILE_COLUMNS)[number][] = [
  'twitter',
  'facebook',
  'linkedin',
  'instagram',
  'youtube',
]

const NullableString = Type.Union([Type.String(), Type.Null()])

const AvatarRendition = Type.Object(
  {
    url: Type.Optional(Type.String()),
    width: Type.Optional(Type.Integer()),
    height: Type.Optional(Type.Integer()),
  },
  { title: 'AvatarRendition', description: '{url, width, height}, or {} when there is no such rendition' },
)

export const AvatarOutput = Type.Object(
  Object.fromEntries(AVATAR_SIZES.map((size) => [size, AvatarRendition])),
  { title: 'Avatar', description: 'Renditions: s small, m medium, o original, l large' },
)

const CorporationProfileElement = Type.Object(
  {
    id: Type.Integer({ description: 'Organization id' }),
    name: Type.String(),
    ...Object.fromEntries(
      ORGANIZATION_PROFILE_COLUMNS.filter((column) => !SOCIAL_COLUMNS.includes(column)).map((column) => [
        column,
        NullableString,
      ]),
    ),
  },
  { title: 'ProfileCorporation' },
)

const CorporationSocialElement = Type.Object(
  {
    id: Type.Integer({ description: 'Organization id' }),
    ...Object.fromEntries(SOCIAL_COLUMNS.map((column) => [column, NullableString])),
  },
  { title: 'ProfileCorporationSocial' },
)

const SpotlightElement = Type.Object(
  {
    id: Type.Integer({ description: 'Post id' }),
    title: Type.String(),
    published_date: Type.Union([Type.Integer({ description: 'Unix seconds' }), Type.Null()]),
    featured_image: NullableString,
  },
  { title: 'ProfileSpotlight' },
)

const QandaElement = Type.Object(
  {
    id: Type.Integer({ description: 'Question id' }),
    question: Type.String(),
    published_date: Type.Union([Type.Integer({ description: 'Unix seconds' }), Type.Null()]),
  },
  { title: 'ProfileQanda' },
)

const DerivedElement = Type.Object(
  { id: Type.Integer(), source: Type.String({ description: 'The section the element comes from' }) },
  {
    additionalProperties: true,
    title: 'ProfileDerivedItem',
    description: 'An element of the source section, plus `source`',
  },
)

/** Response schemas of every profile key other than `account`. */
export function contentSectionSchemas(): Record<string, TSchema> {
  const schemas: Record<string, TSchema> = {}
  for (const section of STORED_SECTIONS) schemas[section] = Type.Array(sectionOutput(section))
  for (const derived of Object.keys(DERIVED_SECTIONS)) schemas[derived] = Type.Array(DerivedElement)
  schemas.avatar = AvatarOutput
  schemas.corporationprofile = Type.Array(CorporationProfileElement)
  schemas.corporationsocial = Type.Array(CorporationSocialElement)
  schemas.spotlight = Type.Array(SpotlightElement)
  schemas.qanda = Type.Array(QandaElement)
  return schemas
}

/**
 * Every profile key except `account`, from three queries (items, posts, questions) plus the
 * organization already loaded with the expert.
 */
export async function readContentSections(
  db: Queryable,
  orgId: number,
  expertId: number,
  organization: OrganizationProfile,
): Promise<Record<string, unknown>> {
  const [items, spotlights, questions] = await Promise.all([
    listProfileItems(db, orgId, expertId),
    listExpertSpotlights(db, orgId, expertId),
    listExpertQuestions(db, orgId, expertId),
  ])
  const sections: Record<string, unknown> = {}
  const elements = new Map<string, Element[]>(STORED_SECTIONS.map((section) => [section, []]))
  const avatar: Record<string, unknown> = Object.fromEntries(AVATAR_SIZES.map((size) => [size, {}]))
  for (const item of items) {
    if (item.section === 'avatar') Object.assign(avatar, parseItemData(item.data))
    else if (isStoredSection(item.section)) elements.get(item.section)?.push(elementOf(item.section, item))
  }
  for (const [section, list] of elements) sections[section] = list
  sections.avatar = avatar
  for (const [derived, sources] of Object.entries(DERIVED_SECTIONS)) {
    sections[derived] = sources.flatMap((source) =>
      (elements.get(source) ?? []).map((element) => ({ ...element, source })),
    )
  }
  const { id, name } = organization
  sections.corporationprofile = [
    {
      id,
      name,
      ...Object.fromEntries(
        ORGANIZATION_PROFILE_COLUMNS.filter((c) => !SOCIAL_COLUMNS.includes(c)).map((c) => [
          c,
          organization[c],
        ]),
      ),
    },
  ]
  const social = Object.fromEntries(SOCIAL_COLUMNS.map((column) => [column, organization[column]]))
  sections.corporationsocial = Object.values(social).some((url) => url !== null) ? [{ id, ...social }] : []
  sections.spotlight = spotlights.map((post) => ({
    id: post.id,
    title: post.title,
    published_date: toSeconds(post.published_at ?? post.created_at),
    featured_image: post.featured_image,
  }))
  sections.qanda = questions.map((question) => ({
    id: question.id,
    question: question.question,
    published_date: toSeconds(question.published_at ?? question.created_at),
  }))
  return sections
}
