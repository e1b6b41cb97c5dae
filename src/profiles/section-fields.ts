import { type TObject, type TSchema, Type } from 'typebox'
import { SECTION_NAMES, type SectionName } from '../db/sections.js'
import {
  Choice,
  Currency,
  Email,
  EmbedCode,
  Html,
  Key,
  LongText,
  NonNegative,
  ShortText,
  UnixSeconds,
  Url,
  Year,
} from '../validation/fields.js'
import { propertyOf } from '../validation/guards.js'
import { sanitizeEmbed, sanitizeHtml } from '../validation/html.js'
import { Flag } from '../validation/text.js'

/** A section field: its input schema and whether an element must have it. */
interface Field {
  schema: TSchema
  required: boolean
  /** Markup: what every write (API and import) stores instead of the value sent (src/validation/html.ts). */
  sanitize?: (value: string) => string
}

const req = (schema: TSchema): Field => ({ schema, required: true })
const opt = (schema: TSchema): Field => ({ schema, required: false })

const named = { name: req(ShortText('Name')) }
const flag = (what: string) => req(Flag(`Available as ${what}`))

/**
 * The stored profile sections and their element fields (the table in docs/api.md). `id` is added on read;
 * `tag` also gets its `content_tag_id`. Derived sections (account, *_all, corporation*, spotlight,
 * qanda) and the avatar are not here.
 */
export const SECTION_FIELDS = {
  accomplishment: {
    title: req(ShortText('Title')),
    description: opt(LongText('Description')),
    type: opt(
      Choice(
        [
          { const: 71, title: 'Professional' },
          { const: 73, title: 'Personal' },
        ],
        'Kind',
      ),
    ),
    start: opt(UnixSeconds('Start')),
    end: opt(UnixSeconds('End')),
  },
  affiliation: { name: req(ShortText('Name')), notes: opt(LongText('Notes')), link: opt(Url('Link')) },
  assessment: {
    title: req(ShortText('Title')),
    description: opt(LongText('Description')),
    url: opt(Url('URL')),
  },
  article: {
    title: req(ShortText('Title', 500)),
    publisher: opt(ShortText('Publisher')),
    authors: opt(ShortText('Authors', 1000)),
    details: opt(LongText('Details')),
    date: opt(UnixSeconds('Publication date')),
    url: opt(Url('URL')),
  },
  audio: {
    title: req(ShortText('Title', 500)),
    description: opt(LongText('Description')),
    url: req(Url('Audio URL')),
    duration: opt(NonNegative('Duration in seconds', true)),
  },
  availability: {
    availability_keynote: flag('keynote speaker'),
    availability_moderator: flag('moderator'),
    availability_panelist: flag('panelist'),
    availability_workshop: flag('workshop leader'),
    availability_host_mc: flag('host or MC'),
    availability_appearance: flag('guest appearance'),
    availability_corptraining: flag('corporate trainer'),
    availability_open: flag('anything else'),
  },
  biography: { biography: { ...req(Html('Biography', 50_000)), sanitize: sanitizeHtml } },
  book: {
    title: req(ShortText('Title', 500)),
    publisher: opt(ShortText('Publisher')),
    authors: opt(ShortText('Authors', 1000)),
    date: opt(UnixSeconds('Publication date')),
    url: opt(Url('URL')),
    isbn: opt(
      Type.String({
        pattern: '^[0-9Xx -]{10,17}$',
        description: 'ISBN-10 or ISBN-13',
        'x-message': 'must be an ISBN: 10 or 13 digits, dashes allowed',
      }),
    ),
    cover_url: opt(Url('Cover image')),
  },
  category: named,
  course: { title: req(ShortText('Title', 500)), details: opt(LongText('Details')), url: opt(Url('URL')) },
  cv: { url: req(Url('CV page')), document_url: opt(Url('CV document (PDF)')) },
  document: { title: req(ShortText('Title', 500)), url: req(Url('Document URL')) },
  education: {
    institution: req(ShortText('Institution')),
    degree: opt(ShortText('Degree')),
    major: opt(ShortText('Major')),
    description: opt(LongText('Description')),
    date: opt(Year('Year of graduation')),
  },
  eventappearance: {
    title: req(ShortText('Title', 500)),
    event_name: opt(ShortText('Event name')),
    location: opt(ShortText('Location')),
    date: opt(UnixSeconds('Date')),
    time_zone: opt(
      ShortText({ title: 'IANA time zone', description: 'IANA time zone, such as America/Toronto' }, 64),
    ),
    time: opt(
      Type.String({
        pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
        description: 'Local time HH:MM',
        'x-message': 'must be a time HH:MM',
      }),
    ),
  },
  fee: {
    fee_min: req(NonNegative('Lowest fee')),
    fee_max: opt(NonNegative('Highest fee')),
    currency: req(Currency('Currency')),
  },
  industry: named,
  language: named,
  link: { name: req(ShortText('Name')), url: req(Url('URL')) },
  mediaappearance: {
    title: req(ShortText('Title', 500)),
    organization: opt(ShortText('Media organization')),
    type: opt(
      Choice(
        [
          { const: 'print', title: 'Print' },
          { const: 'online', title: 'Online' },
          { const: 'tv', title: 'TV' },
          { const: 'radio', title: 'Radio' },
        ],
        'Medium',
      ),
    ),
    url: opt(Url('URL')),
    details: opt(LongText('Details')),
    date: opt(UnixSeconds('Date')),
    cover_url: opt(Url('Cover image')),
  },
  patent: {
    title: req(ShortText('Title', 500)),
    number: opt(ShortText('Patent number', 64)),
    detail: opt(LongText('Detail')),
    date: opt(UnixSeconds('Date granted')),
    url: opt(Url('URL')),
  },
  partnership: {
    title: req(ShortText('Title', 500)),
    individual: opt(ShortText('Partner (person)')),
    organization: opt(ShortText('Partner organization')),
    details: opt(LongText('Details')),
    date: opt(UnixSeconds('Date')),
    url: opt(Url('URL')),
  },
  photo: {
    title: opt(ShortText('Title', 500)),
    url: req(Url('Image URL')),
    thumbnail_url: opt(Url('Thumbnail')),
    alt: opt(ShortText('Alternative text', 500)),
  },
  podchaser: {
    title: req(ShortText('Title', 500)),
    description: opt(LongText('Description')),
    url: req(Url('Episode URL')),
    thumbnail_url: opt(Url('Thumbnail')),
  },
  profiletype: named,
  researchfocus: {
    title: req(ShortText('Title', 500)),
    subtitle: opt(ShortText('Subtitle', 500)),
    details: opt(LongText('Details')),
    date: opt(UnixSeconds('Date')),
    url: opt(Url('URL')),
    cover_url: opt(Url('Cover image')),
  },
  researchgrant: {
    title: req(ShortText('Title', 500)),
    organization: opt(ShortText('Funding organization')),
    details: opt(LongText('Details')),
    amount: opt(NonNegative('Amount')),
    currency: opt(Currency('Currency')),
    date: opt(UnixSeconds('Date awarded')),
    url: opt(Url('URL')),
  },
  sampletalk: { title: req(ShortText('Title', 500)), description: opt(LongText('Description')) },
  seo: {
    title: opt(ShortText('Page title', 500)),
    description: opt(LongText('Meta description', 1000)),
    keywords: opt(ShortText({ title: 'Keywords', description: 'Keywords, comma-separated' }, 1000)),
    image: opt(Url('Share image')),
    canonical_url: opt(Url('Canonical URL of the profile page')),
  },
  social: {
    twitter: opt(Url('X / Twitter')),
    facebook: opt(Url('Facebook')),
    linkedin: opt(Url('LinkedIn')),
    github: opt(Url('GitHub')),
    instagram: opt(Url('Instagram')),
    youtube: opt(Url('YouTube')),
    website: opt(Url('Website')),
  },
  slideshare: {
    title: req(ShortText('Title', 500)),
    description: opt(LongText('Description')),
    url: req(Url('URL')),
    embed: {
      ...opt(
        EmbedCode(
          {
            title: 'Embed code or an http(s) URL',
            description:
              'Embed code (HTML, sanitized: of iframes only the SlideShare, YouTube and Vimeo players over https are kept) or an http(s) URL',
          },
          5000,
        ),
      ),
      sanitize: sanitizeEmbed,
    },
    thumbnail_url: opt(Url('Thumbnail')),
  },
  tag: { tag: req(ShortText('Tag', 100)) },
  tagline: { tagline: req(ShortText('Tagline', 500)) },
  testimonial: {
    name: req(ShortText('Name')),
    title: opt(ShortText('Their title')),
    company: opt(ShortText('Their company')),
    email: opt(Email('Their email')),
    url: opt(Url('URL')),
    recommendation: req(LongText('Recommendation')),
    date: opt(UnixSeconds('Date')),
  },
  topic: named,
  video: { title: req(ShortText('Title', 500)), url: req(Url('Video URL')) },
  vimeo: {
    title: req(ShortText('Title', 500)),
    description: opt(LongText('Description')),
    url: req(Url('Vimeo URL')),
    external_id: opt(ShortText('Vimeo video id', 64)),
    thumbnail_url: opt(Url('Thumbnail')),
  },
  youtube: {
    title: req(ShortText('Title', 500)),
    description: opt(LongText('Description')),
    watch_page_url: req(Url('Watch page')),
    thumbnail_url: opt(Url('Thumbnail')),
    video_id: opt(ShortText('YouTube video id', 64)),
  },
} satisfies Record<Exclude<SectionName, 'avatar'>, Record<string, Field>>

/** A section written through its own routes: every section but the avatar. */
export type StoredSection = keyof typeof SECTION_FIELDS
export const STORED_SECTIONS = SECTION_NAMES.filter((name): name is StoredSection => name !== 'avatar')

/** The sections a staff member's profile has (CONTRACT §17); an expert has every stored section. */
export const STAFF_SECTIONS: readonly StoredSection[] = [
  'biography',
  'tagline',
  'link',
  'education',
  'language',
  'category',
  'tag',
]

/** Sections that hold at most one element. */
export const SINGLE_SECTIONS: ReadonlySet<string> = new Set<StoredSection>([
  'biography',
  'tagline',
  'availability',
  'fee',
  'social',
  'seo',
  'cv',
])

export function isStoredSection(name: string): name is StoredSection {
  return Object.hasOwn(SECTION_FIELDS, name)
}

function fieldsOf(section: StoredSection): Record<string, Field> {
  return SECTION_FIELDS[section]
}

/** Sets of names: one `name` each, unique per expert case-insensitively, no update. */
export const NAME_SECTIONS: ReadonlySet<string> = new Set<StoredSection>([
  'topic',
  'industry',
  'category',
  'tag',
  'profiletype',
])

/** The fields of a section that hold markup, with the sanitizer each is stored through. */
export function markupFields(section: StoredSection): ReadonlyMap<string, (value: string) => string> {
  const markup = new Map<string, (value: string) => string>()
  for (const [name, field] of Object.entries(fieldsOf(section)))
    if (field.sanitize) markup.set(name, field.sanitize)
  return markup
}

/** The most elements one list section of one expert may hold. */
export const MAX_SECTION_ELEMENTS = 500

/** Input schema of one element: the section's fields plus an optional import `key`. */
export function sectionInput(section: StoredSection): TSchema {
  const properties: Record<string, TSchema> = {
    key: Type.Optional(Key('Import key of the element: re-imports update the element with the same key')),
  }
  for (const [name, field] of Object.entries(fieldsOf(section))) {
    properties[name] = field.required ? field.schema : Type.Optional(Type.Union([field.schema, Type.Null()]))
  }
  return Type.Object(properties, { additionalProperties: false })
}

/** Response schema of one element: `id`, then every field (optional ones may be null). */
export function sectionOutput(section: StoredSection): TSchema {
  const properties: Record<string, TSchema> = { id: Type.Integer({ description: 'Element id' }) }
  if (section === 'tag') properties.content_tag_id = Type.Integer({ description: 'Tag id' })
  for (const [name, field] of Object.entries(fieldsOf(section))) {
    const plain = plainType(field.schema)
    properties[name] = field.required ? plain : Type.Union([plain, Type.Null()])
  }
  return Type.Object(properties, { additionalProperties: false, title: sectionTitle(section) })
}

/** The component name of a section's element: `ProfileEducation`, `ProfileResearchgrant`. */
export function sectionTitle(section: string): string {
  return `Profile${pascal(section)}`
}

/** The response type of an input field: same type and description, without input checks. */
function plainType(schema: TSchema): TSchema {
  const type = propertyOf(schema, 'type')
  const description = propertyOf(schema, 'description')
  const choices = propertyOf(schema, 'oneOf')
  const values = Array.isArray(choices) ? choices.map((choice) => propertyOf(choice, 'const')) : undefined
  const options = {
    ...(typeof description === 'string' && description ? { description } : {}),
    ...(Array.isArray(values) ? { enum: values } : {}),
  }
  if (type === 'integer') return Type.Integer(options)
  if (type === 'number') return Type.Number(options)
  return Type.String(options)
}

/** The fields of a section's element, in order, for filling `null` into unset ones. */
export function sectionFieldNames(section: StoredSection): string[] {
  return Object.keys(fieldsOf(section))
}

/** Derived sections: which stored sections feed them, each element gaining a `source`. */
export const DERIVED_SECTIONS = {
  audios_all: ['audio', 'podchaser'],
  videos_all: ['video', 'youtube', 'vimeo'],
  documents_all: ['document', 'cv', 'slideshare'],
} as const satisfies Record<string, readonly StoredSection[]>

/** An avatar rendition: `{url, width, height}` or `{}`. */
export const AvatarRenditionInput = Type.Object(
  {
    url: Url('Image URL'),
    width: Type.Integer({ minimum: 1, maximum: 100_000, 'x-message': 'must be a width in pixels' }),
    height: Type.Integer({ minimum: 1, maximum: 100_000, 'x-message': 'must be a height in pixels' }),
  },
  { additionalProperties: false },
)

export const AVATAR_SIZES = ['s', 'm', 'o', 'l'] as const

/** Import shape of the avatar: any of the s (small), m (medium), o (original), l (large) renditions. */
export const AvatarInput = Type.Object(
  Object.fromEntries(AVATAR_SIZES.map((size) => [size, Type.Optional(AvatarRenditionInput)])),
  { additionalProperties: false },
)

/** `researchgrant` -> `Researchgrant`, `audios_all` -> `AudiosAll`: for schema titles and operation ids. */
export const pascal = (name: string) =>
  name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')

/**
 * Request body of a section write through the API, from the same field list: `create` needs the
 * required fields; `patch` (a list element's PUT, a single-element section's POST) takes any of them,
 * at least one. Optional fields may be cleared with `null` or `""`. Name sets take `{name}`.
 */
export function sectionBody(section: StoredSection, mode: 'create' | 'patch'): TObject {
  const title = `${pascal(section)}${mode === 'create' ? 'Create' : 'Update'}`
  if (NAME_SECTIONS.has(section)) {
    const schema =
      section === 'tag'
        ? ShortText({ title: 'Tag', description: 'Tag: an organization tag, created on first use' }, 100)
        : ShortText('Name')
    return Type.Object({ name: schema }, { additionalProperties: false, title })
  }
  const properties: Record<string, TSchema> = {}
  for (const [name, field] of Object.entries(fieldsOf(section))) {
    const clearable = Type.Union([field.schema, Type.Literal(''), Type.Null()])
    properties[name] =
      mode === 'create' && field.required
        ? field.schema
        : Type.Optional(field.required ? field.schema : clearable)
  }
  return Type.Object(properties, {
    additionalProperties: false,
    title,
    ...(mode === 'patch' ? { minProperties: 1, 'x-message': 'must contain at least one field' } : {}),
  })
}
