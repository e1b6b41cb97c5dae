import type { Queryable } from '../db/database.js'
import { isSectionName, type SectionName } from '../db/sections.js'
import { type ActorKind, parseActorReference } from './actor.js'

/**
 * What the audit log says of an entry to a person: who by name, what as a sentence ("Changed the
 * biography of Ada Okafor"), and the record a reader would open for it. Entries store ids and the route
 * or command (log.ts); this turns them into words when the log is read, so a name shown is today's
 * name, and a record deleted since is named by the id it had.
 */

/** How the sections are named in a sentence: "Changed the {noun} of Ada Okafor". */
const SECTION_NOUNS: Record<SectionName, string> = {
  accomplishment: 'accomplishments',
  affiliation: 'affiliations',
  assessment: 'assessments',
  article: 'articles',
  audio: 'audio recordings',
  availability: 'availability',
  biography: 'biography',
  book: 'books',
  category: 'categories',
  course: 'courses',
  cv: 'CV',
  document: 'documents',
  education: 'education',
  eventappearance: 'event appearances',
  fee: 'fees',
  industry: 'industries',
  language: 'languages',
  link: 'links',
  mediaappearance: 'media appearances',
  patent: 'patents',
  partnership: 'partnerships',
  photo: 'photos',
  podchaser: 'podcasts',
  profiletype: 'profile types',
  researchfocus: 'research focus',
  researchgrant: 'research grants',
  sampletalk: 'sample talks',
  seo: 'search engine details',
  social: 'social media links',
  slideshare: 'slide decks',
  tag: 'tags',
  tagline: 'tagline',
  testimonial: 'testimonials',
  topic: 'topics',
  video: 'videos',
  vimeo: 'Vimeo videos',
  youtube: 'YouTube videos',
  avatar: 'photo',
}

/** Sections of one element, which a `POST` writes in place (src/profiles/section-fields.ts `SINGLE_SECTIONS`). */
const SINGLE: ReadonlySet<string> = new Set([
  'biography',
  'tagline',
  'availability',
  'fee',
  'social',
  'seo',
  'cv',
])

/** What a write did, from its route's method or its command's verb. */
type Operation = 'create' | 'change' | 'delete' | 'read'

const COMMAND_OPERATIONS: Record<string, Operation> = {
  add: 'create',
  create: 'create',
  import: 'create',
  '--demo': 'create',
  set: 'change',
  remove: 'delete',
  revoke: 'delete',
  clear: 'delete',
  erase: 'delete',
  export: 'read',
  delegate: 'create',
  undelegate: 'delete',
}

function operationOf(action: string): Operation {
  const [first = '', ...rest] = action.split(' ')
  if (first === 'POST') return 'create'
  if (first === 'PUT' || first === 'PATCH') return 'change'
  if (first === 'DELETE') return 'delete'
  if (first === 'GET') return 'read'
  return COMMAND_OPERATIONS[rest.at(-1) ?? ''] ?? COMMAND_OPERATIONS[rest[0] ?? ''] ?? 'change'
}

/** The record a reader opens for an entry: an expert's profile for a change to one of its sections. */
export interface AuditSubject {
  kind: 'expert' | 'staff' | 'spotlight' | 'question' | 'inquiry' | 'person' | 'client'
  id: string
}

/** An entry in words. */
export interface DescribedEntry {
  /** "Changed the biography of Ada Okafor". */
  summary: string
  /**
   * The person's name or the client's label (for the schedule: of who set it); null for the command line
   * and the service.
   */
  actorName: string | null
  /** The name of the profile a delegate acted on, when the entry names one. */
  onBehalfOfName: string | null
  /** The record's name as the entry shows it ("Ada Okafor", a post's title); null when it has none. */
  label: string | null
  subject: AuditSubject | null
}

/** The names the entries of one page refer to, looked up once per page. */
export interface AuditNames {
  people: ReadonlyMap<string, string>
  clients: ReadonlyMap<string, string>
  /** By the username the entry names (today's, or one it had before a rename). */
  profiles: ReadonlyMap<string, { name: string; type: 'expert' | 'staff' }>
  posts: ReadonlyMap<string, string>
  questions: ReadonlyMap<string, string>
}

/** What an entry needs from the row: who, what, which record. */
export interface EntryFacts {
  actor: { kind: ActorKind; id: string | null }
  action: string
  record: { kind: string; id: string | null }
  /** The username of the profile a delegate acted on through its grant. */
  onBehalfOf?: string | null
}

/** The username a profile-related record names: `ada-okafor`, `ada-okafor/education/12`. */
function usernameOf(record: EntryFacts['record']): string | undefined {
  if (record.id === null) return undefined
  if (record.kind === 'expert' || record.kind === 'staff' || record.kind === 'avatar') return record.id
  if (record.kind === 'section' || record.kind === 'delegate') return record.id.split('/')[0]
  return undefined
}

const firstOf = (id: string | null) => (id === null ? undefined : id.split('/')[0])

const shortened = (text: string) => (text.length > 80 ? `${text.slice(0, 79).trimEnd()}…` : text)

/** Looks up, for one page of entries, every name they refer to; every query is the organization's. */
export async function auditNames(
  db: Queryable,
  orgId: number,
  entries: readonly EntryFacts[],
): Promise<AuditNames> {
  const ids = (pick: (entry: EntryFacts) => string | undefined) => [
    ...new Set(entries.flatMap((entry) => pick(entry) ?? [])),
  ]
  const referred = (kind: 'person' | 'client') =>
    ids((entry) =>
      entry.record.kind === kind && entry.record.id !== null ? entry.record.id : undefined,
    ).concat(
      ids((entry) =>
        kind === 'person' && entry.record.kind === 'delegate' ? entry.record.id?.split('/')[1] : undefined,
      ),
      ids((entry) => (entry.actor.kind === kind && entry.actor.id !== null ? entry.actor.id : undefined)),
      ids((entry) => {
        const setBy = entry.actor.kind === 'schedule' ? parseActorReference(entry.actor.id) : undefined
        return setBy?.kind === kind ? setBy.id : undefined
      }),
    )
  const usernames = ids((entry) => usernameOf(entry.record)).concat(
    ids((entry) => entry.onBehalfOf ?? undefined),
  )
  const postIds = ids((entry) => (entry.record.kind === 'spotlight' ? firstOf(entry.record.id) : undefined))
  const questionIds = ids((entry) =>
    entry.record.kind === 'question' || entry.record.kind === 'answer' ? firstOf(entry.record.id) : undefined,
  )
  const numeric = (values: string[]) => values.filter((value) => /^[1-9][0-9]{0,15}$/.test(value)).map(Number)

  const people = [...new Set(numeric(referred('person')))]
  const clients = [...new Set(referred('client'))]
  const [personRows, clientRows, profileRows, renamedRows, postRows, questionRows] = await Promise.all([
    people.length === 0
      ? []
      : db
          .selectFrom('people')
          .select(['id', 'name', 'email'])
          .where('org_id', '=', orgId)
          .where('id', 'in', people)
          .execute(),
    clients.length === 0
      ? []
      : db
          .selectFrom('clients')
          .select(['client_id', 'label'])
          .where('org_id', '=', orgId)
          .where('client_id', 'in', clients)
          .execute(),
    usernames.length === 0
      ? []
      : db
          .selectFrom('experts')
          .select(['username', 'firstname', 'lastname', 'type'])
          .where('org_id', '=', orgId)
          .where('username', 'in', usernames)
          .execute(),
    usernames.length === 0
      ? []
      : db
          .selectFrom('username_redirects')
          .innerJoin('experts', 'experts.id', 'username_redirects.expert_id')
          .select([
            'username_redirects.username as username',
            'experts.firstname',
            'experts.lastname',
            'experts.type',
          ])
          .where('username_redirects.org_id', '=', orgId)
          .where('experts.org_id', '=', orgId)
          .where('username_redirects.username', 'in', usernames)
          .execute(),
    numeric(postIds).length === 0
      ? []
      : db
          .selectFrom('spotlights')
          .select(['id', 'title'])
          .where('org_id', '=', orgId)
          .where('id', 'in', numeric(postIds))
          .execute(),
    numeric(questionIds).length === 0
      ? []
      : db
          .selectFrom('questions')
          .select(['id', 'question'])
          .where('org_id', '=', orgId)
          .where('id', 'in', numeric(questionIds))
          .execute(),
  ])
  const profiles = new Map<string, { name: string; type: 'expert' | 'staff' }>()
  for (const row of [...renamedRows, ...profileRows])
    profiles.set(row.username, {
      name: `${row.firstname} ${row.lastname}`.trim(),
      type: row.type === 'staff' ? 'staff' : 'expert',
    })
  return {
    people: new Map(personRows.map((row) => [String(row.id), row.name || row.email])),
    clients: new Map(clientRows.map((row) => [row.client_id, row.label || row.client_id])),
    profiles,
    posts: new Map(postRows.map((row) => [String(row.id), shortened(row.title)])),
    questions: new Map(questionRows.map((row) => [String(row.id), shortened(row.question)])),
  }
}

/** The action of the expiry pass that ends an expert's media availability (src/experts/media-expiry.ts). */
export const MEDIA_AVAILABILITY_ENDED = 'media availability ended'

const quoted = (text: string) => `“${text}”`

/** The name of an actor: a person's (or a note that it was removed), a client's label; null otherwise. */
function nameOf(actor: { kind: string; id: string | null }, names: AuditNames): string | null {
  if (actor.id === null) return null
  if (actor.kind === 'person') return names.people.get(actor.id) ?? `Person ${actor.id} (removed)`
  if (actor.kind === 'client') return names.clients.get(actor.id) ?? actor.id
  return null
}

/** What a scheduled publish or unpublish did (`schedule publish`), in words; undefined for other actions. */
function scheduledSummary(action: string, what: string): string | undefined {
  if (action === 'schedule publish') return `Published ${what} as scheduled`
  if (action === 'schedule unpublish') return `Unpublished ${what} as scheduled`
  return undefined
}

/** The sentence and the record of one entry, with the names of its page. */
export function describeEntry(entry: EntryFacts, names: AuditNames): DescribedEntry {
  const operation = operationOf(entry.action)
  const setBy = entry.actor.kind === 'schedule' ? parseActorReference(entry.actor.id) : undefined
  const actorName = setBy ? nameOf(setBy, names) : nameOf(entry.actor, names)
  const onBehalfOfName = entry.onBehalfOf ? (names.profiles.get(entry.onBehalfOf)?.name ?? null) : null
  const { kind, id } = entry.record
  const described = (summary: string, label: string | null, subject: AuditSubject | null = null) => ({
    summary,
    actorName,
    onBehalfOfName,
    label,
    subject,
  })
  const verb = { create: 'Added', change: 'Changed', delete: 'Deleted', read: 'Read' }[operation]

  switch (kind) {
    case 'expert':
    case 'staff':
    case 'avatar':
    case 'section': {
      const username = usernameOf(entry.record) ?? ''
      const profile = names.profiles.get(username)
      const name = profile?.name ?? username
      const noun = profile?.type === 'staff' || kind === 'staff' ? 'staff member' : 'expert'
      const subject: AuditSubject | null = profile ? { kind: profile.type, id: username } : null
      if (kind === 'expert' || kind === 'staff') {
        const summary =
          entry.action === MEDIA_AVAILABILITY_ENDED
            ? `The media availability of ${name} ended`
            : (scheduledSummary(entry.action, name) ??
              (operation === 'create'
                ? `Added the ${noun} ${name}`
                : operation === 'delete'
                  ? `Deleted the ${noun} ${name}`
                  : `Changed the details of ${name}`))
        return described(summary, name, subject)
      }
      if (kind === 'avatar')
        return described(
          operation === 'delete' ? `Removed the photo of ${name}` : `Changed the photo of ${name}`,
          name,
          subject,
        )
      const [, section = '', element] = (id ?? '').split('/')
      const sectionNoun = isSectionName(section) ? SECTION_NOUNS[section] : section
      const summary = entry.action.endsWith('/order')
        ? `Reordered the ${sectionNoun} of ${name}`
        : operation === 'create' && !SINGLE.has(section)
          ? `Added to the ${sectionNoun} of ${name}`
          : operation === 'delete'
            ? SINGLE.has(section) || !element
              ? `Removed the ${sectionNoun} of ${name}`
              : `Removed an entry from the ${sectionNoun} of ${name}`
            : `Changed the ${sectionNoun} of ${name}`
      return described(summary, name, subject)
    }
    case 'delegate': {
      const [username = '', personId = ''] = (id ?? '').split('/')
      const profile = names.profiles.get(username)
      const name = profile?.name ?? username
      const person = names.people.get(personId) ?? `person ${personId} (removed)`
      return described(
        operation === 'delete'
          ? `Ended the rights of ${person} to edit the profile of ${name}`
          : `Let ${person} edit the profile of ${name} for a while`,
        name,
        profile ? { kind: profile.type, id: username } : null,
      )
    }
    case 'spotlight':
    case 'question': {
      const title = (kind === 'spotlight' ? names.posts : names.questions).get(id ?? '')
      const noun = kind === 'spotlight' ? 'post' : 'question'
      const label = title ?? `${noun} ${id ?? ''}`.trim()
      const what = `the ${noun} ${title ? quoted(title) : (id ?? '')}`.trim()
      const summary = scheduledSummary(entry.action, what) ?? `${verb === 'Added' ? 'Created' : verb} ${what}`
      return described(summary, label, title ? { kind, id: id ?? '' } : null)
    }
    case 'answer': {
      const questionId = firstOf(id) ?? ''
      const title = names.questions.get(questionId)
      const question = title ? quoted(title) : questionId
      const summary =
        operation === 'create'
          ? `Answered the question ${question}`
          : operation === 'delete'
            ? `Removed an answer to the question ${question}`
            : `Changed an answer to the question ${question}`
      return described(
        summary,
        title ?? `question ${questionId}`,
        title ? { kind: 'question', id: questionId } : null,
      )
    }
    case 'inquiry':
      return described(`Handled inquiry ${id ?? ''}`.trim(), `Inquiry ${id ?? ''}`.trim(), {
        kind: 'inquiry',
        id: id ?? '',
      })
    case 'person': {
      const name = names.people.get(id ?? '')
      const label = name ?? `person ${id ?? ''} (removed)`
      const summary =
        entry.action === 'sso sign-in'
          ? `Added ${label} at their first single sign-on`
          : entry.action.endsWith('/invitation')
            ? `Sent ${label} a new invitation`
            : operation === 'create'
              ? `Added ${label} as a person who signs in`
              : operation === 'delete'
                ? `Removed ${label}`
                : `Changed the role or details of ${label}`
      return described(summary, label, name ? { kind: 'person', id: id ?? '' } : null)
    }
    case 'client': {
      const label = names.clients.get(id ?? '') ?? id
      const summary =
        operation === 'create' ? `Created the API client ${label}` : `Revoked the API client ${label}`
      return described(summary, label, { kind: 'client', id: id ?? '' })
    }
    case 'organization':
      return described(
        entry.action.includes('--demo')
          ? 'Filled the organization with the demo content'
          : "Changed the organization's profile",
        null,
      )
    case 'file':
      return described('Uploaded a file', id)
    case 'import':
      return described(id ? `Imported the file ${id}` : 'Imported experts, posts and questions', id)
    case 'notification_settings':
      return described('Changed who is notified of inquiries', null)
    case 'privacy_request':
      return described(
        operation === 'read'
          ? "Exported a sender's inquiries"
          : "Erased a sender's personal data from the inquiries",
        null,
      )
    case 'webhook':
      return described(
        entry.action.endsWith('/webhook/test')
          ? 'Sent a test event to the webhook'
          : operation === 'delete'
            ? 'Removed the webhook'
            : 'Set the webhook',
        null,
      )
    case 'sso_settings':
      return described(
        operation === 'delete' ? 'Turned single sign-on off' : 'Changed the single sign-on settings',
        null,
      )
    case 'workflow':
      return described('Changed the editorial workflow settings', null)
    default:
      return described(`${verb} ${kind} ${id ?? ''}`.trim(), id)
  }
}
