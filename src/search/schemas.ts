import { type Static, type TSchema, Type } from 'typebox'
import { MAX_TERMS } from '../derived/search-text.js'
import { CorporationParams } from '../http/params.js'
import { Text } from '../validation/text.js'

export const choice = <T extends string>(values: readonly T[], description: string) =>
  Type.Optional(
    Type.Unsafe<T>(
      Type.String({ enum: [...values], description, 'x-message': `must be one of: ${values.join(', ')}` }),
    ),
  )

const Values = (description: string, item: TSchema = Text({ min: 1, max: 255 })) =>
  Type.Optional(
    Type.Unsafe<string[]>(
      Type.Array(item, {
        maxItems: 50,
        description: `${description}: repeat the key (\`k=a&k=b\`), use \`k[]=a\`, or send one JSON array (\`k=["a","b"]\`)`,
      }),
    ),
  )

/** `q`: the free text of every search, and of the staff and employee lists. */
export const Query = Type.Optional(
  Text({
    max: 200,
    description: `Free text: every word must match (at most ${MAX_TERMS} words), the last one as a prefix; case- and diacritics-insensitive`,
  }),
)

/** `page_size` and `page_from`: every offset-paged list's parameters. */
export const paging = {
  page_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description: 'Results per page (default 10)',
      'x-message': 'must be an integer from 1 to 100',
    }),
  ),
  page_from: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 10_000,
      description: 'Offset of the first result (default 0)',
      'x-message': 'must be an integer from 0 to 10000',
    }),
  ),
}

const Status = choice(['all', 'published', 'unpublished'] as const, 'Publication filter (default all)')

export const EXPERT_FACETS = [
  'countries',
  'topics',
  'industries',
  'categories',
  'tags',
  'interview_languages',
  'media_available',
] as const
export type ExpertFacet = (typeof EXPERT_FACETS)[number]

export const ExpertSearchQuery = Type.Object(
  {
    q: Query,
    searchfield: choice(['fullname'] as const, '`fullname`: q searches first and last names only'),
    access: choice(['public', 'private', 'all'] as const, 'Privacy filter (default public)'),
    status: Status,
    countries: Values(
      'ISO 3166-1 alpha-2 codes',
      Type.String({
        pattern: '^[A-Za-z]{2}$',
        format: 'iso3166-alpha2',
        'x-message': 'must be ISO 3166-1 alpha-2 country codes, such as CA or US',
      }),
    ),
    topics: Values('Topics'),
    industries: Values('Industries'),
    categories: Values('Categories'),
    tags: Values('Tags'),
    companies: Values('Exact company names, case-insensitive'),
    interview_languages: Values(
      'Interview languages, BCP 47 tags (`fr` finds fr-CA too)',
      Type.String({
        format: 'bcp47',
        maxLength: 35,
        'x-message': 'must be BCP 47 language tags, such as en or fr-CA',
      }),
    ),
    media_available: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1,
        description: '1: only experts available for media now (media_available 1)',
        'x-message': 'must be 1 (only experts available for media)',
      }),
    ),
    sort: choice(
      ['relevance', 'name', 'modified', 'featured'] as const,
      'Order (default relevance with q, else name)',
    ),
    ...paging,
  },
  { additionalProperties: false, title: 'ExpertSearchQuery' },
)
export type ExpertSearchInput = Static<typeof ExpertSearchQuery>

export const SpotlightSearchQuery = Type.Object(
  {
    q: Query,
    status: Status,
    tags: Values('Tags'),
    tagged: Values(
      'Usernames of tagged experts',
      Type.String({ pattern: '^[a-z0-9-]{1,64}$', 'x-message': 'must be usernames' }),
    ),
    year: Type.Optional(
      Type.Integer({
        minimum: 1000,
        maximum: 9999,
        description: 'Year of publication (UTC)',
        'x-message': 'must be a four-digit year',
      }),
    ),
    month: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        description: 'Month of publication, 1..12 (needs year)',
        'x-message': 'must be an integer from 1 to 12',
      }),
    ),
    ...paging,
  },
  { additionalProperties: false, title: 'SpotlightSearchQuery' },
)
export type SpotlightSearchInput = Static<typeof SpotlightSearchQuery>

export const QuestionSearchQuery = Type.Object(
  {
    q: Query,
    status: Status,
    tags: Values('Tags'),
    answered_by: Values(
      'Usernames of answering experts',
      Type.String({ pattern: '^[a-z0-9-]{1,64}$', 'x-message': 'must be usernames' }),
    ),
    ...paging,
  },
  { additionalProperties: false, title: 'QuestionSearchQuery' },
)
export type QuestionSearchInput = Static<typeof QuestionSearchQuery>

/** Query parameters that take several values. */
export const ARRAY_PARAMETERS: ReadonlySet<string> = new Set([
  ...EXPERT_FACETS.filter((facet) => facet !== 'media_available'),
  'companies',
  'tagged',
  'answered_by',
])

export const SearchParams = CorporationParams

const FacetBucket = Type.Object({ key: Type.String(), count: Type.Integer() }, { title: 'FacetBucket' })
const YearBucket = Type.Object({ key: Type.Integer(), count: Type.Integer() }, { title: 'YearBucket' })
const Buckets = (bucket: TSchema = FacetBucket) =>
  Type.Array(bucket, { description: 'By count descending, then key; at most 50' })

/** The media desk's fields a list entry shows, so that a journalist's search answers "who can talk now" (CONTRACT §22). */
const listedMediaFields = {
  media_available: Type.Integer({ enum: [0, 1], description: '1: available to journalists for interviews' }),
  media_available_until: Type.Union([Type.Integer(), Type.Null()], {
    description: 'End of the availability (unix seconds), or null for none',
  }),
  interview_languages: Type.Array(Type.String(), { description: 'BCP 47 tags' }),
  remote_ready: Type.Integer({ enum: [0, 1] }),
  studio_ready: Type.Integer({ enum: [0, 1] }),
}

export const ExpertListItem = Type.Object(
  {
    username: Type.String(),
    corporation_id: Type.Integer(),
    firstname: Type.String(),
    lastname: Type.String(),
    fullname: Type.String(),
    job_title: Type.String(),
    company: Type.String(),
    department: Type.Union([Type.String(), Type.Null()]),
    location_country: Type.Union([Type.String(), Type.Null()]),
    location_state: Type.Union([Type.String(), Type.Null()]),
    location_city: Type.Union([Type.String(), Type.Null()]),
    tagline: Type.String({ description: '"" when none' }),
    topics: Type.Array(Type.Object({ title: Type.String() })),
    avatar: Type.Object(
      { small: Type.String(), medium: Type.String(), large: Type.String(), original: Type.String() },
      { description: 'Image URLs, "" when none' },
    ),
    is_published: Type.Integer({ enum: [0, 1] }),
    is_private: Type.Integer({ enum: [0, 1] }),
    modified: Type.Integer({ description: 'Last change (unix seconds)' }),
    ...listedMediaFields,
  },
  { title: 'ExpertListItem' },
)

export const ExpertSearchResult = Type.Object(
  {
    experts: Type.Array(ExpertListItem),
    total: Type.Integer({ description: 'Exact number of matches' }),
    aggregations: Type.Object(Object.fromEntries(EXPERT_FACETS.map((facet) => [facet, Buckets()])), {
      description:
        'Counts over all matches; each facet\'s counts ignore that facet\'s own filter. `interview_languages`: each tag and its language (`fr-CA` counts under `fr` too); `media_available`: `[{key: "1", count}]`, the experts available for media',
    }),
  },
  { title: 'ExpertSearchResult' },
)

const ExpertRef = Type.Object({ username: Type.String(), firstname: Type.String(), lastname: Type.String() })

export const SpotlightListItem = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    featured_image: Type.Union([Type.String(), Type.Null()]),
    published: Type.Integer({ enum: [0, 1] }),
    published_date: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds' }),
    reading_time: Type.Integer({ description: 'Minutes' }),
    summary: Type.String(),
    tags: Type.Array(Type.Object({ id: Type.Integer(), tag: Type.String() })),
    tagged_experts: Type.Array(ExpertRef),
  },
  { title: 'SpotlightListItem' },
)

export const SpotlightSearchResult = Type.Object(
  {
    spotlights: Type.Array(SpotlightListItem),
    total: Type.Integer(),
    aggregations: Type.Object({
      year: Buckets(YearBucket),
      tagged_experts: Buckets(),
      tags: Buckets(),
    }),
  },
  { title: 'SpotlightSearchResult' },
)

export const QuestionListItem = Type.Object(
  {
    id: Type.Integer(),
    question: Type.String(),
    published: Type.Integer({ enum: [0, 1] }),
    published_date: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds' }),
    tags: Type.Array(Type.Object({ id: Type.Integer(), tag: Type.String() })),
    answered_by: Type.Array(ExpertRef),
  },
  { title: 'QuestionListItem' },
)

export const QuestionSearchResult = Type.Object(
  {
    questions: Type.Array(QuestionListItem),
    total: Type.Integer(),
    aggregations: Type.Object({ tags: Buckets(), answered_by: Buckets() }),
  },
  { title: 'QuestionSearchResult' },
)
