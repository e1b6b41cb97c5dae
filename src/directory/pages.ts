import {
  metadataHtml,
  type PageMetadata,
  plainText,
  postMetadata,
  profileMetadata,
  questionMetadata,
  summarize,
} from '@expertdir/client/metadata'
import type { SimilarExpertData } from '../meaning/schemas.js'
import type { searchExperts, searchQuestions, searchSpotlights } from '../search/service.js'
import { languageName, mediaAvailability } from './media-view.js'
import { countryName, subdivisionName } from './places.js'
import type { DirectorySite } from './site.js'
import { render } from './templates.js'
import type { DirectoryUrls } from './urls.js'

/** The read shapes the client package's metadata helpers take: the API's own, as served. */
export type ProfileRead = Parameters<typeof profileMetadata>[0]
export type SpotlightRead = Parameters<typeof postMetadata>[0]
export type QuestionRead = Parameters<typeof questionMetadata>[0]
export type ExpertSearch = Awaited<ReturnType<typeof searchExperts>>
export type PostSearch = Awaited<ReturnType<typeof searchSpotlights>>
export type QuestionSearch = Awaited<ReturnType<typeof searchQuestions>>

/** What every page of one organization's directory is rendered with. */
export interface PageScope {
  site: DirectorySite
  urls: DirectoryUrls
}

const present = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== ''

const joined = (values: (string | null | undefined)[], separator = ', ') =>
  values.filter(present).join(separator)

const fullName = (person: { firstname: string; lastname: string }) =>
  `${person.firstname} ${person.lastname}`.trim()

function dateOf(seconds: number | null) {
  if (seconds === null) return undefined
  const date = new Date(seconds * 1000)
  return {
    iso: date.toISOString(),
    text: date.toLocaleDateString('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }),
  }
}

/** The parts of the directory its header links to. */
export type Section = 'experts' | 'story' | 'posts' | 'questions'

/** The list pages of posts and Q&A items (`/directory/:corporation/spotlight/`, `.../qanda/`). */
export function listUrls(urls: DirectoryUrls) {
  return { posts: `${urls.home}spotlight/`, questions: `${urls.home}qanda/` }
}

/** The "describe your story" page; its trailing slash keeps it apart from an expert named `story`. */
export const storyUrl = (urls: DirectoryUrls) => `${urls.home}story/`

function layout(
  scope: PageScope,
  meta: PageMetadata | { title: string },
  body: string,
  options: { noindex?: boolean; section?: Section } = {},
): string {
  const { site, urls } = scope
  const lists = listUrls(urls)
  const nav = [
    { label: 'Experts', href: urls.home, section: 'experts' },
    { label: 'Your story', href: storyUrl(urls), section: 'story' },
    { label: 'Posts', href: lists.posts, section: 'posts' },
    { label: 'Q&A', href: lists.questions, section: 'questions' },
  ].map((link) => ({ ...link, current: link.section === options.section }))
  return render('layout', {
    head: 'canonicalUrl' in meta ? metadataHtml(meta) : render('title', meta),
    noindex: options.noindex ?? false,
    assets: urls.assets,
    themeUrl: urls.theme(site.version),
    homeUrl: urls.home,
    feedUrl: urls.feed(),
    nav,
    site,
    body,
  })
}

/** "Ottawa, Ontario, Canada" from the stored codes. */
function placeOf(account: {
  location_city: string | null
  location_state: string | null
  location_country: string | null
}): string {
  const country = account.location_country
  return joined([
    account.location_city,
    country && account.location_state
      ? subdivisionName(country, account.location_state)
      : account.location_state,
    country ? countryName(country) : null,
  ])
}

const siteName = (site: DirectorySite) => `${site.name} experts`

/**
 * The expert page: profile, its posts and answers, similar experts and the contact form (`similar` and
 * `form` rendered apart).
 */
export function expertPage(
  scope: PageScope,
  profile: ProfileRead,
  parts: { similar: string; form: string },
  otherKinds: KindLink[],
) {
  const { urls, site } = scope
  const [account] = profile.account
  if (!account) throw new Error('The profile has no account element')
  const url = urls.expert(account.username)
  const meta = profileMetadata(profile, {
    url,
    siteName: siteName(site),
    canonical: 'url',
    profilePage: true,
  })
  const social = profile.social[0]
  const lists = [
    {
      id: 'education',
      title: 'Education',
      items: profile.education.map((item) => ({
        text: joined([item.degree, item.major]) || item.institution,
        detail: joined([
          item.degree || item.major ? item.institution : null,
          item.date ? String(item.date) : null,
        ]),
      })),
    },
    {
      id: 'affiliations',
      title: 'Affiliations',
      items: profile.affiliation.map((item) => ({ text: item.name, href: item.link ?? undefined })),
    },
    { id: 'languages', title: 'Languages', items: profile.language.map((item) => ({ text: item.name })) },
    {
      id: 'articles',
      title: 'Articles',
      items: profile.article.map((item) => ({
        text: item.title,
        href: item.url ?? undefined,
        // A source often gives only the year (stored as 1 January): the year is what is sure.
        detail: joined([
          item.publisher,
          item.date === null ? null : String(new Date(item.date * 1000).getUTCFullYear()),
        ]),
      })),
    },
    {
      id: 'posts',
      title: 'Posts',
      items: profile.spotlight.map((post) => ({
        text: post.title,
        href: urls.post(post.id),
        detail: dateOf(post.published_date)?.text,
      })),
    },
    {
      id: 'answers',
      title: 'Questions answered',
      items: profile.qanda.map((question) => ({ text: question.question, href: urls.question(question.id) })),
    },
    {
      id: 'links',
      title: 'Links',
      items: [
        ...(social
          ? [
              { text: 'Website', href: social.website },
              { text: 'LinkedIn', href: social.linkedin },
              { text: 'X / Twitter', href: social.twitter },
              { text: 'GitHub', href: social.github },
              { text: 'Facebook', href: social.facebook },
              { text: 'Instagram', href: social.instagram },
              { text: 'YouTube', href: social.youtube },
            ].flatMap((link) => (present(link.href) ? [{ text: link.text, href: link.href }] : []))
          : []),
        ...profile.link.map((link) => ({ text: link.name || link.url, href: link.url })),
      ],
    },
  ].filter((list) => list.items.length > 0)
  const body = render('expert', {
    name: fullName(account),
    firstname: account.firstname,
    photo: urls.media(profile.avatar.l.url ?? profile.avatar.m.url),
    role: joined([account.job_title, account.department, account.company]),
    location: placeOf(account),
    tagline: profile.tagline[0]?.tagline,
    topics: profile.topic.map((topic) => ({
      name: topic.name,
      href: urls.search(new URLSearchParams({ topics: topic.name })),
    })),
    biography: profile.biography[0]?.biography,
    media: mediaAvailability(account),
    mediaKitHref: urls.mediaKit(account.username),
    calendarHref: urls.calendar(account.username),
    lists,
    otherKinds,
    similar: parts.similar,
    form: parts.form,
  })
  return layout(scope, meta, body, { section: 'experts' })
}

/** The media kit page of an expert (src/directory/media-kit.ts). */
export function mediaKitPage(scope: PageScope, view: { name: string } & Record<string, unknown>) {
  const title = `Media kit: ${view.name} | ${siteName(scope.site)}`
  return layout(scope, { title }, render('mediaKit', view), { section: 'experts' })
}

export interface KindLink {
  label: string
  href: string
}

/** The post page. */
export function postPage(scope: PageScope, read: SpotlightRead) {
  const { urls, site } = scope
  const [post] = read.spotlight
  if (!post) throw new Error('The post read has no spotlight element')
  const meta = postMetadata(read, { url: urls.post(post.id), siteName: siteName(site), canonical: 'url' })
  const body = render('post', {
    title: post.title,
    published: dateOf(post.published_date),
    readingTime: post.reading_time,
    image: post.featured_image,
    html: post.html,
    experts: post.tagged_experts.map((expert) => ({
      name: fullName(expert),
      role: expert.job_title,
      href: urls.expert(expert.username),
    })),
    tags: read.tags.map((tag) => tag.tag),
  })
  return layout(scope, meta, body, { section: 'posts' })
}

/** The Q&A page. */
export function questionPage(scope: PageScope, read: QuestionRead) {
  const { urls, site } = scope
  const [question] = read.question
  if (!question) throw new Error('The Q&A read has no question element')
  const meta = questionMetadata(read, {
    url: urls.question(question.id),
    siteName: siteName(site),
    canonical: 'url',
  })
  const body = render('question', {
    question: question.question,
    details: question.details,
    answers: question.answers.map((answer) => ({
      name: fullName(answer),
      role: null,
      href: urls.expert(answer.username),
      html: answer.answer,
    })),
    tags: read.tags.map((tag) => tag.tag),
  })
  return layout(scope, meta, body, { section: 'questions' })
}

/** The facets the find-an-expert page offers as links, with their titles. */
export const PAGE_FACETS = [
  ['topics', 'Topics'],
  ['countries', 'Countries'],
  ['industries', 'Industries'],
  ['categories', 'Categories'],
  ['media_available', 'For journalists'],
  ['interview_languages', 'Interview languages'],
] as const

export type PageFacet = (typeof PAGE_FACETS)[number][0]

/** A find-an-expert query as the page's URL carries it. */
export interface PageQuery {
  q: string
  filters: Record<PageFacet, string[]>
  page: number
}

export const PAGE_SIZE = 10
/** Values a facet shows at once; the others (up to FACET_LINKS) fold under "More ..." (no script needed). */
const FACET_SHOWN = 5
const FACET_LINKS = 30
/** Topics an empty search suggests. */
const SUGGESTED_TOPICS = 8

function queryParams(query: PageQuery, changes: Partial<PageQuery> = {}): URLSearchParams {
  const next = { ...query, ...changes }
  const params = new URLSearchParams()
  if (next.q) params.set('q', next.q)
  for (const [facet] of PAGE_FACETS) for (const value of next.filters[facet]) params.append(facet, value)
  if (next.page > 1) params.set('page', String(next.page))
  return params
}

function toggled(values: string[], value: string): string[] {
  const key = value.toLowerCase()
  return values.some((v) => v.toLowerCase() === key)
    ? values.filter((v) => v.toLowerCase() !== key)
    : [...values, value]
}

/** A facet value as the page shows it: countries by name. */
const facetLabel = (facet: PageFacet, key: string) =>
  facet === 'countries'
    ? countryName(key)
    : facet === 'media_available'
      ? 'Available for media'
      : facet === 'interview_languages'
        ? languageName(key)
        : key

/**
 * The find-an-expert page: search box, facets as links, results and pages. `popular` (the facet
 * counts of the whole directory) gives an empty search its topics to browse.
 */
/** The organization's logo as the page's Open Graph image, when it has one. */
const ogImage = (logoUrl: string | null | undefined): [string, string][] =>
  logoUrl ? [['og:image', logoUrl]] : []

export function searchPage(scope: PageScope, query: PageQuery, result: ExpertSearch, popular?: ExpertSearch) {
  const { urls, site } = scope
  const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE))
  const filtered = PAGE_FACETS.some(([facet]) => query.filters[facet].length > 0)
  const url = urls.search(queryParams(query))
  const title = query.q ? `Experts on “${query.q}” | ${siteName(site)}` : `Find an expert | ${siteName(site)}`
  const description = summarize(
    present(site.description)
      ? plainText(site.description)
      : `Find an expert of ${site.name} for interviews, talks and collaborations.`,
  )
  const meta: PageMetadata = {
    title,
    description,
    keywords: undefined,
    canonicalUrl: url,
    image: site.logoUrl ?? undefined,
    openGraph: [
      ['og:type', 'website'],
      ['og:title', title],
      ['og:description', description],
      ['og:url', url],
      ...ogImage(site.logoUrl),
      ['og:site_name', siteName(site)],
    ],
    twitter: [
      ['twitter:card', 'summary'],
      ['twitter:title', title],
      ['twitter:description', description],
    ],
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'CollectionPage',
      name: title,
      url,
      about: { '@type': 'Organization', name: site.name, ...(site.website ? { url: site.website } : {}) },
    },
  }
  const facets = PAGE_FACETS.map(([facet, facetTitle]) => {
    const values = result.aggregations[facet].slice(0, FACET_LINKS).map((bucket) => {
      const selected = query.filters[facet].some((v) => v.toLowerCase() === bucket.key.toLowerCase())
      const filters = { ...query.filters, [facet]: toggled(query.filters[facet], bucket.key) }
      return {
        label: facetLabel(facet, bucket.key),
        count: bucket.count,
        selected,
        href: urls.search(queryParams(query, { filters, page: 1 })),
      }
    })
    // The most frequent first, and a chosen value always in sight.
    const shown = values.filter((value, i) => i < FACET_SHOWN || value.selected)
    return { title: facetTitle, values: shown, more: values.filter((value) => !shown.includes(value)) }
  }).filter((facet) => facet.values.length > 0)
  const hidden = PAGE_FACETS.flatMap(([facet]) =>
    query.filters[facet].map((value) => ({ name: facet, value })),
  )
  const from = (query.page - 1) * PAGE_SIZE
  const summary =
    result.total === 0
      ? 'No experts found'
      : `${result.total === 1 ? '1 expert' : `${result.total} experts`}${pages > 1 ? `, ${from + 1} to ${Math.min(from + PAGE_SIZE, result.total)} shown` : ''}`
  const body = render('search', {
    action: urls.home,
    storyHref: storyUrl(urls),
    q: query.q,
    hidden,
    facets,
    clearHref: filtered ? urls.search(queryParams(query, { filters: emptyFilters(), page: 1 })) : undefined,
    summary,
    experts: result.experts.map((expert) => ({
      name: expert.fullname,
      href: urls.expert(expert.username),
      role: joined([expert.job_title, expert.company]),
      tagline: expert.tagline,
      avatar: urls.media(expert.avatar.medium),
      topics: expert.topics.map((topic) => topic.title),
      mediaAvailable: expert.media_available === 1,
    })),
    page: query.page,
    pages,
    prevHref: query.page > 1 ? urls.search(queryParams(query, { page: query.page - 1 })) : undefined,
    nextHref: query.page < pages ? urls.search(queryParams(query, { page: query.page + 1 })) : undefined,
    broaderHref: query.q && filtered ? urls.search(queryParams(query, { q: '', page: 1 })) : undefined,
    suggestions: (popular?.aggregations.topics ?? []).slice(0, SUGGESTED_TOPICS).map((bucket) => ({
      label: bucket.key,
      href: urls.search(
        queryParams(
          { q: '', filters: emptyFilters(), page: 1 },
          { filters: { ...emptyFilters(), topics: [bucket.key] } },
        ),
      ),
    })),
  })
  return layout(scope, meta, body, {
    noindex: query.q !== '' || filtered || query.page > 1,
    section: 'experts',
  })
}

/** A list page's query: the words and the page. */
export interface ListQuery {
  q: string
  page: number
}

/** The list page of posts or of Q&A items: a search box, the newest first (or the best matches), pages. */
export function listPage(
  scope: PageScope,
  section: 'posts' | 'questions',
  query: ListQuery,
  result: PostSearch | QuestionSearch,
) {
  const { urls, site } = scope
  const action = listUrls(urls)[section]
  const params = (page: number) => {
    const search = new URLSearchParams()
    if (query.q) search.set('q', query.q)
    if (page > 1) search.set('page', String(page))
    return search.size > 0 ? `${action}?${search}` : action
  }
  const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE))
  const noun = section === 'posts' ? ['post', 'posts'] : ['question', 'questions']
  const summary =
    result.total === 0
      ? `No ${noun[1]} found`
      : result.total === 1
        ? `1 ${noun[0]}`
        : `${result.total} ${noun[1]}`
  const items =
    'spotlights' in result
      ? result.spotlights.map((post) => ({
          title: post.title,
          href: urls.post(post.id),
          date: dateOf(post.published_date),
          summary: post.summary,
          people: post.tagged_experts.map(fullName),
          peopleLabel: 'Experts',
        }))
      : result.questions.map((question) => ({
          title: question.question,
          href: urls.question(question.id),
          date: dateOf(question.published_date),
          summary: '',
          people: question.answered_by.map(fullName),
          peopleLabel: 'Answered by',
        }))
  const title = section === 'posts' ? 'Posts' : 'Questions and answers'
  const description = `${title} by the experts of ${site.name}.`
  const url = params(query.page)
  const meta: PageMetadata = {
    title: `${title} | ${siteName(site)}`,
    description,
    keywords: undefined,
    canonicalUrl: url,
    image: site.logoUrl ?? undefined,
    openGraph: [
      ['og:type', 'website'],
      ['og:title', title],
      ['og:description', description],
      ['og:url', url],
      ['og:site_name', siteName(site)],
    ],
    twitter: [
      ['twitter:card', 'summary'],
      ['twitter:title', title],
      ['twitter:description', description],
    ],
    jsonLd: { '@context': 'https://schema.org', '@type': 'CollectionPage', name: title, url },
  }
  const body = render('list', {
    title,
    action,
    searchLabel: section === 'posts' ? 'Search the posts' : 'Search the questions',
    q: query.q,
    summary,
    items,
    page: query.page,
    pages,
    prevHref: query.page > 1 ? params(query.page - 1) : undefined,
    nextHref: query.page < pages ? params(query.page + 1) : undefined,
  })
  return layout(scope, meta, body, { noindex: query.q !== '' || query.page > 1, section })
}

export function emptyFilters(): Record<PageFacet, string[]> {
  return {
    topics: [],
    countries: [],
    industries: [],
    categories: [],
    media_available: [],
    interview_languages: [],
  }
}

/**
 * An error page (404, 400, 429...): a sentence the person can act on, and the way back. Inside a
 * directory it is that directory's page (its header, colours and a search box); elsewhere a plain one.
 */
export function errorPage(assets: string, title: string, message: string, scope?: PageScope): string {
  if (!scope) return render('errorLayout', { title, assets, body: render('error', { title, message }) })
  return layout(
    scope,
    { title: `${title} | ${siteName(scope.site)}` },
    render('error', { title, message, homeUrl: scope.urls.home }),
    { noindex: true },
  )
}

/** The page around a contact form outside the expert page: a refusal, a thank-you, another kind. */
export function contactPage(
  scope: PageScope,
  view: { name: string; expertHref: string; title: string; message?: string; form?: string },
): string {
  const meta: PageMetadata = {
    title: `${view.title} | ${siteName(scope.site)}`,
    description: `Contact ${view.name} at ${scope.site.name}.`,
    keywords: undefined,
    canonicalUrl: view.expertHref,
    image: undefined,
    openGraph: [],
    twitter: [],
    jsonLd: { '@context': 'https://schema.org', '@type': 'ContactPage', name: view.title },
  }
  return layout(scope, meta, render('contactPage', view), { noindex: true, section: 'experts' })
}

/** Reason kinds as a page names them, in the order it shows them. */
const REASON_TITLES = [
  ['concept', 'Works on'],
  ['coauthor', 'Wrote with them'],
  ['term', 'Words in common'],
] as const

/** A found expert as the story page and the similar experts show it: the card and its reasons by kind. */
function matchCards(urls: DirectoryUrls, experts: readonly SimilarExpertData[]) {
  return experts.map((expert) => ({
    name: fullName(expert),
    href: urls.expert(expert.username),
    role: expert.job_title,
    avatar: urls.media(expert.avatar.medium || undefined),
    reasons: REASON_TITLES.flatMap(([kind, title]) => {
      const labels = expert.reasons.filter((reason) => reason.kind === kind).map((reason) => reason.label)
      return labels.length > 0 ? [{ title, labels }] : []
    }),
  }))
}

/** The expert page's "Similar experts" section; empty when there are none. */
export function similarSection(urls: DirectoryUrls, experts: readonly SimilarExpertData[]): string {
  return render('similar', { experts: matchCards(urls, experts) })
}

/** What the story page shows: the text as sent, and the experts found for it (none before a search). */
export interface StoryView {
  text: string
  maxText: number
  experts?: readonly SimilarExpertData[]
  error?: string
}

/** The "describe your story" page: a text in, the experts whose work is closest to it out. */
export function storyPage(scope: PageScope, view: StoryView) {
  const { urls, site } = scope
  const experts = matchCards(urls, view.experts ?? [])
  const summary =
    experts.length === 0
      ? 'No experts found for this text'
      : `${experts.length === 1 ? '1 expert' : `${experts.length} experts`} for this text`
  const body = render('story', {
    // The answer opens at its results, below a form that fills a phone's screen.
    action: `${storyUrl(urls)}#results`,
    searchHref: urls.home,
    text: view.text,
    maxText: view.maxText,
    error: view.error,
    searched: view.experts !== undefined,
    summary,
    experts,
  })
  return layout(scope, { title: `Describe your story | ${siteName(site)}` }, body, {
    noindex: view.experts !== undefined || view.error !== undefined,
    section: 'story',
  })
}
