import { type Static, type TSchema, Type } from 'typebox'
import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import { writeTransaction } from '../db/transactions.js'
import { profileChanged } from '../derived/changes.js'
import { bumpOrganizationVersion } from '../derived/read-documents.js'
import { notFound } from '../errors.js'
import { KIND_NAMES } from '../inquiries/kinds.js'
import { Clearable, LongText, ShortText, Url } from '../validation/fields.js'
import { propertyOf } from '../validation/guards.js'
import { normalizeLocation } from '../validation/location.js'
import { CountryCode, Flag, StateCode } from '../validation/text.js'
import {
  type DIRECTORY_COLUMNS,
  type DirectoryColumns,
  findOrganizationProfile,
  ORGANIZATION_PROFILE_COLUMNS,
  type OrganizationProfileColumns,
  type OrganizationRecord,
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

const Color = (description: string) =>
  Type.String({
    pattern: '^#[0-9a-fA-F]{6}$',
    title: description,
    description: `${description}: a hex colour such as #1d4ed8`,
    'x-message': 'must be a hex colour such as #1d4ed8',
  })

/** The inquiry kinds a directory contact form offers when the organization chose none. */
export const DEFAULT_DIRECTORY_KINDS = ['general', 'media'] as const

const DirectoryKinds = Type.Array(
  Type.Enum(KIND_NAMES, { 'x-message': `must be one of: ${KIND_NAMES.join(', ')}` }),
  {
    minItems: 1,
    maxItems: KIND_NAMES.length,
    uniqueItems: true,
    description: `Inquiry kinds the directory's contact form offers (default: ${DEFAULT_DIRECTORY_KINDS.join(', ')})`,
  },
)

/** The public directory's settings (CONTRACT §18): written with the profile, but shown on no expert profile. */
const DIRECTORY_FIELDS = {
  public_directory: Type.Optional(
    Flag('1: publish the directory pages under /directory/:corporation/ (published, public experts only)'),
  ),
  logo_url: Clearable(Url("Logo shown on the directory's pages")),
  brand_color: Clearable(Color("Main colour of the directory's pages")),
  accent_color: Clearable(Color("Accent colour of the directory's pages (links, buttons)")),
  directory_inquiry_kinds: Type.Optional(Type.Union([DirectoryKinds, Type.Null()])),
}

export const OrganizationUpdate = Type.Object(
  {
    name: Type.Optional(ShortText('Organization name')),
    ...Object.fromEntries(
      Object.entries(ORGANIZATION_FIELDS).map(([name, schema]) => [name, Clearable(schema)]),
    ),
    ...DIRECTORY_FIELDS,
  },
  {
    additionalProperties: false,
    minProperties: 1,
    'x-message': 'must contain at least one field to update',
    'x-subdivision': SUBDIVISION,
    title: 'OrganizationUpdate',
  },
)

export type OrganizationUpdateInput = Static<typeof OrganizationUpdate> & {
  name?: string
  public_directory?: number
  logo_url?: string | null
  brand_color?: string | null
  accent_color?: string | null
  directory_inquiry_kinds?: string[] | null
}

export const OrganizationRead = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    ...Object.fromEntries(
      ORGANIZATION_PROFILE_COLUMNS.map((column) => [column, Type.Union([Type.String(), Type.Null()])]),
    ),
    public_directory: Type.Integer({ enum: [0, 1] }),
    logo_url: Type.Union([Type.String(), Type.Null()]),
    brand_color: Type.Union([Type.String(), Type.Null()]),
    accent_color: Type.Union([Type.String(), Type.Null()]),
    directory_inquiry_kinds: Type.Array(Type.String()),
  },
  { title: 'OrganizationProfile' },
)

export type OrganizationView = Omit<OrganizationRecord, 'directory_inquiry_kinds'> & {
  directory_inquiry_kinds: string[]
}

/** The kinds of a stored `directory_inquiry_kinds` (the defaults when unset). */
export function directoryKinds(stored: string | null): string[] {
  return stored ? stored.split(' ') : [...DEFAULT_DIRECTORY_KINDS]
}

export async function readOrganization(db: Queryable, orgId: number): Promise<OrganizationView> {
  const profile = await findOrganizationProfile(db, orgId)
  if (!profile) throw notFound(`Organization ${orgId}`)
  return { ...profile, directory_inquiry_kinds: directoryKinds(profile.directory_inquiry_kinds) }
}

/** The directory settings `input` sets, as stored: "" clears to null, the kinds space-separated. */
function directoryValues(input: OrganizationUpdateInput): Partial<DirectoryColumns> {
  const values: Partial<DirectoryColumns> = {}
  if (input.public_directory !== undefined) values.public_directory = input.public_directory
  for (const column of ['logo_url', 'brand_color', 'accent_color'] as const) {
    const value = input[column]
    if (value !== undefined) values[column] = value === '' ? null : value
  }
  if (input.directory_inquiry_kinds !== undefined)
    values.directory_inquiry_kinds = input.directory_inquiry_kinds?.join(' ') ?? null
  return values
}

/** Sets the given fields of the organization's profile in its own transaction and records who did, when anything changed. */
export async function updateOrganizationProfile(
  { db, orgId, now, trail }: WriteContext,
  input: OrganizationUpdateInput,
): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    const changed = await setOrganizationProfile(trx, orgId, input, now)
    if (changed) await recordAudit(trx, orgId, trail, { kind: 'organization', id: orgId }, now)
    return changed
  })
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
  const stored = await findOrganizationProfile(trx, orgId)
  if (!stored) throw notFound(`Organization ${orgId}`)
  const { name } = input
  const values: Record<string, string | null> = {}
  for (const field of ORGANIZATION_PROFILE_COLUMNS) {
    const value = propertyOf(input, field)
    if (typeof value === 'string' || value === null) values[field] = value === '' ? null : value
  }
  Object.assign(values, normalizeLocation(values, stored))
  const changes = Object.fromEntries(
    Object.entries(values).filter(([field, value]) => stored[field as keyof OrganizationRecord] !== value),
  ) as Partial<OrganizationProfileColumns>
  const directory = Object.fromEntries(
    Object.entries(directoryValues(input)).filter(
      ([field, value]) => stored[field as (typeof DIRECTORY_COLUMNS)[number]] !== value,
    ),
  ) as Partial<DirectoryColumns>
  const renamed = name !== undefined && name !== stored.name
  const profileWritten = renamed || Object.keys(changes).length > 0
  if (!profileWritten && Object.keys(directory).length === 0) return false
  if (renamed) await updateOrganizationName(trx, orgId, name)
  await saveOrganizationProfile(trx, orgId, { ...changes, ...directory })
  // Expert profiles show the public profile; the directory settings only change the directory's pages,
  // which follow the organization's version.
  if (profileWritten) await profileChanged(trx, orgId, 'all', now)
  else await bumpOrganizationVersion(trx, orgId)
  return true
}
