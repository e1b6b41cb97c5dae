import { createRequire } from 'node:module'
import type SanitizeHtml from 'sanitize-html'
import { type Static, Type } from 'typebox'
import type { ExpertSearch, ProfileRead } from './pages.js'
import type { DirectoryUrls } from './urls.js'

/**
 * The public JSON the widget reads (`/directory/:corporation/api/experts[/:username]`): the
 * `read:public` view of the search and of a profile, cut down to what a card and a profile show. The
 * response schemas drop anything else, so no other field of a profile can reach another site's page.
 */

const Text = Type.String()
const Optional = Type.Union([Type.String(), Type.Null()])

export const WidgetExpert = Type.Object({
  username: Text,
  name: Text,
  job_title: Text,
  company: Text,
  tagline: Text,
  avatar: Text,
  topics: Type.Array(Text),
  url: Text,
  media_available: Type.Integer({ enum: [0, 1], description: '1: available for media interviews' }),
})

export const WidgetSearch = Type.Object({
  experts: Type.Array(WidgetExpert),
  total: Type.Integer(),
  topics: Type.Array(Type.Object({ key: Text, count: Type.Integer() })),
})

export const WidgetProfile = Type.Object({
  username: Text,
  name: Text,
  job_title: Text,
  company: Text,
  department: Optional,
  tagline: Text,
  biography: Type.String({
    description:
      'The biography as HTML of paragraphs, lists, line breaks and emphasis only (no attribute, no link): its structure, not its markup',
  }),
  avatar: Text,
  topics: Type.Array(Text),
  url: Text,
})

export function widgetSearch(result: ExpertSearch, urls: DirectoryUrls): Static<typeof WidgetSearch> {
  return {
    experts: result.experts.map((expert) => ({
      username: expert.username,
      name: expert.fullname,
      job_title: expert.job_title,
      company: expert.company,
      tagline: expert.tagline,
      avatar: urls.media(expert.avatar.medium) ?? '',
      topics: expert.topics.map((topic) => topic.title),
      url: urls.expert(expert.username),
      media_available: expert.media_available,
    })),
    total: result.total,
    topics: result.aggregations.topics,
  }
}

/** The tags a widget's biography keeps: its structure. Everything else goes; the text stays. */
const STRUCTURE: SanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i'],
  allowedAttributes: {},
  disallowedTagsMode: 'discard',
}

let sanitizer: typeof SanitizeHtml | undefined

/** A stored biography (sanitized HTML) cut down to its structure. */
function structureOf(html: string): string {
  sanitizer ??= createRequire(import.meta.url)('sanitize-html') as typeof SanitizeHtml
  return sanitizer(html, STRUCTURE).trim()
}

export function widgetProfile(profile: ProfileRead, urls: DirectoryUrls): Static<typeof WidgetProfile> {
  const [account] = profile.account
  if (!account) throw new Error('The profile has no account element')
  return {
    username: account.username,
    name: `${account.firstname} ${account.lastname}`.trim(),
    job_title: account.job_title,
    company: account.company,
    department: account.department,
    tagline: profile.tagline[0]?.tagline ?? '',
    biography: structureOf(profile.biography[0]?.biography ?? ''),
    avatar: urls.media(profile.avatar.m.url) ?? '',
    topics: profile.topic.map((topic) => topic.name),
    url: urls.expert(account.username),
  }
}
