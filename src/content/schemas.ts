import { type Static, Type } from 'typebox'
import { CorporationParams } from '../http/params.js'
import { Clearable, Html, LongText, ShortText, UnixSeconds, Url } from '../validation/fields.js'
import { SCHEDULE_FIELDS, SCHEDULE_READ } from '../validation/schedule.js'
import { Flag, Id } from '../validation/text.js'

const NullableString = Type.Union([Type.String(), Type.Null()])
const Seconds = (description: string) => Type.Integer({ description: `${description} (unix seconds)` })
const NullableSeconds = (description: string) => Type.Union([Seconds(description), Type.Null()])

export const SpotlightParams = Type.Object({
  corporation: CorporationParams.properties.corporation,
  id: Id('Post id'),
})

export const QuestionParams = Type.Object({
  corporation: CorporationParams.properties.corporation,
  id: Id('Question id'),
})

export const TagElement = Type.Object(
  {
    id: Type.Integer({ description: 'Id of the tag on this item' }),
    content_tag_id: Type.Integer({ description: 'Id of the tag itself, the same on every item it tags' }),
    tag: Type.String(),
  },
  { title: 'ContentTag' },
)

export const SeoElement = Type.Object(
  {
    title: Type.String({ description: 'Page title; falls back to the post title or question text' }),
    description: Type.String({
      description: 'Meta description; falls back to the first ~160 characters of text',
    }),
    keywords: Type.String({ description: 'Comma-separated; falls back to the tags' }),
    image: Type.Union([Type.String(), Type.Null()], {
      description: 'Share image; falls back to the featured image',
    }),
    canonical_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Canonical URL, when the author set one',
    }),
  },
  { title: 'PageSeo', description: 'Page metadata, always complete enough to build a page' },
)

const TaggedExpert = Type.Object(
  {
    username: Type.String(),
    firstname: Type.String(),
    lastname: Type.String(),
    job_title: Type.String(),
  },
  { title: 'TaggedExpert' },
)

export const SpotlightRead = Type.Object(
  {
    spotlight: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          corporation_id: Type.Integer(),
          title: Type.String(),
          html: Type.String(),
          featured_image: NullableString,
          reading_time: Type.Integer({ description: 'Minutes, from the words of the html at 200 a minute' }),
          published: Type.Integer({ enum: [0, 1] }),
          published_date: NullableSeconds('Publication time; the creation time when published without one'),
          ...SCHEDULE_READ,
          created: Seconds('Creation time'),
          modified: Seconds('Last modification time'),
          tagged_experts: Type.Array(TaggedExpert),
        },
        { title: 'Spotlight' },
      ),
    ),
    tags: Type.Array(TagElement),
    seo: Type.Array(SeoElement),
  },
  { title: 'SpotlightRead', description: 'A post with its tags and page metadata' },
)

const Answer = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    firstname: Type.String(),
    lastname: Type.String(),
    answer: Type.String({ description: 'HTML' }),
    created: Seconds('Creation time'),
  },
  { title: 'Answer' },
)

export const QuestionRead = Type.Object(
  {
    question: Type.Array(
      Type.Object(
        {
          id: Type.Integer(),
          corporation_id: Type.Integer(),
          question: Type.String(),
          details: NullableString,
          published: Type.Integer({ enum: [0, 1] }),
          published_date: NullableSeconds('Publication time; the creation time when published without one'),
          ...SCHEDULE_READ,
          created: Seconds('Creation time'),
          modified: Seconds('Last modification time'),
          answers: Type.Array(Answer),
        },
        { title: 'Question' },
      ),
    ),
    tags: Type.Array(TagElement),
    seo: Type.Array(SeoElement),
  },
  { title: 'QuestionRead', description: 'A Q&A item with its answers, tags and page metadata' },
)

export const SeoInput = Type.Object(
  {
    title: Clearable(ShortText('Page title', 500)),
    description: Clearable(LongText('Meta description', 1000)),
    keywords: Clearable(ShortText({ title: 'Keywords', description: 'Keywords, comma-separated' }, 1000)),
    image: Clearable(Url('Share image')),
    canonical_url: Clearable(Url('Canonical URL')),
  },
  { additionalProperties: false, title: 'SeoInput' },
)

export const TagNames = Type.Array(ShortText('Tag', 100), {
  maxItems: 100,
  description: 'Tag names: the organization tags, created on first use (a form repeats the key)',
})

const Username = Type.String({
  pattern: '^[a-z0-9-]{1,64}$',
  description: 'Expert username',
  'x-message': 'must be a username: lowercase letters, digits and dashes',
})

const publication = {
  published: Type.Optional(Flag('Published flag (default 0)')),
  published_date: Clearable(UnixSeconds('Publication time')),
  tags: Type.Optional(TagNames),
  seo: Type.Optional(SeoInput),
  ...SCHEDULE_FIELDS,
}

const postFields = {
  title: ShortText('Title', 500),
  html: Html('Body', 1_000_000),
  featured_image: Clearable(Url('Featured image')),
  tagged: Type.Optional(
    Type.Array(Username, { maxItems: 1000, description: 'Usernames of the experts the post tags' }),
  ),
  ...publication,
}

export const PostCreate = Type.Object(postFields, { additionalProperties: false, title: 'PostCreate' })
export const PostUpdate = Type.Object(Type.Partial(Type.Object(postFields)).properties, {
  additionalProperties: false,
  minProperties: 1,
  'x-message': 'must contain at least one field to update',
  title: 'PostUpdate',
})

const questionFields = {
  question: ShortText('Question', 1000),
  details: Clearable(Html('Details', 100_000)),
  ...publication,
}

export const QuestionCreate = Type.Object(questionFields, {
  additionalProperties: false,
  title: 'QuestionCreate',
})
export const QuestionUpdate = Type.Object(Type.Partial(Type.Object(questionFields)).properties, {
  additionalProperties: false,
  minProperties: 1,
  'x-message': 'must contain at least one field to update',
  title: 'QuestionUpdate',
})

const answerFields = {
  username: Username,
  answer: Html('Answer', 1_000_000),
}
export const AnswerCreate = Type.Object(answerFields, { additionalProperties: false, title: 'AnswerCreate' })
export const AnswerUpdate = Type.Object(Type.Partial(Type.Object(answerFields)).properties, {
  additionalProperties: false,
  minProperties: 1,
  'x-message': 'must contain at least one field to update',
  title: 'AnswerUpdate',
})

export type PostCreateInput = Static<typeof PostCreate>
export type PostUpdateInput = Static<typeof PostUpdate>
export type QuestionCreateInput = Static<typeof QuestionCreate>
export type QuestionUpdateInput = Static<typeof QuestionUpdate>
export type AnswerCreateInput = Static<typeof AnswerCreate>
export type AnswerUpdateInput = Static<typeof AnswerUpdate>

export const AnswerParams = Type.Object({
  corporation: CorporationParams.properties.corporation,
  id: Id('Question id'),
  answer_id: Id('Answer id'),
})
