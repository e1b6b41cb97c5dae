import { Feed } from 'feed'
import { ApiError } from '../errors.js'
import { parseQueryString } from '../search/query-string.js'
import type { searchQuestions, searchSpotlights } from '../search/service.js'
import type { PageScope } from './pages.js'

/**
 * The directory's Atom feed (CONTRACT §22, RFC 4287), written by `feed`:
 * `/directory/:corporation/feed.atom` holds the newest public posts and Q&A items together, newest first;
 * `?topic=` keeps those tagged with it, `?expert=` those that tag the expert or that it answered. Every
 * value is stored data (ids, dates, titles), so the same items give the same bytes and the ETag (a hash of
 * them) changes only with them. Expert alerts join it when they exist.
 */

/** Items of each kind read for a feed: the feed keeps the newest FEED_ITEMS of both together. */
export const FEED_ITEMS = 30

export interface FeedFilter {
  topic?: string
  /** A username, already known to be one of the organization's public experts. */
  expert?: { username: string; name: string }
}

type ExpertRef = { username: string; firstname: string; lastname: string }
type PostResult = Awaited<ReturnType<typeof searchSpotlights>>
type QuestionResult = Awaited<ReturnType<typeof searchQuestions>>

interface Entry {
  id: string
  title: string
  link: string
  date: number
  summary: string
  people: ExpertRef[]
  tags: string[]
}

const nameOf = (person: ExpertRef) => `${person.firstname} ${person.lastname}`.trim()

/**
 * `feed` marks an entry's title and summary as HTML (`type="html"`) and writes them as given: our titles
 * and summaries are plain text, so they are escaped, and a title such as "Floods & the <city>" reads as
 * written rather than as markup.
 */
const asHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

function entries(scope: PageScope, posts: PostResult, questions: QuestionResult): Entry[] {
  const { urls } = scope
  const host = new URL(urls.base).host
  return [
    ...posts.spotlights.map((post) => ({
      id: `tag:${host},2026:directory/${scope.site.id}/post/${post.id}`,
      title: post.title,
      link: urls.post(post.id),
      date: post.published_date ?? 0,
      summary: post.summary,
      people: post.tagged_experts,
      tags: post.tags.map((tag) => tag.tag),
    })),
    ...questions.questions.map((question) => ({
      id: `tag:${host},2026:directory/${scope.site.id}/question/${question.id}`,
      title: question.question,
      link: urls.question(question.id),
      date: question.published_date ?? 0,
      summary:
        question.answered_by.length > 0 ? `Answered by ${question.answered_by.map(nameOf).join(', ')}` : '',
      people: question.answered_by,
      tags: question.tags.map((tag) => tag.tag),
    })),
  ]
    .sort((a, b) => b.date - a.date || a.id.localeCompare(b.id))
    .slice(0, FEED_ITEMS)
}

const MAX_TOPIC_LENGTH = 100
const USERNAME = /^[a-z0-9]+(-[a-z0-9]+)*$/

/** The feed address's `topic` and `expert`; unknown parameters (`utm_source`...) are ignored. */
export function feedQuery(url: string): { topic?: string; expert?: string } {
  const { query } = parseQueryString(url, new Set())
  const single = (name: 'topic' | 'expert') => {
    const value = query[name]
    if (Array.isArray(value))
      throw new ApiError('validation_failed', `The feed address names "${name}" more than once.`)
    return value?.trim() || undefined
  }
  const topic = single('topic')
  const expert = single('expert')
  if (topic !== undefined && [...topic].length > MAX_TOPIC_LENGTH)
    throw new ApiError(
      'validation_failed',
      `"topic" is too long: use at most ${MAX_TOPIC_LENGTH} characters.`,
    )
  if (expert !== undefined && (expert.length > 64 || !USERNAME.test(expert)))
    throw new ApiError(
      'validation_failed',
      '"expert" must be an expert\'s username, as in the address of its page.',
    )
  if (topic !== undefined && expert !== undefined)
    throw new ApiError('validation_failed', 'A feed follows a topic or an expert, not both.')
  return { ...(topic !== undefined ? { topic } : {}), ...(expert !== undefined ? { expert } : {}) }
}

/** The feed's title: the organization's, narrowed to a topic or an expert. */
function titleOf(scope: PageScope, filter: FeedFilter) {
  if (filter.expert) return `${scope.site.name}: posts and answers with ${filter.expert.name}`
  if (filter.topic) return `${scope.site.name}: posts and answers on ${filter.topic}`
  return `${scope.site.name}: posts and answers`
}

export function feedAtom(
  scope: PageScope,
  selfUrl: string,
  filter: FeedFilter,
  posts: PostResult,
  questions: QuestionResult,
): string {
  const items = entries(scope, posts, questions)
  const feed = new Feed({
    id: selfUrl,
    title: titleOf(scope, filter),
    link: filter.expert ? scope.urls.expert(filter.expert.username) : scope.urls.home,
    feedLinks: { atom: selfUrl },
    // The newest item's date, not the clock: the same items, the same bytes.
    updated: new Date((items[0]?.date ?? 0) * 1000),
    generator: 'expertdir',
    // Atom asks for an author of every entry: an item that names no expert is the organization's.
    author: { name: scope.site.name, link: scope.urls.home },
    ...(scope.site.logoUrl ? { image: scope.site.logoUrl } : {}),
  })
  for (const item of items)
    feed.addItem({
      id: item.id,
      title: asHtml(item.title),
      link: item.link,
      date: new Date(item.date * 1000),
      published: new Date(item.date * 1000),
      ...(item.summary ? { description: asHtml(item.summary) } : {}),
      author: item.people.map((person) => ({
        name: nameOf(person),
        link: scope.urls.expert(person.username),
      })),
      category: item.tags.map((tag) => ({ name: tag, term: tag })),
    })
  return feed.atom1()
}
