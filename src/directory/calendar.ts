import type { Queryable } from '../db/database.js'
import { parseItemData } from '../db/item-data.js'
import { ofOrganization } from '../derived/search-index.js'
import { interviewLanguagesOf } from '../validation/media.js'
import { languageName, zoneName } from './media-view.js'

/**
 * The media desk's calendars (CONTRACT §22), as iCalendar (RFC 5545) written by `ical-generator`:
 * `/directory/:corporation/calendar.ics` holds the availability of every public, published expert who is
 * available for media; `/directory/:corporation/:username/calendar.ics` one expert's availability and
 * its dated media and event appearances.
 *
 * - An availability with an end is one event from when the expert became available to its end (UTC).
 *   One without an end is an all-day event repeated daily from that day: available every day from then on.
 * - An appearance is an all-day event on its date (the sections store a day, as unix seconds at midnight
 *   UTC); its URL and details go with it.
 * - Every value is stored data: `DTSTAMP` is the expert's last change, UIDs are the records' ids, so the
 *   same data gives the same bytes, and the ETag (a hash of them) changes only with the data.
 */

/** At most this many experts in an organization's calendar (the earliest ends first). */
export const CALENDAR_EXPERTS = 2_000

interface ExpertRow {
  id: number
  username: string
  firstname: string
  lastname: string
  updated_at: number
  media_available: number
  media_available_since: number | null
  media_available_until: number | null
  interview_languages: string
  remote_ready: number
  studio_ready: number
  time_zone: string | null
}

/** A dated appearance of an expert (a `mediaappearance` or `eventappearance` element). */
interface Appearance {
  id: number
  section: 'mediaappearance' | 'eventappearance'
  title: string
  date: number
  url: string | null
  details: string | null
  location: string | null
}

export interface CalendarScope {
  /** The calendar's name ("Example University: experts available for media"). */
  name: string
  /** The host the UIDs are unique under. */
  host: string
  /** An expert's page. */
  expertUrl: (username: string) => string
}

const COLUMNS = [
  'id',
  'username',
  'firstname',
  'lastname',
  'updated_at',
  'media_available',
  'media_available_since',
  'media_available_until',
  'interview_languages',
  'remote_ready',
  'studio_ready',
  'time_zone',
] as const

/** The organization's public, published experts available for media, the earliest end first. */
export async function availableExperts(db: Queryable, orgId: number): Promise<ExpertRow[]> {
  const rows = await db
    .selectFrom('experts')
    .select([...COLUMNS])
    .where('org_id', '=', orgId)
    .where('type', '=', 'expert')
    .where('is_published', '=', 1)
    .where('is_private', '=', 0)
    .where('media_available', '=', 1)
    .orderBy('media_available_until')
    .orderBy('id')
    .limit(CALENDAR_EXPERTS)
    .execute()
  return rows.map(numbers)
}

/** One expert's row (found visible by the page's lookup) and its dated appearances. */
export async function expertCalendarData(
  db: Queryable,
  orgId: number,
  expertId: number,
): Promise<{ expert: ExpertRow; appearances: Appearance[] } | undefined> {
  const [row, items] = await Promise.all([
    db
      .selectFrom('experts')
      .select([...COLUMNS])
      .where('org_id', '=', orgId)
      .where('id', '=', expertId)
      .executeTakeFirst(),
    db
      .selectFrom('profile_items')
      .select(['id', 'section', 'data'])
      .where(ofOrganization('org_id', orgId))
      .where('expert_id', '=', expertId)
      .where('section', 'in', ['mediaappearance', 'eventappearance'])
      .orderBy('section')
      .orderBy('position')
      .execute(),
  ])
  if (!row) return undefined
  const appearances: Appearance[] = []
  for (const item of items) {
    const data = parseItemData(item.data)
    const text = (key: string) => {
      const value = data[key]
      return typeof value === 'string' && value.trim() !== '' ? value.trim() : null
    }
    if (typeof data.date !== 'number') continue
    const section = item.section === 'eventappearance' ? 'eventappearance' : 'mediaappearance'
    appearances.push({
      id: Number(item.id),
      section,
      title:
        section === 'eventappearance'
          ? [text('title'), text('event_name')].filter(Boolean).join(', ')
          : [text('title'), text('organization')].filter(Boolean).join(', '),
      date: data.date,
      url: text('url'),
      details: text('details'),
      location: text('location'),
    })
  }
  return { expert: numbers(row), appearances }
}

/** The expert's last change, unix seconds (a media kit's file times). */
export async function expertModified(db: Queryable, orgId: number, expertId: number): Promise<number> {
  const row = await db
    .selectFrom('experts')
    .select('updated_at')
    .where('org_id', '=', orgId)
    .where('id', '=', expertId)
    .executeTakeFirst()
  return Math.floor(Number(row?.updated_at ?? 0) / 1000)
}

/** PostgreSQL's bigint columns may come back as strings. */
function numbers(row: ExpertRow): ExpertRow {
  const optional = (value: number | null) => (value === null ? null : Number(value))
  return {
    ...row,
    id: Number(row.id),
    updated_at: Number(row.updated_at),
    media_available_since: optional(row.media_available_since),
    media_available_until: optional(row.media_available_until),
  }
}

const fullName = (expert: ExpertRow) => `${expert.firstname} ${expert.lastname}`.trim()

/** The lines an availability event's description gives: languages, ways, time zone, profile. */
function availabilityDescription(expert: ExpertRow, url: string): string {
  const languages = interviewLanguagesOf(expert.interview_languages).map(languageName)
  const ways = [expert.remote_ready ? 'remote' : '', expert.studio_ready ? 'in a studio' : ''].filter(Boolean)
  return [
    `${fullName(expert)} is available for media interviews.`,
    languages.length > 0 ? `Interview languages: ${languages.join(', ')}.` : '',
    ways.length > 0 ? `Interviews: ${ways.join(' or ')}.` : '',
    expert.time_zone ? `Local time zone: ${zoneName(expert.time_zone)} (${expert.time_zone}).` : '',
    `Profile: ${url}`,
  ]
    .filter(Boolean)
    .join('\n')
}

/** The UTC day of `ms`, at its midnight: ical-generator writes an all-day date (no zone) from the UTC parts. */
const day = (ms: number) => new Date(ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000))

/** The calendar of `experts` (their availability) and of `appearances` (one expert's). */
export async function calendarIcs(
  scope: CalendarScope,
  experts: readonly ExpertRow[],
  appearances: readonly { expert: ExpertRow; appearance: Appearance }[] = [],
): Promise<string> {
  // Loaded with the first calendar: a process that serves none never holds it (docs/performance.md, "Idle memory").
  const { default: ical, ICalEventRepeatingFreq } = await import('ical-generator')
  const calendar = ical({
    name: scope.name,
    prodId: { company: 'expertdir', product: 'media-calendar', language: 'EN' },
  })
  for (const expert of experts) {
    if (expert.media_available !== 1) continue
    const url = scope.expertUrl(expert.username)
    const since = expert.media_available_since ?? expert.updated_at
    const until = expert.media_available_until
    const common = {
      id: `availability-${expert.id}-${since}@${scope.host}`,
      stamp: new Date(expert.updated_at),
      summary: `${fullName(expert)}: available for media`,
      description: availabilityDescription(expert, url),
      url,
    }
    if (until !== null && until > since)
      calendar.createEvent({ ...common, start: new Date(since), end: new Date(until) })
    else
      calendar.createEvent({
        ...common,
        start: day(since),
        allDay: true,
        repeating: { freq: ICalEventRepeatingFreq.DAILY },
      })
  }
  for (const { expert, appearance } of appearances) {
    const what = appearance.section === 'eventappearance' ? 'event' : 'media appearance'
    calendar.createEvent({
      id: `${appearance.section}-${appearance.id}@${scope.host}`,
      stamp: new Date(expert.updated_at),
      start: day(appearance.date * 1000),
      allDay: true,
      summary: `${fullName(expert)}: ${appearance.title || what}`,
      description: [appearance.details, `Profile: ${scope.expertUrl(expert.username)}`]
        .filter(Boolean)
        .join('\n'),
      ...(appearance.url ? { url: appearance.url } : {}),
      ...(appearance.location ? { location: appearance.location } : {}),
    })
  }
  return calendar.toString()
}
