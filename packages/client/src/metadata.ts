import type { components } from './schema.js'

type Schemas = components['schemas']

/**
 * Everything a page's `<head>` needs, built from a profile, post or Q&A read (docs/page-metadata.md):
 * title, meta description, canonical URL, Open Graph and Twitter card tags, and JSON-LD.
 */
export interface PageMetadata {
  title: string
  description: string
  keywords: string | undefined
  canonicalUrl: string
  image: string | undefined
  /** `<meta property=...>` pairs in order; a key may repeat (`article:tag`). */
  openGraph: [string, string][]
  /** `<meta name=...>` pairs of the Twitter card. */
  twitter: [string, string][]
  /** schema.org JSON-LD: `Person`, `BlogPosting` or `QAPage`. */
  jsonLd: Record<string, unknown>
}

export interface PageOptions {
  /** The URL the site serves this page at (the canonical URL when the author set none). */
  url: string
  /** The site's name, for `og:site_name` and the fallback title. */
  siteName?: string
  /**
   * `seo` (default): the author's `seo.canonical_url` when set, else `url`. `url`: always `url`, for a
   * page that is the canonical copy itself (the service's own directory pages).
   */
  canonical?: 'seo' | 'url'
  /**
   * A profile's JSON-LD as a `ProfilePage` whose `mainEntity` is the `Person` (Google's profile-page
   * rich result), rather than the bare `Person`.
   */
  profilePage?: boolean
}

const DESCRIPTION_LENGTH = 160

const present = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value.trim() !== ''

/** Unix seconds as ISO 8601 without milliseconds. */
export function isoDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000', '')
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** The text of an HTML fragment: tags dropped, common entities decoded, white space collapsed. */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X'))
        return String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)))
      return ENTITIES[name.toLowerCase()] ?? entity
    })
    .replace(/\s+/g, ' ')
    .trim()
}

/** At most `length` characters, cut at a word boundary with an ellipsis. */
export function summarize(text: string, length = DESCRIPTION_LENGTH): string {
  if ([...text].length <= length) return text
  const cut = [...text].slice(0, length - 1).join('')
  const space = cut.lastIndexOf(' ')
  return `${(space > length / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

/** One `[name, content]` tag. */
const pair = (name: string, content: string): [string, string] => [name, content]

/** Drops undefined members and empty arrays, so JSON-LD carries only what is known. */
function compact(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).filter(
      ([, value]) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0),
    ),
  )
}

function card(title: string, description: string, image: string | undefined): [string, string][] {
  return [
    ['twitter:card', image ? 'summary_large_image' : 'summary'],
    ['twitter:title', title],
    ['twitter:description', description],
    ...(image ? [pair('twitter:image', image)] : []),
  ]
}

function openGraph(
  type: string,
  meta: { title: string; description: string; canonicalUrl: string; image: string | undefined },
  siteName: string | undefined,
): [string, string][] {
  const tags: [string, string][] = [
    ['og:type', type],
    ['og:title', meta.title],
    ['og:description', meta.description],
    ['og:url', meta.canonicalUrl],
  ]
  if (meta.image) tags.push(['og:image', meta.image])
  if (siteName) tags.push(['og:site_name', siteName])
  return tags
}

/** A profile page: `og:type` profile, JSON-LD `Person`. */
export function profileMetadata(profile: Schemas['Profile'], options: PageOptions): PageMetadata {
  const [account] = profile.account
  if (!account) throw new Error('The profile has no account element')
  const seo = profile.seo[0]
  const name = `${account.firstname} ${account.lastname}`.trim()
  const role = [account.job_title, account.company].filter(present).join(', ')
  const tagline = profile.tagline[0]?.tagline
  const biography = profile.biography[0]?.biography
  const avatar = profile.avatar
  const title = present(seo?.title)
    ? seo.title
    : [name, account.job_title].filter(present).join(' – ') +
      (options.siteName ? ` | ${options.siteName}` : '')
  const description = present(seo?.description)
    ? seo.description
    : summarize(present(tagline) ? tagline : present(biography) ? plainText(biography) : role)
  const image = [seo?.image, avatar.l.url, avatar.o.url, avatar.m.url].find(present)
  const canonicalUrl =
    options.canonical !== 'url' && present(seo?.canonical_url) ? seo.canonical_url : options.url
  const topics = profile.topic.map((topic) => topic.name)
  const social = profile.social[0]
  const sameAs = social
    ? [
        social.website,
        social.linkedin,
        social.twitter,
        social.github,
        social.facebook,
        social.instagram,
        social.youtube,
      ].filter(present)
    : []
  const keywords = present(seo?.keywords) ? seo.keywords : topics.length > 0 ? topics.join(', ') : undefined
  const meta = { title, description, canonicalUrl, image }
  const organization = profile.corporationprofile[0]
  const personJsonLd = compact({
    '@type': 'Person',
    name,
    givenName: account.firstname,
    familyName: account.lastname,
    jobTitle: present(account.job_title) ? account.job_title : undefined,
    worksFor: present(account.company) ? { '@type': 'Organization', name: account.company } : undefined,
    affiliation: organization
      ? compact({ '@type': 'Organization', name: organization.name, url: organization.website ?? undefined })
      : undefined,
    description,
    image,
    url: canonicalUrl,
    sameAs,
    knowsAbout: topics,
  })
  return {
    ...meta,
    keywords,
    openGraph: [
      ...openGraph('profile', meta, options.siteName),
      ['profile:first_name', account.firstname],
      ['profile:last_name', account.lastname],
      ['profile:username', account.username],
    ],
    twitter: card(title, description, image),
    jsonLd: options.profilePage
      ? {
          '@context': 'https://schema.org',
          '@type': 'ProfilePage',
          url: canonicalUrl,
          mainEntity: personJsonLd,
        }
      : { '@context': 'https://schema.org', ...personJsonLd },
  }
}

const person = (expert: { firstname: string; lastname: string; job_title?: string }) =>
  compact({
    '@type': 'Person',
    name: `${expert.firstname} ${expert.lastname}`.trim(),
    jobTitle: present(expert.job_title) ? expert.job_title : undefined,
  })

/** A post page, as docs/page-metadata.md maps it: `og:type` article, JSON-LD `BlogPosting`. */
export function postMetadata(read: Schemas['SpotlightRead'], options: PageOptions): PageMetadata {
  const [post] = read.spotlight
  const [seo] = read.seo
  if (!post || !seo) throw new Error('The post read has no spotlight or seo element')
  const canonicalUrl = options.canonical === 'url' ? options.url : (seo.canonical_url ?? options.url)
  const image = seo.image ?? post.featured_image ?? undefined
  const meta = { title: seo.title, description: seo.description, canonicalUrl, image }
  const tags = read.tags.map((tag) => tag.tag)
  return {
    ...meta,
    keywords: present(seo.keywords) ? seo.keywords : undefined,
    openGraph: [
      ...openGraph('article', meta, options.siteName),
      ...(post.published_date !== null ? [pair('article:published_time', isoDate(post.published_date))] : []),
      ['article:modified_time', isoDate(post.modified)],
      ...tags.map((tag) => pair('article:tag', tag)),
    ],
    twitter: card(seo.title, seo.description, image),
    jsonLd: compact({
      '@context': 'https://schema.org',
      '@type': 'BlogPosting',
      headline: post.title,
      description: seo.description,
      image,
      datePublished: post.published_date !== null ? isoDate(post.published_date) : undefined,
      dateModified: isoDate(post.modified),
      author: post.tagged_experts.map(person),
      keywords: tags,
      url: canonicalUrl,
      mainEntityOfPage: canonicalUrl,
    }),
  }
}

/** A Q&A page: `og:type` article, JSON-LD `QAPage` whose main entity is the question and its answers. */
export function questionMetadata(read: Schemas['QuestionRead'], options: PageOptions): PageMetadata {
  const [question] = read.question
  const [seo] = read.seo
  if (!question || !seo) throw new Error('The Q&A read has no question or seo element')
  const canonicalUrl = options.canonical === 'url' ? options.url : (seo.canonical_url ?? options.url)
  const image = seo.image ?? undefined
  const meta = { title: seo.title, description: seo.description, canonicalUrl, image }
  return {
    ...meta,
    keywords: present(seo.keywords) ? seo.keywords : undefined,
    openGraph: [
      ...openGraph('article', meta, options.siteName),
      ...read.tags.map((tag) => pair('article:tag', tag.tag)),
    ],
    twitter: card(seo.title, seo.description, image),
    jsonLd: {
      '@context': 'https://schema.org',
      '@type': 'QAPage',
      url: canonicalUrl,
      mainEntity: compact({
        '@type': 'Question',
        name: question.question,
        text: present(question.details) ? plainText(question.details) : question.question,
        answerCount: question.answers.length,
        dateCreated: isoDate(question.created),
        datePublished: question.published_date !== null ? isoDate(question.published_date) : undefined,
        suggestedAnswer: question.answers.map((answer) => ({
          '@type': 'Answer',
          text: plainText(answer.answer),
          dateCreated: isoDate(answer.created),
          author: person(answer),
        })),
      }),
    },
  }
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
  '<': '&lt;',
  '>': '&gt;',
}

/** Escapes text for an HTML attribute value or element content. */
export function escapeHtml(value: string): string {
  return value.replace(/[&"'<>]/g, (c) => HTML_ESCAPES[c] ?? c)
}

/**
 * JSON-LD as a `<script type="application/ld+json">` element. `<`, `>` and `&` are written as JSON
 * escapes, so no value (a title containing `</script>`, say) can end the element or start markup.
 */
export function jsonLdScript(jsonLd: Record<string, unknown>): string {
  const json = JSON.stringify(jsonLd).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )
  return `<script type="application/ld+json">${json}</script>`
}

/** The tags for a page's `<head>`, every value escaped, one per line. */
export function metadataHtml(meta: PageMetadata): string {
  const lines = [
    `<title>${escapeHtml(meta.title)}</title>`,
    `<meta name="description" content="${escapeHtml(meta.description)}">`,
    ...(meta.keywords ? [`<meta name="keywords" content="${escapeHtml(meta.keywords)}">`] : []),
    `<link rel="canonical" href="${escapeHtml(meta.canonicalUrl)}">`,
    ...meta.openGraph.map(
      ([key, value]) => `<meta property="${escapeHtml(key)}" content="${escapeHtml(value)}">`,
    ),
    ...meta.twitter.map(([key, value]) => `<meta name="${escapeHtml(key)}" content="${escapeHtml(value)}">`),
    jsonLdScript(meta.jsonLd),
  ]
  return lines.join('\n')
}
