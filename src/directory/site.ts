import { sql } from 'kysely'
import type { Queryable } from '../db/database.js'
import type { ReadConnection } from '../db/read-connection.js'
import { reusableQuery } from '../db/reusable-query.js'
import { type InquiryKind, KIND_NAMES } from '../inquiries/kinds.js'
import { DEFAULT_NOTIFICATION, type KindNotification } from '../inquiries/notifications.js'
import { directoryKinds } from '../profiles/organization.js'

/** An organization whose public directory is on, as its pages show it. */
export interface DirectorySite {
  id: number
  name: string
  /** The organization's `profile_version`: every change of its profile or directory settings raises it. */
  version: number
  description: string | null
  website: string | null
  logoUrl: string | null
  brandColor: string | null
  accentColor: string | null
  /** The inquiry kinds its contact form offers, the first being the form on the expert page. */
  kinds: string[]
  /**
   * Who is emailed about each kind (the notification settings, src/inquiries/notifications.ts), packed
   * as `notificationMask` packs it: part of the pages' keys, since the contact form says who receives a
   * message. Read in the directory's own statement, so a page view stays one statement.
   */
  notifications: number
}

/** Bits per kind in `DirectorySite.notifications`: saved, expert, assistant, desk, desk has addresses. */
const BITS = 5

/**
 * The notification settings of every kind as one integer (a sum over the organization's rows, so
 * one scalar subquery on both databases): kind i's five bits sit at 32^i. 9 kinds use 45 bits.
 */
const notificationMask = sql<
  number | string | null
>`(select sum((1 + n.expert * 2 + n.assistant * 4 + n.desk * 8
  + case when n.recipients <> '[]' then 16 else 0 end) * case n.kind ${sql.join(
    KIND_NAMES.map((kind, i) => sql`when ${sql.lit(kind)} then ${sql.lit(2 ** (BITS * i))}`),
    sql` `,
  )} else 0 end) from inquiry_notifications n where n.org_id = organizations.id)`

/**
 * One kind's notification settings as the directory knows them: whether the desk has addresses
 * stands for its list (the pages only say whether the desk is emailed).
 */
export function notificationOf(site: DirectorySite, kind: InquiryKind): KindNotification {
  const bits = Math.floor(site.notifications / 2 ** (BITS * KIND_NAMES.indexOf(kind))) % 2 ** BITS
  if ((bits & 1) === 0) return { ...DEFAULT_NOTIFICATION }
  return {
    expert: (bits >> 1) & 1,
    assistant: (bits >> 2) & 1,
    desk: (bits >> 3) & 1,
    recipients: (bits >> 4) & 1 ? ['desk'] : [],
  }
}

function enabledDirectories(db: Queryable) {
  return db
    .selectFrom('organizations')
    .innerJoin('organization_profiles', 'organization_profiles.org_id', 'organizations.id')
    .where('organization_profiles.public_directory', '=', 1)
}

/** The organization's directory when it is on, with what its pages show (src/directory/views.ts joins more to it). */
export function selectDirectory(db: Queryable, orgId: number) {
  return enabledDirectories(db)
    .select([
      'organizations.id',
      'organizations.name',
      'organizations.profile_version',
      'organization_profiles.description',
      'organization_profiles.website',
      'organization_profiles.logo_url',
      'organization_profiles.brand_color',
      'organization_profiles.accent_color',
      'organization_profiles.directory_inquiry_kinds',
      notificationMask.as('notification_mask'),
    ])
    .where('organizations.id', '=', orgId)
}

const directoryRow = reusableQuery(selectDirectory, 'directory_site')

type DirectoryRow = Awaited<ReturnType<typeof directoryRow>>[number]

export function siteOf(row: DirectoryRow): DirectorySite {
  return {
    id: Number(row.id),
    name: row.name,
    version: Number(row.profile_version),
    description: row.description,
    website: row.website,
    logoUrl: row.logo_url,
    brandColor: row.brand_color,
    accentColor: row.accent_color,
    kinds: directoryKinds(row.directory_inquiry_kinds),
    notifications: Number(row.notification_mask ?? 0),
  }
}

/** The organization's directory when it is switched on; undefined for an unknown organization or one without. */
export async function findDirectory(db: Queryable, orgId: number): Promise<DirectorySite | undefined> {
  const [row] = await directoryRow(db, orgId)
  return row && siteOf(row)
}

/** `findDirectory` on SQLite's read connection, synchronously (src/db/read-connection.ts). */
export function findDirectoryOn(
  reads: ReadConnection,
  db: Queryable,
  orgId: number,
): DirectorySite | undefined {
  const [row] = directoryRow.readOn(reads, db, orgId)
  return row && siteOf(row)
}

/** The ids of every organization whose directory is on (robots.txt names their sitemaps). */
export async function listDirectoryIds(db: Queryable): Promise<number[]> {
  const rows = await enabledDirectories(db).select('organizations.id').orderBy('organizations.id').execute()
  return rows.map((row) => Number(row.id))
}
