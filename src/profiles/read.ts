import { type Static, type TSchema, Type } from 'typebox'
import type { Queryable } from '../db/database.js'
import type { ExpertRow, ProfileType } from '../db/schema.js'
import { type Audience, profileVisibleTo } from '../derived/audience.js'
import { currentDocument, type ReadDocument } from '../derived/current-document.js'
import { findExpertDocument } from '../derived/read-documents.js'
import { accountElement } from '../experts/account-shape.js'
import { mediaAccountFields } from '../experts/media-account.js'
import { profileNotFound } from '../experts/profile-type.js'
import { SCHEDULE_READ, scheduleRead } from '../validation/schedule.js'
import { contentSectionSchemas, readContentSections } from './read-sections.js'
import { findExpertWithOrganization } from './repository.js'

/** The 46 keys of the profile read result (seed section 2.3), in the seed's order. */
export const PROFILE_KEYS = [
  'accomplishment',
  'account',
  'affiliation',
  'assessment',
  'article',
  'audio',
  'audios_all',
  'availability',
  'avatar',
  'biography',
  'book',
  'category',
  'corporationprofile',
  'corporationsocial',
  'course',
  'cv',
  'document',
  'documents_all',
  'education',
  'eventappearance',
  'fee',
  'industry',
  'language',
  'link',
  'mediaappearance',
  'patent',
  'partnership',
  'photo',
  'podchaser',
  'profiletype',
  'qanda',
  'researchfocus',
  'researchgrant',
  'sampletalk',
  'seo',
  'social',
  'slideshare',
  'spotlight',
  'tag',
  'tagline',
  'testimonial',
  'topic',
  'video',
  'videos_all',
  'vimeo',
  'youtube',
] as const

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()])

export const AccountElement = Type.Object(
  {
    username: Type.String(),
    firstname: Type.String(),
    lastname: Type.String(),
    job_title: Type.String(),
    email: Type.String(),
    assistant_email: Nullable(Type.String()),
    company: Type.String(),
    department: Nullable(Type.String()),
    phone_number: Nullable(Type.String()),
    phone_number_extension: Nullable(Type.String()),
    location_city: Nullable(Type.String()),
    location_state: Nullable(Type.String()),
    location_country: Nullable(Type.String()),
    location_postal: Nullable(Type.String()),
    location_address: Nullable(Type.String()),
    location_building: Nullable(Type.String()),
    location_room: Nullable(Type.String()),
    corporation_id: Type.Integer(),
    is_published: Type.Integer({ enum: [0, 1] }),
    is_private: Type.Integer({ enum: [0, 1] }),
    orcid: Nullable(Type.String({ description: 'ORCID iD, 0000-0000-0000-000X' })),
    openalex_id: Nullable(Type.String({ description: 'OpenAlex author id' })),
    scopus_id: Nullable(Type.String({ description: 'Scopus author id' })),
    orcid_policy: Nullable(
      Type.String({ description: 'What works found through the ORCID iD become; null for read:public' }),
    ),
    openalex_policy: Nullable(
      Type.String({ description: 'What works found through the OpenAlex id become; null for read:public' }),
    ),
    scopus_policy: Nullable(
      Type.String({ description: 'What works found through the Scopus id become; null for read:public' }),
    ),
    ...mediaAccountFields,
    ...SCHEDULE_READ,
  },
  { title: 'ProfileAccount' },
)

/** The profile read result: `account` from the expert, every other key from the content sections. */
const contentSchemas = contentSectionSchemas()

/** The schema of one key of the profile read result. */
export function profileKeySchema(key: (typeof PROFILE_KEYS)[number]): TSchema {
  if (key === 'account') return Type.Array(AccountElement)
  const schema = contentSchemas[key]
  if (!schema) throw new Error(`The profile key ${key} has no content section schema`)
  return schema
}

export const Profile = Type.Object(
  Object.fromEntries(PROFILE_KEYS.map((key) => [key, profileKeySchema(key)])),
  { title: 'Profile', description: 'An expert profile: all 46 keys, empty sections as []' },
)

export type ProfileData = Record<(typeof PROFILE_KEYS)[number], unknown>
type Account = Static<typeof AccountElement>

/**
 * The account element as `audience` may read it. The public (`read:public`) never gets the expert's own
 * email, the assistant's, or the direct phone: the public directory does not show them either, and a
 * message reaches the expert through an inquiry (CONTRACT §17, §18). The keys stay, empty.
 */
export function accountOf(expert: ExpertRow, audience: Audience): Account {
  const account = accountElement(expert)
  if (audience === 'all') return { ...account, ...scheduleRead(expert, audience) }
  return {
    ...account,
    email: '',
    assistant_email: null,
    phone_number: null,
    phone_number_extension: null,
    orcid_policy: null,
    openalex_policy: null,
    scopus_policy: null,
  }
}

/**
 * The profile read result: every key present, empty sections as `[]`, an empty avatar as four `{}`.
 * Costs four queries whatever the number of filled sections: the expert with its organization,
 * the stored section items, the posts tagging the expert, the questions the expert answered.
 */
export async function readProfile(
  db: Queryable,
  orgId: number,
  username: string,
  type: ProfileType,
  audience: Audience,
): Promise<ProfileData> {
  const found = await findExpertWithOrganization(db, orgId, username, type)
  if (!found || !profileVisibleTo(audience, found.expert)) throw profileNotFound(type, username)
  const sections = await readContentSections(db, orgId, found.expert.id, found.organization)
  const profile = Object.fromEntries(PROFILE_KEYS.map((key) => [key, sections[key] ?? []])) as ProfileData
  profile.account = [accountOf(found.expert, audience)]
  return profile
}

/**
 * The profile read as served to `audience`: the stored document when it is current (one query),
 * otherwise built by `readProfile`, serialized by `serialize` (the route's response serializer) and
 * stored. An expert the audience may not see is a 404.
 */
export async function profileDocument(
  db: Queryable,
  orgId: number,
  username: string,
  type: ProfileType,
  audience: Audience,
  serialize: (profile: ProfileData) => string | Buffer | ArrayBuffer,
): Promise<ReadDocument> {
  const [found] = await findExpertDocument(db, orgId, username, type, audience)
  if (!found) throw profileNotFound(type, username)
  return currentDocument(db, 'expert', orgId, audience, found, async () =>
    serialize(await readProfile(db, orgId, username, type, audience)),
  )
}
