import { type Static, Type } from 'typebox'
import type { Queryable } from '../db/database.js'
import type { ExpertRow } from '../db/schema.js'
import { notFound } from '../http/errors.js'
import { findExpert } from './repository.js'

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

export const AccountElement = Type.Object({
  username: Type.String(),
  firstname: Type.String(),
  lastname: Type.String(),
  job_title: Type.String(),
  email: Type.String(),
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
})

const AvatarRendition = Type.Object({
  url: Type.Optional(Type.String()),
  width: Type.Optional(Type.Integer()),
  height: Type.Optional(Type.Integer()),
})

/** Elements of the sections other than `account` (their shapes: CONTRACT section 5). */
const SectionElement = Type.Object({}, { additionalProperties: true })

export const Profile = Type.Object(
  Object.fromEntries(
    PROFILE_KEYS.map((key) => [
      key,
      key === 'account'
        ? Type.Array(AccountElement)
        : key === 'avatar'
          ? Type.Object({ s: AvatarRendition, m: AvatarRendition, o: AvatarRendition, l: AvatarRendition })
          : Type.Array(SectionElement),
    ]),
  ),
)

export type ProfileData = Record<(typeof PROFILE_KEYS)[number], unknown>
type Account = Static<typeof AccountElement>

export function accountOf(expert: ExpertRow): Account {
  return {
    username: expert.username,
    firstname: expert.firstname,
    lastname: expert.lastname,
    job_title: expert.job_title,
    email: expert.email,
    company: expert.company,
    department: expert.department,
    phone_number: expert.phone_number,
    phone_number_extension: expert.phone_number_extension,
    location_city: expert.location_city,
    location_state: expert.location_state,
    location_country: expert.location_country,
    location_postal: expert.location_postal,
    location_address: expert.location_address,
    location_building: expert.location_building,
    location_room: expert.location_room,
    corporation_id: expert.org_id,
    is_published: expert.is_published,
    is_private: expert.is_private,
  }
}

/** The profile read result: every key present, empty sections as `[]`, an empty avatar as four `{}`. */
export async function readProfile(db: Queryable, orgId: number, username: string): Promise<ProfileData> {
  const expert = await findExpert(db, orgId, username)
  if (!expert) throw notFound(`Expert ${username}`)
  const profile = Object.fromEntries(PROFILE_KEYS.map((key) => [key, []])) as unknown as ProfileData
  profile.avatar = { s: {}, m: {}, o: {}, l: {} }
  profile.account = [accountOf(expert)]
  return profile
}
