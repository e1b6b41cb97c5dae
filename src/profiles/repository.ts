import type { Selectable } from 'kysely'
import { inChunks, insertInChunks } from '../db/chunks.js'
import type { Queryable } from '../db/database.js'
import { reusableQuery } from '../db/reusable-query.js'
import type { ExpertRow, OrganizationProfilesTable, ProfileItemsTable, ProfileType } from '../db/schema.js'
import type { SectionName } from '../db/sections.js'

/** Profile queries: section items, the organization's public profile, the experts' `updated_at`. */

/** The organization's public profile (the `corporationprofile` / `corporationsocial` sections). */
export const ORGANIZATION_PROFILE_COLUMNS = [
  'description',
  'website',
  'location_city',
  'location_state',
  'location_country',
  'location_postal',
  'location_address',
  'location_building',
  'location_room',
  'twitter',
  'facebook',
  'linkedin',
  'instagram',
  'youtube',
] as const

/** The organization's public directory settings (CONTRACT §18): not part of the expert profile. */
export const DIRECTORY_COLUMNS = [
  'public_directory',
  'logo_url',
  'brand_color',
  'accent_color',
  'directory_inquiry_kinds',
] as const

export type OrganizationProfileColumns = Pick<
  OrganizationProfilesTable,
  (typeof ORGANIZATION_PROFILE_COLUMNS)[number]
>
export interface DirectoryColumns {
  public_directory: number
  logo_url: string | null
  brand_color: string | null
  accent_color: string | null
  directory_inquiry_kinds: string | null
}
export type OrganizationProfile = OrganizationProfileColumns & { id: number; name: string }
export type OrganizationRecord = OrganizationProfile & DirectoryColumns

const expertWithOrganization = reusableQuery(
  (db: Queryable, orgId: number, username: string, type: ProfileType) =>
    db
      .selectFrom('experts')
      .innerJoin('organizations', 'organizations.id', 'experts.org_id')
      .leftJoin('organization_profiles', 'organization_profiles.org_id', 'experts.org_id')
      .selectAll('experts')
      .select(['organizations.name as org_name'])
      .select(
        ORGANIZATION_PROFILE_COLUMNS.map(
          (column) => `organization_profiles.${column} as org_${column}` as const,
        ),
      )
      .where('experts.org_id', '=', orgId)
      .where('experts.username', '=', username)
      .where('experts.type', '=', type),
)

/** The expert (or staff member: `type`) with its organization's public profile, in one query. */
export async function findExpertWithOrganization(
  db: Queryable,
  orgId: number,
  username: string,
  type: ProfileType,
): Promise<{ expert: ExpertRow; organization: OrganizationProfile } | undefined> {
  const [row] = await expertWithOrganization(db, orgId, username, type)
  if (!row) return undefined
  const {
    org_name,
    org_description,
    org_website,
    org_location_city,
    org_location_state,
    org_location_country,
    org_location_postal,
    org_location_address,
    org_location_building,
    org_location_room,
    org_twitter,
    org_facebook,
    org_linkedin,
    org_instagram,
    org_youtube,
    ...expert
  } = row
  const organization: OrganizationProfile = {
    id: orgId,
    name: org_name,
    description: org_description,
    website: org_website,
    location_city: org_location_city,
    location_state: org_location_state,
    location_country: org_location_country,
    location_postal: org_location_postal,
    location_address: org_location_address,
    location_building: org_location_building,
    location_room: org_location_room,
    twitter: org_twitter,
    facebook: org_facebook,
    linkedin: org_linkedin,
    instagram: org_instagram,
    youtube: org_youtube,
  }
  return { expert, organization }
}

/** The organization's public profile and directory settings (a missing profile row reads as all unset). */
export async function findOrganizationProfile(
  db: Queryable,
  orgId: number,
): Promise<OrganizationRecord | undefined> {
  const row = await db
    .selectFrom('organizations')
    .leftJoin('organization_profiles', 'organization_profiles.org_id', 'organizations.id')
    .select(['organizations.id', 'organizations.name'])
    .select(ORGANIZATION_PROFILE_COLUMNS.map((column) => `organization_profiles.${column}` as const))
    .select(DIRECTORY_COLUMNS.map((column) => `organization_profiles.${column}` as const))
    .where('organizations.id', '=', orgId)
    .executeTakeFirst()
  return row && { ...row, public_directory: Number(row.public_directory ?? 0) }
}

export async function updateOrganizationName(db: Queryable, orgId: number, name: string): Promise<void> {
  await db.updateTable('organizations').set({ name }).where('id', '=', orgId).execute()
}

export async function saveOrganizationProfile(
  db: Queryable,
  orgId: number,
  values: Partial<OrganizationProfileColumns & DirectoryColumns>,
): Promise<void> {
  if (Object.keys(values).length === 0) return
  await db
    .insertInto('organization_profiles')
    .values({ org_id: orgId, ...values })
    .onConflict((conflict) => conflict.column('org_id').doUpdateSet(values))
    .execute()
}

export type ProfileItemRow = Pick<
  Selectable<ProfileItemsTable>,
  'id' | 'section' | 'position' | 'external_key' | 'data'
>

export const listProfileItems: (db: Queryable, orgId: number, expertId: number) => Promise<ProfileItemRow[]> =
  reusableQuery((db: Queryable, orgId: number, expertId: number) =>
    db
      .selectFrom('profile_items')
      .select(['id', 'section', 'position', 'external_key', 'data'])
      .where('org_id', '=', orgId)
      .where('expert_id', '=', expertId)
      .orderBy('section')
      .orderBy('position')
      .orderBy('id'),
  )

/** The items of some sections of one expert, in served order. */
export async function listSectionItems(
  db: Queryable,
  orgId: number,
  expertId: number,
  sections: readonly SectionName[],
): Promise<ProfileItemRow[]> {
  if (sections.length === 0) return []
  return db
    .selectFrom('profile_items')
    .select(['id', 'section', 'position', 'external_key', 'data'])
    .where('org_id', '=', orgId)
    .where('expert_id', '=', expertId)
    .where('section', 'in', sections)
    .orderBy('section')
    .orderBy('position')
    .orderBy('id')
    .execute()
}

/** The items of `sections` of several experts, each expert's in section and position order. */
export async function listSectionItemsOfExperts(
  db: Queryable,
  orgId: number,
  expertIds: readonly number[],
  sections: readonly SectionName[],
): Promise<(ProfileItemRow & { expert_id: number })[]> {
  if (sections.length === 0) return []
  return inChunks(expertIds, (chunk) =>
    db
      .selectFrom('profile_items')
      .select(['id', 'expert_id', 'section', 'position', 'external_key', 'data'])
      .where('org_id', '=', orgId)
      .where('expert_id', 'in', chunk)
      .where('section', 'in', sections)
      .orderBy('expert_id')
      .orderBy('section')
      .orderBy('position')
      .orderBy('id')
      .execute(),
  )
}

/** Inserts many items (of any experts), in the statements of `insertChunks`. */
export async function insertProfileItems(
  db: Queryable,
  orgId: number,
  items: readonly (Omit<ProfileItemRow, 'id'> & { expert_id: number })[],
): Promise<void> {
  await insertInChunks(
    db,
    items.map((item) => ({ org_id: orgId, ...item })),
    (chunk) => db.insertInto('profile_items').values(chunk).execute(),
  )
}

export async function insertProfileItem(
  db: Queryable,
  orgId: number,
  expertId: number,
  /** With an `id`: an element a restore brings back under the id it had (src/profiles/sections.ts). */
  item: Omit<ProfileItemRow, 'id'> & { id?: number },
): Promise<number> {
  const { id } = await db
    .insertInto('profile_items')
    .values({ org_id: orgId, expert_id: expertId, ...item })
    .returning('id')
    .executeTakeFirstOrThrow()
  return id
}

export async function updateProfileItem(
  db: Queryable,
  orgId: number,
  id: number,
  changes: Partial<Pick<ProfileItemRow, 'position' | 'data'>>,
): Promise<void> {
  await db
    .updateTable('profile_items')
    .set(changes)
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .execute()
}

export async function deleteProfileItems(
  db: Queryable,
  orgId: number,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return
  await db.deleteFrom('profile_items').where('org_id', '=', orgId).where('id', 'in', ids).execute()
}
