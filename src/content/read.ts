import type { Static } from 'typebox'
import { CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import { type Audience, itemVisibleTo, type ProfileFlags, profileVisibleTo } from '../derived/audience.js'
import { currentDocument, type ReadDocument } from '../derived/current-document.js'
import { findContentDocument } from '../derived/read-documents.js'
import { notFound } from '../errors.js'
import { toSeconds } from '../time.js'
import { plainText, readingTime, summary } from '../validation/html-text.js'
import { scheduleRead } from '../validation/schedule.js'
import type { ReadOf } from './kinds.js'
import { findQuestion, findSpotlight, listAnswers, listTaggedExperts, listTags } from './repository.js'
import type { QuestionRead, SeoElement, SpotlightRead } from './schemas.js'

interface StoredSeo {
  seo_title: string | null
  seo_description: string | null
  seo_keywords: string | null
  seo_image: string | null
  seo_canonical_url: string | null
}

/** The SEO record with the author's values where set and fallbacks elsewhere, so a page can always be built. */
export function seoWithFallbacks(
  stored: StoredSeo,
  fallback: { title: string; text: string; image: string | null; tags: string[] },
): Static<typeof SeoElement> {
  return {
    title: stored.seo_title || fallback.title,
    description: stored.seo_description || summary(fallback.text),
    keywords: stored.seo_keywords || fallback.tags.join(', '),
    image: stored.seo_image || fallback.image,
    canonical_url: stored.seo_canonical_url || null,
  }
}

/** `published_date`: the stored one, or the creation time of an item published without one. */
function publishedDate(item: { published: number; published_at: number | null; created_at: number }) {
  return toSeconds(item.published_at ?? (item.published ? item.created_at : null))
}

/** The experts `audience` may see, without their flags. */
function visibleExperts<T extends ProfileFlags>(
  audience: Audience,
  experts: T[],
): Omit<T, keyof ProfileFlags>[] {
  return experts
    .filter((expert) => profileVisibleTo(audience, expert))
    .map(({ is_published, is_private, ...expert }) => expert)
}

export async function readSpotlight(
  db: Queryable,
  orgId: number,
  id: number,
  audience: Audience,
): Promise<Static<typeof SpotlightRead>> {
  const post = await findSpotlight(db, orgId, id)
  if (!post || !itemVisibleTo(audience, post)) throw notFound(`Post ${id}`)
  const [experts, tags] = await Promise.all([
    listTaggedExperts(db, orgId, id).then((rows) => visibleExperts(audience, rows)),
    listTags(db, orgId, 'spotlight', id),
  ])
  return {
    spotlight: [
      {
        id: post.id,
        corporation_id: post.org_id,
        title: post.title,
        html: post.html,
        featured_image: post.featured_image,
        reading_time: readingTime(post.html),
        published: post.published,
        published_date: publishedDate(post),
        ...scheduleRead(post, audience),
        created: toSeconds(post.created_at),
        modified: toSeconds(post.updated_at),
        tagged_experts: experts,
      },
    ],
    tags,
    seo: [
      seoWithFallbacks(post, {
        title: post.title,
        text: plainText(post.html),
        image: post.featured_image,
        tags: tags.map((tag) => tag.tag),
      }),
    ],
  }
}

/** A question with its answers; for the public, only the answers of experts it may see. */
export async function readQuestion(
  db: Queryable,
  orgId: number,
  id: number,
  audience: Audience,
): Promise<Static<typeof QuestionRead>> {
  const question = await findQuestion(db, orgId, id)
  if (!question || !itemVisibleTo(audience, question)) throw notFound(`Question ${id}`)
  const [answers, tags] = await Promise.all([
    listAnswers(db, orgId, id).then((rows) => visibleExperts(audience, rows)),
    listTags(db, orgId, 'question', id),
  ])
  const text = plainText(question.details ?? '') || plainText(answers[0]?.answer ?? '') || question.question
  return {
    question: [
      {
        id: question.id,
        corporation_id: question.org_id,
        question: question.question,
        details: question.details,
        published: question.published,
        published_date: publishedDate(question),
        ...scheduleRead(question, audience),
        created: toSeconds(question.created_at),
        modified: toSeconds(question.updated_at),
        answers: answers.map(({ created_at, ...answer }) => ({ ...answer, created: toSeconds(created_at) })),
      },
    ],
    tags,
    seo: [
      seoWithFallbacks(question, {
        title: question.question,
        text,
        image: null,
        tags: tags.map((t) => t.tag),
      }),
    ],
  }
}

/** Each kind's read, as its schema types it. */
const BUILDERS: {
  [K in ContentKind]: (db: Queryable, orgId: number, id: number, audience: Audience) => Promise<ReadOf<K>>
} = { spotlight: readSpotlight, question: readQuestion }

/**
 * A post (`spotlight`) or Q&A item read as served to `audience`: the stored document when it is current
 * (one query), otherwise built, serialized by `serialize` (the route's response serializer) and stored.
 */
export async function contentDocument(
  db: Queryable,
  kind: ContentKind,
  orgId: number,
  id: number,
  audience: Audience,
  serialize: (data: unknown) => string | Buffer | ArrayBuffer,
): Promise<ReadDocument> {
  const found = await findContentDocument(db, kind, orgId, id, audience)
  if (!found) throw notFound(`${CONTENT_KINDS[kind].noun} ${id}`)
  return currentDocument(db, kind, orgId, audience, found, async () =>
    serialize(await BUILDERS[kind](db, orgId, id, audience)),
  )
}
