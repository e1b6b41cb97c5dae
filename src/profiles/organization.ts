import { type Static, type TSchema, Type } from 'typebox'
import type { Queryable } from '../db/database.js'
import { profileChanged } from '../derived/changes.js'
import { notFound } from '../errors.js'
import { Clearable, LongText, ShortText, Url } from '../validation/fields.js'
import { normalizeLocation } from '../validation/location.js'
import { CountryCode, StateCode } from '../validation/text.js'
import {
  findOrganizationProfile,
  ORGANIZATION_PROFILE_COLUMNS,
  type OrganizationProfile,
  type OrganizationProfileColumns,
  saveOrganizationProfile,
  updateOrganizationName,
} from './repository.js'

const SUBDIVISION = { country: 'location_country', state: 'location_state' }

/** The organization's public profile fields, each optional and clearable (`null`, or `""`). */
export const ORGANIZATION_FIELDS: Record<(typeof ORGANIZATION_PROFILE_COLUMNS)[number], TSchema> = {
  description: LongText('Description', 20_000),
  website: Url('Website'),
  location_city: ShortText('City'),
  location_state: StateCode('State/province'),
  location_country: CountryCode('Country'),
  location_postal: ShortText('ZIP/postal code', 16),
  location_address: ShortText('Address'),
  location_building: ShortText('Building'),
  location_room: ShortText('Room'),
  twitter: Url('X / Twitter'),
  facebook: Url('Facebook'),
  linkedin: Url('LinkedIn'),
  instagram: Url('Instagram'),
  youtube: Url('YouTube'),
}

export const OrganizationUpdate = Type.Object(
  {
    name: Type.Optional(ShortText('Organization name')),
    ...Object.fromEntries(
      Object.entries(ORGANIZATION_FIELDS).map(([name, schema]) => [name, Clearable(schema)]),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    'x-message': 'must contain at least one field to update',
    'x-subdivision': SUBDIVISION,
    title: 'OrganizationUpdate',
  },
)

export type OrganizationUpdateInput = Static<typeof OrganizationUpdate> & { name?: string }

export const OrganizationRead = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    ...Object.fromEntries(
      ORGANIZATION_PROFILE_COLUMNS.map((column) => [column, Type.Union([Type.String(), Type.Null()])]),
    ),
  },
  { title: 'OrganizationProfile' },
)

export async function readOrganization(db: Queryable, orgId: number): Promise<OrganizationProfile> {
  const profile = await findOrganizationProfile(db, orgId)
  if (!profile) throw notFound(`Organization ${orgId}`)
  return profile
}

/**
 * Sets the given fields of the organization's profile ("" or null clears one), in the caller's
 * transaction; every expert of the organization shows it, so every profile changed. Returns whether
 * anything changed.
 */
export async function setOrganizationProfile(
  trx: Queryable,
  orgId: number,
  input: OrganizationUpdateInput,
  now: number,
): Promise<boolean> {
  const stored = await readOrganization(trx, orgId)
  const { name, ...fields } = input
  const values: Record<string, string | null> = {}
  for (const [field, value] of Object.entries(fields)) {
    if (value !== undefined) values[field] = value === '' ? null : (value as string | null)
  }
  Object.assign(values, normalizeLocation(values, stored))
  const changes = Object.fromEntries(
    Object.entries(values).filter(([field, value]) => stored[field as keyof OrganizationProfile] !== value),
  ) as Partial<OrganizationProfileColumns>
  const renamed = name !== undefined && name !== stored.name
  if (!renamed && Object.keys(changes).length === 0) return false
  if (renamed) await updateOrganizationName(trx, orgId, name)
  await saveOrganizationProfile(trx, orgId, changes)
  await profileChanged(trx, orgId, 'all', now)
  return true
}
