import { Type } from 'typebox'
import { CorporationParams } from '../experts/schemas.js'
import { Id } from '../validation/text.js'

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
