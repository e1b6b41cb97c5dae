import type { Static } from 'typebox'
import { type ItemData, parseItemData } from '../db/item-data.js'
import type { ExpertRow } from '../db/schema.js'
import type { SectionName } from '../db/sections.js'
import { toSeconds } from '../time.js'
import { propertyOf } from '../validation/guards.js'
import { plainText, readingTime, summary } from '../validation/html-text.js'
import { interviewLanguagesOf } from '../validation/media.js'
import type { ExpertListItem, QuestionListItem, SpotlightListItem } from './schemas.js'

/** Rows -> list entries. Response schemas strip anything not listed. */

const AVATAR_NAMES = { small: 's', medium: 'm', large: 'l', original: 'o' } as const

/** An avatar rendition's URL: `{url, width, height}` as stored, or `{}`. */
function urlOf(rendition: unknown): string {
  const url = propertyOf(rendition, 'url')
  return typeof url === 'string' ? url : ''
}

export function expertListItem(
  expert: ExpertRow,
  items: { section: SectionName; data: string }[],
): Static<typeof ExpertListItem> {
  let tagline = ''
  let avatar: ItemData = {}
  const topics: { title: string }[] = []
  for (const item of items) {
    const data = parseItemData(item.data)
    if (item.section === 'topic') topics.push({ title: String(data.name ?? '') })
    else if (item.section === 'tagline') tagline = String(data.tagline ?? '')
    else if (item.section === 'avatar') avatar = data
  }
  return {
    username: expert.username,
    corporation_id: expert.org_id,
    firstname: expert.firstname,
    lastname: expert.lastname,
    fullname: `${expert.firstname} ${expert.lastname}`,
    job_title: expert.job_title,
    company: expert.company,
    department: expert.department,
    location_country: expert.location_country,
    location_state: expert.location_state,
    location_city: expert.location_city,
    tagline,
    topics,
    avatar: {
      small: urlOf(avatar[AVATAR_NAMES.small]),
      medium: urlOf(avatar[AVATAR_NAMES.medium]),
      large: urlOf(avatar[AVATAR_NAMES.large]),
      original: urlOf(avatar[AVATAR_NAMES.original]),
    },
    is_published: expert.is_published,
    is_private: expert.is_private,
    modified: toSeconds(expert.updated_at),
    media_available: expert.media_available,
    media_available_until: toSeconds(
      expert.media_available_until === null ? null : Number(expert.media_available_until),
    ),
    interview_languages: interviewLanguagesOf(expert.interview_languages),
    remote_ready: expert.remote_ready,
    studio_ready: expert.studio_ready,
  }
}

interface Published {
  published: number
  published_at: number | null
  created_at: number
}

/** As the post and question reads: the stored date, or the creation time of an item published without one. */
const publishedDate = (item: Published) =>
  item.published_at !== null
    ? toSeconds(item.published_at)
    : item.published
      ? toSeconds(item.created_at)
      : null

type ExpertRef = { username: string; firstname: string; lastname: string }

export function spotlightListItem(
  post: Published & { id: number; title: string; html: string; featured_image: string | null },
  tags: { id: number; tag: string }[],
  experts: ExpertRef[],
): Static<typeof SpotlightListItem> {
  return {
    id: post.id,
    title: post.title,
    featured_image: post.featured_image,
    published: post.published,
    published_date: publishedDate(post),
    reading_time: readingTime(post.html),
    summary: summary(plainText(post.html)),
    tags,
    tagged_experts: experts,
  }
}

export function questionListItem(
  question: Published & { id: number; question: string },
  tags: { id: number; tag: string }[],
  experts: ExpertRef[],
): Static<typeof QuestionListItem> {
  const seen = new Set<string>()
  return {
    id: question.id,
    question: question.question,
    published: question.published,
    published_date: publishedDate(question),
    tags,
    answered_by: experts.filter((expert) => !seen.has(expert.username) && seen.add(expert.username)),
  }
}
