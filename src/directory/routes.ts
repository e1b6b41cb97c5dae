import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AppContext } from '../app-context.js'
import { addressKey } from '../auth/failure-limit.js'
import { CONTENT_API } from '../content/kinds.js'
import { CONTENT_KIND_NAMES, CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import { profileVisibleTo } from '../derived/audience.js'
import type { DocumentLookup } from '../derived/read-documents.js'
import { ApiError } from '../errors.js'
import { findRenamedExpert } from '../experts/repository.js'
import { refusedMethod } from '../http/allowed-methods.js'
import { ok, Success } from '../http/envelope.js'
import { sendError, toApiError } from '../http/error-handler.js'
import { etagOf, matchesEtag } from '../http/etag.js'
import { VersionedCache } from '../kept-reads/result-cache.js'
import { MAX_TEXT } from '../meaning/schemas.js'
import { matchExperts, similarExperts } from '../meaning/service.js'
import { parseQueryString } from '../search/query-string.js'
import { searchExperts, searchQuestions, searchSpotlights } from '../search/service.js'
import { propertyOf } from '../validation/guards.js'
import type { AddressLimit } from './address-limits.js'
import { type Asset, SCRIPT_ASSET, STYLESHEET_ASSET, themeStylesheet, WIDGET_ASSET } from './assets.js'
import { availableExperts, calendarIcs, expertCalendarData, expertModified } from './calendar.js'
import { type ContactHandler, contactHandler } from './contact.js'
import { readPost, readPublicProfile, readQuestion } from './documents.js'
import { FEED_ITEMS, type FeedFilter, feedAtom, feedQuery } from './feed.js'
import { directoryLookups } from './lookups.js'
import { mediaKitView, mediaKitZip } from './media-kit.js'
import {
  emptyFilters,
  errorPage,
  expertPage,
  listPage,
  mediaKitPage,
  PAGE_FACETS,
  PAGE_SIZE,
  type PageQuery,
  type PageScope,
  postPage,
  questionPage,
  searchPage,
  similarSection,
  storyPage,
} from './pages.js'
import { WidgetProfile, WidgetSearch, widgetProfile, widgetSearch } from './public-api.js'
import { type DirectorySite, listDirectoryIds } from './site.js'
import { sitemapXml } from './sitemap.js'
import { addVary, baseUrlOf, directoryUrls, hostVary } from './urls.js'

/**
 * The public directory (CONTRACT §18): server-rendered pages under `/directory/:corporation/`, their
 * sitemap and `/robots.txt`, the contact form, and the widget with the public JSON it reads. Nothing
 * here needs a token: every read goes through the `read:public` narrowing (src/derived/audience.ts).
 *
 * Rendered pages are kept in the process under the versions of what they show (the record's
 * `doc_version`, the organization's `profile_version`, the search index version), read in the query
 * that finds the record: a write raises a version in its own transaction, so the next request renders
 * afresh in every process, and a request for an unchanged page costs the lookups an API read costs.
 */

export interface DirectoryOptions {
  contactLimit: AddressLimit
  storyLimit: AddressLimit
}

interface OrgParams {
  corporation: string
}
interface ExpertParams extends OrgParams {
  username: string
}
interface ItemParams extends OrgParams {
  id: string
}

const ERROR_TITLES: Record<number, string> = {
  400: 'This request cannot be answered',
  404: 'Page not found',
  405: 'Not allowed',
  409: 'Already sent',
  413: 'Too large',
  415: 'Not accepted',
  429: 'Too many requests',
  503: 'Unavailable',
}

const MAX_QUERY_LENGTH = 200
const MAX_FILTER_VALUES = 20
/** The API's deepest page (`page_from` at most 10,000) in pages of the find-an-expert page. */
const MAX_PAGE = 1001
const WIDGET_MAX_PAGE_SIZE = 20
/** Similar experts an expert page shows at most. */
const SIMILAR_EXPERTS = 5
/** Experts the story page shows at most. */
const STORY_EXPERTS = 10

const READ: readonly string[] = ['GET', 'HEAD']
/** The pages' paths and their methods. */
const PAGE_METHODS: [string, readonly string[]][] = [
  ['/:corporation', READ],
  ['/:corporation/', READ],
  ['/:corporation/story/', [...READ, 'POST']],
  ['/:corporation/:username', READ],
  ['/:corporation/:username/contact', [...READ, 'POST']],
  ['/:corporation/calendar.ics', READ],
  ['/:corporation/feed.atom', READ],
  ['/:corporation/:username/calendar.ics', READ],
  ['/:corporation/:username/media-kit', READ],
  ['/:corporation/:username/media-kit.zip', READ],
  ...CONTENT_KIND_NAMES.map((kind): [string, readonly string[]] => [
    `/:corporation/${CONTENT_API[kind].path}/`,
    READ,
  ]),
  ...CONTENT_KIND_NAMES.map((kind): [string, readonly string[]] => [
    `/:corporation/${CONTENT_API[kind].path}/:id`,
    READ,
  ]),
]

/** A 404 whose message is the page's sentence (the error page adds the way back). */
const missing = (message: string) => new ApiError('not_found', message)
const ITEM_GONE = {
  Post: 'This post is not in the directory: it may have been unpublished or removed.',
  Question: 'This question is not in the directory: it may have been unpublished or removed.',
}
const NO_DIRECTORY = 'There is no expert directory at this address. Please check the address.'

const isId = (value: string) => /^[1-9][0-9]{0,15}$/.test(value) && Number(value) <= Number.MAX_SAFE_INTEGER

function pageCsp(request: FastifyRequest, base: string): string {
  const self = `'self' ${new URL(base).origin}`
  return [
    "default-src 'none'",
    `script-src ${self}`,
    `style-src ${self}`,
    `img-src ${self} https: data:`,
    `connect-src ${self}`,
    `form-action ${self}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...(request.protocol === 'https' ? ['upgrade-insecure-requests'] : []),
  ].join('; ')
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  reply.header('etag', asset.etag).header('cache-control', 'public, max-age=3600')
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send()
  return reply.type(asset.type).send(asset.body)
}

const badQuery = (message: string) => new ApiError('validation_failed', message)

/** The find-an-expert query of a page URL; unknown parameters (`utm_source`...) are ignored. */
function pageQuery(url: string): PageQuery {
  const facets = new Set(PAGE_FACETS.map(([facet]) => facet))
  const { query } = parseQueryString(url, facets)
  const single = (name: string) => {
    const value = query[name]
    if (Array.isArray(value)) throw badQuery(`The search address names "${name}" more than once.`)
    return value ?? ''
  }
  const q = single('q').trim()
  if ([...q].length > MAX_QUERY_LENGTH)
    throw badQuery(`The search text is too long: use at most ${MAX_QUERY_LENGTH} characters.`)
  const rawPage = single('page') || '1'
  if (!isId(rawPage) || Number(rawPage) > MAX_PAGE)
    throw badQuery(`"page" must be a page number from 1 to ${MAX_PAGE}.`)
  const filters = emptyFilters()
  for (const [facet] of PAGE_FACETS) {
    const given = query[facet]
    const values = (Array.isArray(given) ? given : given === undefined ? [] : [given]).filter((v) => v !== '')
    if (values.length > MAX_FILTER_VALUES || values.some((v) => [...v].length > MAX_QUERY_LENGTH))
      throw badQuery(`Too many or too long "${facet}" filters.`)
    filters[facet] = values
  }
  return { q, filters, page: Number(rawPage) }
}

function searchInput(query: PageQuery, pageSize = PAGE_SIZE) {
  const { media_available: media, ...filters } = query.filters
  return {
    ...(query.q ? { q: query.q } : {}),
    ...filters,
    // The one value of the media filter: anything else in an address asks for nothing.
    ...(media.includes('1') ? { media_available: 1 } : {}),
    page_size: pageSize,
    page_from: (query.page - 1) * pageSize,
  }
}

export async function directoryRoutes(
  app: FastifyInstance,
  context: AppContext,
  options: DirectoryOptions,
): Promise<void> {
  const { db, config } = context
  const target = { db, dialect: context.database.dialect }
  const rendered = new VersionedCache(1_000)
  const lookups = directoryLookups(context.database)
  const vary = hostVary(config)
  if (vary) app.addHook('onSend', async (_request, reply) => addVary(reply, vary))
  /** The directory a request was found to be in, so that its error page is that directory's page. */
  const scopes = new WeakMap<FastifyRequest, PageScope>()
  // Pages, not API operations: the OpenAPI document describes /v2 (and its own public endpoints) only.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true }
  })

  /** The organization's directory and its URLs; a 404 when it is unknown or its directory is off. */
  async function scopeOf(request: FastifyRequest<{ Params: OrgParams }>): Promise<PageScope> {
    return scopeWith(request, await viewOf(request, (orgId) => lookups.site(orgId)))
  }

  /** What `lookup` finds for the organization of the request's path; undefined for a path that is no id. */
  function viewOf<T>(
    request: FastifyRequest<{ Params: OrgParams }>,
    lookup: (orgId: number) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const { corporation } = request.params
    return isId(corporation) ? lookup(Number(corporation)) : Promise.resolve(undefined)
  }

  function scopeWith(request: FastifyRequest, site: DirectorySite | undefined): PageScope {
    if (!site) throw missing(NO_DIRECTORY)
    const scope = { site, urls: directoryUrls(baseUrlOf(config, request), site.id) }
    scopes.set(request, scope)
    return scope
  }

  /** The expert `username` when the public may see it; a renamed one's new name; else a 404. */
  async function visibleExpert(
    scope: PageScope,
    username: string,
  ): Promise<{ found: DocumentLookup } | { renamedTo: string }> {
    return foundOrRenamed(scope, username, await lookups.expert(scope.site.id, username))
  }

  /** `visibleExpert` for a lookup already made: its result, else the expert's new name, else a 404. */
  async function foundOrRenamed(
    scope: PageScope,
    username: string,
    found: DocumentLookup | undefined,
  ): Promise<{ found: DocumentLookup } | { renamedTo: string }> {
    if (found) return { found }
    const renamed = await findRenamedExpert(db, scope.site.id, username)
    if (renamed && profileVisibleTo('public', renamed)) return { renamedTo: renamed.username }
    throw missing(
      `No expert “${username}” is listed in this directory: the profile may have been renamed or removed.`,
    )
  }

  const contact: ContactHandler = contactHandler(context, options.contactLimit, visibleExpert)

  app.get('/robots.txt', async (request, reply) => {
    const base = baseUrlOf(config, request)
    const sitemaps = (await listDirectoryIds(db)).map((id) => `Sitemap: ${directoryUrls(base, id).sitemap()}`)
    const lines = [
      'User-agent: *',
      'Allow: /directory/',
      'Disallow: /directory/*/contact',
      'Disallow: /v2/',
      'Disallow: /admin/',
      'Disallow: /auth/',
      '',
      ...sitemaps,
    ]
    return reply
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(`${lines.join('\n')}\n`)
  })

  await app.register(
    async (directory) => {
      directory.setNotFoundHandler(async (request, reply) => {
        // A known path with another method is the API's 405, in JSON (see `methodNotAllowed`).
        const refused = refusedMethod(request)
        if (refused) return sendError(toApiError(refused), request, reply)
        const base = baseUrlOf(config, request)
        // Inside a directory that is on, the 404 is that directory's page, with its way back.
        const orgId = /^\/directory\/([^/?#]+)\//.exec(request.url)?.[1] ?? ''
        const site = isId(orgId) ? await lookups.site(Number(orgId)) : undefined
        const scope = site && { site, urls: directoryUrls(base, site.id) }
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(
            errorPage(
              `${base}/directory/assets`,
              ERROR_TITLES[404] ?? '',
              scope ? 'There is no page at this address in this directory.' : NO_DIRECTORY,
              scope,
            ),
          )
      })
      await directory.register(async (pages) => pageRoutes(pages))
      await directory.register(async (api) => widgetRoutes(api))
    },
    { prefix: '/directory' },
  )

  function pageRoutes(pages: FastifyInstance) {
    pages.addHook('onRequest', async (request, reply) => {
      reply.header('content-security-policy', pageCsp(request, baseUrlOf(config, request)))
    })
    pages.setErrorHandler((error, request, reply) => {
      const apiError = toApiError(error instanceof Error ? error : new Error(String(error)), config.bodyLimit)
      if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed')
      if (apiError.headers) reply.headers(apiError.headers)
      const base = baseUrlOf(config, request)
      const title = ERROR_TITLES[apiError.statusCode] ?? 'Something went wrong'
      const message =
        apiError.code === 'not_found'
          ? apiError.message
          : apiError.statusCode >= 500
            ? `The page could not be shown; please try again shortly (request ${request.id}).`
            : [apiError.message, ...(apiError.details ?? []).map((d) => `${d.field}: ${d.message}.`)].join(
                ' ',
              )
      return reply
        .code(apiError.statusCode)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(errorPage(`${base}/directory/assets`, title, message, scopes.get(request)))
    })

    /** Pages are kept as bytes: a kept string would be encoded again for every response. */
    const html = (reply: FastifyReply, body: Buffer) =>
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(body)

    pages.get('/assets/directory.css', (request, reply) => sendAsset(request, reply, STYLESHEET_ASSET))
    pages.get('/assets/directory.js', (request, reply) => sendAsset(request, reply, SCRIPT_ASSET))

    pages.get<{ Params: OrgParams }>('/:corporation', async (request, reply) => {
      const scope = await scopeOf(request)
      return reply.redirect(scope.urls.home, 301)
    })

    pages.get<{ Params: OrgParams }>('/:corporation/', async (request, reply) => {
      const view = await viewOf(request, (orgId) => lookups.searchView(orgId))
      const scope = scopeWith(request, view?.site)
      const query = pageQuery(request.raw.url ?? '')
      return html(reply, await renderedSearch(scope, query, view?.searchVersion ?? 0))
    })

    // Posts and Q&A items, newest first or by a search: rendered for each request (their searches are
    // not versioned as the experts' are), so never stale.
    for (const section of ['posts', 'questions'] as const) {
      pages.get<{ Params: OrgParams }>(
        section === 'posts' ? '/:corporation/spotlight/' : '/:corporation/qanda/',
        async (request, reply) => {
          const scope = await scopeOf(request)
          const { q, page } = pageQuery(request.raw.url ?? '')
          const input = { ...(q ? { q } : {}), page_size: PAGE_SIZE, page_from: (page - 1) * PAGE_SIZE }
          const result =
            section === 'posts'
              ? await searchSpotlights(target, scope.site.id, input, 'public')
              : await searchQuestions(target, scope.site.id, input, 'public')
          return reply
            .type('text/html; charset=utf-8')
            .header('cache-control', 'no-cache')
            .send(listPage(scope, section, { q, page }, result))
        },
      )
    }

    // "Describe your story": the form, and a POST with the text (too long for an address). The POST is a
    // read that stores nothing, so it needs no form token; its limits are the text's length, the body's
    // and a number of searches per address and minute (it ranks every expert: the pages' costly read).
    pages.get<{ Params: OrgParams }>('/:corporation/story/', async (request, reply) => {
      const scope = await scopeOf(request)
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(storyPage(scope, { text: '', maxText: MAX_TEXT }))
    })
    pages.post<{ Params: OrgParams }>('/:corporation/story/', async (request, reply) => {
      const scope = await scopeOf(request)
      const given = propertyOf(request.body, 'text')
      const text = typeof given === 'string' ? given : ''
      const length = [...text].length
      const error =
        text.trim() === ''
          ? 'Paste or type your story first: a few sentences, an abstract or a press release.'
          : length > MAX_TEXT
            ? `The text has ${length.toLocaleString('en')} characters; use at most ${MAX_TEXT.toLocaleString('en')} (shorten it or keep its main part).`
            : undefined
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store')
      if (error) return reply.code(400).send(storyPage(scope, { text, maxText: MAX_TEXT, error }))
      const wait = await options.storyLimit.take(addressKey(request.ip))
      if (wait !== undefined) {
        const seconds = Math.max(1, Math.ceil(wait / 1000))
        return reply
          .code(429)
          .header('retry-after', String(seconds))
          .send(
            storyPage(scope, {
              text,
              maxText: MAX_TEXT,
              error: `Many searches have come from your address in a short time. Please try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
            }),
          )
      }
      const experts = await matchExperts(db, scope.site.id, text, 'public', STORY_EXPERTS, context.embeddings)
      return reply.send(storyPage(scope, { text, maxText: MAX_TEXT, experts }))
    })

    pages.get<{ Params: OrgParams }>('/:corporation/theme.css', async (request, reply) => {
      const { site } = await scopeOf(request)
      reply.header('cache-control', 'public, max-age=300')
      return reply
        .type('text/css; charset=utf-8')
        .send(themeStylesheet({ brand: site.brandColor, accent: site.accentColor }))
    })

    pages.get<{ Params: OrgParams }>('/:corporation/sitemap.xml', async (request, reply) => {
      const scope = await scopeOf(request)
      const page = propertyOf(request.query, 'page')
      if (page !== undefined && (typeof page !== 'string' || !isId(page)))
        throw missing('There is no such sitemap page.')
      const xml = await sitemapXml(
        db,
        scope.site.id,
        scope.urls,
        page === undefined ? undefined : Number(page),
        config.directorySitemapUrls,
      )
      if (xml === undefined) throw missing('There is no such sitemap page.')
      return reply.type('application/xml; charset=utf-8').header('cache-control', 'no-cache').send(xml)
    })

    pages.get<{ Params: ExpertParams }>('/:corporation/:username', async (request, reply) => {
      const { username } = request.params
      const view = await viewOf(request, (orgId) => lookups.expertView(orgId, username))
      const scope = scopeWith(request, view?.site)
      const expert = await foundOrRenamed(scope, username, view?.found)
      if ('renamedTo' in expert) return reply.redirect(scope.urls.expert(expert.renamedTo), 308)
      const { found } = expert
      const kind = contact.defaultKind(scope)
      // The notification settings too: the contact form says who receives a message. The search version
      // too: the similar experts it shows depend on every expert (src/derived/changes.ts raises it).
      const key = `expert:${scope.site.id}:${found.id}:${found.version}:${scope.site.version}:${view?.searchVersion ?? 0}:${scope.site.notifications}:${scope.urls.base}`
      const page = await rendered.get(key, async () => {
        const profile = await readPublicProfile(db, scope.site.id, request.params.username, found)
        const shown = profile.account[0]?.username ?? request.params.username
        const similar = await similarExperts(
          db,
          scope.site.id,
          shown,
          'public',
          SIMILAR_EXPERTS,
          context.embeddings,
        )
        const { form, marker } = await contact.formWithMarker(scope, profile, kind)
        const [before = '', after = ''] = expertPage(
          scope,
          profile,
          { similar: similarSection(scope.urls, similar), form },
          contact.otherKinds(scope, profile, kind),
        ).split(marker)
        return { before: Buffer.from(before), after: Buffer.from(after), username: shown }
      })
      const token = await contact.token(scope, page.username, kind)
      return html(reply, Buffer.concat([page.before, Buffer.from(token), page.after]))
    })

    /** A calendar or a media kit download, with its ETag (a hash of its bytes: the same data, the same bytes). */
    function sendFile(request: FastifyRequest, reply: FastifyReply, body: Buffer, type: string) {
      const etag = etagOf(body)
      reply.header('etag', etag).header('cache-control', 'no-cache')
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send()
      return reply.type(type).send(body)
    }
    const CALENDAR_TYPE = 'text/calendar; charset=utf-8'
    const calendarScope = (scope: PageScope, name: string) => ({
      name,
      host: new URL(scope.urls.base).host,
      expertUrl: scope.urls.expert,
    })

    // The media desk's calendars (CONTRACT §22): kept under the versions of what they show, as the pages are.
    pages.get<{ Params: OrgParams }>('/:corporation/calendar.ics', async (request, reply) => {
      const view = await viewOf(request, (orgId) => lookups.searchView(orgId))
      const scope = scopeWith(request, view?.site)
      const key = `calendar:${scope.site.id}:${scope.site.version}:${view?.searchVersion ?? 0}:${scope.urls.base}`
      const body = await rendered.get(key, async () =>
        Buffer.from(
          await calendarIcs(
            calendarScope(scope, `${scope.site.name}: experts available for media`),
            await availableExperts(db, scope.site.id),
          ),
        ),
      )
      return sendFile(request, reply, body, CALENDAR_TYPE)
    })

    // The Atom feed of posts and Q&A items (CONTRACT §22): read for each request, as their lists are, with
    // an ETag of its bytes so that a feed reader's poll of an unchanged feed is a 304.
    pages.get<{ Params: OrgParams }>('/:corporation/feed.atom', async (request, reply) => {
      const scope = await scopeOf(request)
      const { topic, expert: username } = feedQuery(request.raw.url ?? '')
      let expert: FeedFilter['expert']
      if (username !== undefined) {
        const found = await visibleExpert(scope, username)
        if ('renamedTo' in found) return reply.redirect(scope.urls.feed({ expert: found.renamedTo }), 308)
        const names = await db
          .selectFrom('experts')
          .select(['firstname', 'lastname'])
          .where('org_id', '=', scope.site.id)
          .where('id', '=', found.found.id)
          .executeTakeFirstOrThrow()
        expert = { username, name: `${names.firstname} ${names.lastname}`.trim() }
      }
      const page = { page_size: FEED_ITEMS, page_from: 0 }
      const tags = topic !== undefined ? { tags: [topic] } : {}
      const [posts, questions] = await Promise.all([
        searchSpotlights(
          target,
          scope.site.id,
          { ...page, ...tags, ...(username ? { tagged: [username] } : {}) },
          'public',
        ),
        searchQuestions(
          target,
          scope.site.id,
          { ...page, ...tags, ...(username ? { answered_by: [username] } : {}) },
          'public',
        ),
      ])
      const filter = { ...(topic !== undefined ? { topic } : {}), ...(expert ? { expert } : {}) }
      const self = scope.urls.feed({ topic, expert: username })
      const body = Buffer.from(feedAtom(scope, self, filter, posts, questions))
      return sendFile(request, reply, body, 'application/atom+xml; charset=utf-8')
    })

    /** The expert of an expert's file, its data read afresh only when not kept; a renamed one's new address. */
    async function expertFile(
      request: FastifyRequest<{ Params: ExpertParams }>,
      reply: FastifyReply,
      what: { kept: string; url: (scope: PageScope, username: string) => string },
      build: (scope: PageScope, found: DocumentLookup) => Promise<Buffer>,
    ): Promise<Buffer | undefined> {
      const { username } = request.params
      const view = await viewOf(request, (orgId) => lookups.expertView(orgId, username))
      const scope = scopeWith(request, view?.site)
      const expert = await foundOrRenamed(scope, username, view?.found)
      if ('renamedTo' in expert) {
        await reply.redirect(what.url(scope, expert.renamedTo), 308)
        return undefined
      }
      const { found } = expert
      const key = `${what.kept}:${scope.site.id}:${found.id}:${found.version}:${scope.site.version}:${scope.urls.base}`
      return rendered.get(key, () => build(scope, found))
    }

    pages.get<{ Params: ExpertParams }>('/:corporation/:username/calendar.ics', async (request, reply) => {
      const body = await expertFile(
        request,
        reply,
        { kept: 'expert-calendar', url: (scope, username) => scope.urls.calendar(username) },
        async (scope, found) => {
          const data = await expertCalendarData(db, scope.site.id, found.id)
          if (!data) throw missing('This expert is no longer listed in this directory.')
          const name = `${data.expert.firstname} ${data.expert.lastname}`.trim()
          return Buffer.from(
            await calendarIcs(
              calendarScope(scope, `${name}: media availability and appearances`),
              [data.expert],
              data.appearances.map((appearance) => ({ expert: data.expert, appearance })),
            ),
          )
        },
      )
      return body === undefined ? reply : sendFile(request, reply, body, CALENDAR_TYPE)
    })

    pages.get<{ Params: ExpertParams }>('/:corporation/:username/media-kit', async (request, reply) => {
      const body = await expertFile(
        request,
        reply,
        { kept: 'media-kit', url: (scope, username) => scope.urls.mediaKit(username) },
        async (scope, found) => {
          const profile = await readPublicProfile(db, scope.site.id, request.params.username, found)
          return Buffer.from(mediaKitPage(scope, mediaKitView(profile, scope.urls)))
        },
      )
      return body === undefined ? reply : html(reply, body)
    })

    pages.get<{ Params: ExpertParams }>('/:corporation/:username/media-kit.zip', async (request, reply) => {
      const body = await expertFile(
        request,
        reply,
        { kept: 'media-kit-zip', url: (scope, username) => scope.urls.mediaKit(username, true) },
        async (scope, found) => {
          const profile = await readPublicProfile(db, scope.site.id, request.params.username, found)
          const [account] = profile.account
          const modified = await expertModified(db, scope.site.id, found.id)
          return mediaKitZip(profile, context.storage, scope.urls.expert(account?.username ?? ''), modified)
        },
      )
      if (body === undefined) return reply
      reply.header(
        'content-disposition',
        `attachment; filename="${request.params.username.replace(/[^a-z0-9-]/g, '')}-media-kit.zip"`,
      )
      return sendFile(request, reply, body, 'application/zip')
    })

    pages.get<{ Params: ExpertParams }>('/:corporation/:username/contact', async (request, reply) =>
      contact.showForm(request, reply, await scopeOf(request)),
    )
    pages.post<{ Params: ExpertParams }>('/:corporation/:username/contact', async (request, reply) =>
      contact.submit(request, reply, await scopeOf(request)),
    )

    /** Each kind's page: the word its rendered pages are kept under, and how it renders. */
    const ITEM_PAGES: Record<
      ContentKind,
      { keptAs: string; render(scope: PageScope, id: number, found: DocumentLookup): Promise<string> }
    > = {
      spotlight: {
        keptAs: 'post',
        render: async (scope, id, found) => postPage(scope, await readPost(db, scope.site.id, id, found)),
      },
      question: {
        keptAs: 'question',
        render: async (scope, id, found) =>
          questionPage(scope, await readQuestion(db, scope.site.id, id, found)),
      },
    }
    for (const kind of CONTENT_KIND_NAMES) {
      const { noun } = CONTENT_KINDS[kind]
      const page = ITEM_PAGES[kind]
      pages.get<{ Params: ItemParams }>(
        `/:corporation/${CONTENT_API[kind].path}/:id`,
        async (request, reply) => {
          const id = await itemIdOf(request, noun)
          const view = await viewOf(request, (orgId) => lookups.contentView(kind, orgId, id))
          const scope = scopeWith(request, view?.site)
          const found = view?.found
          if (!found) throw missing(ITEM_GONE[noun])
          const key = `${page.keptAs}:${scope.site.id}:${id}:${found.version}:${scope.site.version}:${scope.urls.base}`
          return html(
            reply,
            await rendered.get(key, async () => Buffer.from(await page.render(scope, id, found))),
          )
        },
      )
    }

    // Any other method on a page is a 405 page with `Allow` (the API's own fallback answers in JSON).
    for (const [url, allowed] of PAGE_METHODS) {
      const allow = allowed.join(', ')
      pages.route({
        method: pages.supportedMethods.filter((method) => !allowed.includes(method) && method !== 'OPTIONS'),
        url,
        config: { catchAll: true },
        handler: async (request) => {
          throw new ApiError('method_not_allowed', `${request.method} is not allowed here; use ${allow}.`, {
            headers: { allow },
          })
        },
      })
    }
  }

  /** The path's item id; else a 404: the directory's when it is unknown or off, the item's otherwise. */
  async function itemIdOf(
    request: FastifyRequest<{ Params: ItemParams }>,
    what: keyof typeof ITEM_GONE,
  ): Promise<number> {
    const raw = request.params.id
    if (isId(raw)) return Number(raw)
    await scopeOf(request)
    throw missing(ITEM_GONE[what])
  }

  /**
   * The search page's HTML, kept under what it shows: the organization's version, the search version
   * (raised by every change to its experts, list entries included: src/derived/changes.ts), the query.
   * The search runs only to render a page not kept; it reads data at least as new as `searchVersion`.
   */
  function renderedSearch(scope: PageScope, query: PageQuery, searchVersion: number): Promise<Buffer> {
    const key = `search:${scope.site.id}:${scope.site.version}:${searchVersion}:${scope.urls.base}:${JSON.stringify(query)}`
    return rendered.get(key, async () => {
      const result = await searchExperts(target, scope.site.id, searchInput(query), 'public')
      // An empty search suggests the directory's most frequent topics.
      const popular =
        result.total === 0
          ? await searchExperts(target, scope.site.id, { page_size: 1, page_from: 0 }, 'public')
          : undefined
      return Buffer.from(searchPage(scope, query, result, popular))
    })
  }

  /**
   * The widget's script and the public JSON it reads, for any origin: no credentials are involved
   * (`Access-Control-Allow-Origin: *` never lets a browser send cookies), and only simple `GET`s are
   * needed, so no preflight is answered.
   */
  function widgetRoutes(api: FastifyInstance) {
    api.addHook('onRequest', async (_request, reply) => {
      reply.header('access-control-allow-origin', '*').header('cross-origin-resource-policy', 'cross-origin')
    })

    api.get('/widget.js', (request, reply) => sendAsset(request, reply, WIDGET_ASSET))

    api.get<{ Params: OrgParams }>(
      '/:corporation/api/experts',
      { schema: { response: { 200: Success(WidgetSearch) } } },
      async (request, reply) => {
        const scope = await scopeOf(request)
        const query = pageQuery(request.raw.url ?? '')
        const page_size = propertyOf(request.query, 'page_size')
        const size = page_size === undefined ? PAGE_SIZE : Number(page_size)
        if (!Number.isInteger(size) || size < 1 || size > WIDGET_MAX_PAGE_SIZE)
          throw badQuery(`"page_size" must be from 1 to ${WIDGET_MAX_PAGE_SIZE}.`)
        const result = await searchExperts(target, scope.site.id, searchInput(query, size), 'public')
        reply.header('cache-control', 'no-cache')
        return ok(widgetSearch(result, scope.urls))
      },
    )

    api.get<{ Params: ExpertParams }>(
      '/:corporation/api/experts/:username',
      { schema: { response: { 200: Success(WidgetProfile) } } },
      async (request, reply) => {
        const scope = await scopeOf(request)
        const expert = await visibleExpert(scope, request.params.username)
        if ('renamedTo' in expert)
          return reply.redirect(`${scope.urls.home}api/experts/${expert.renamedTo}`, 308)
        const profile = await readPublicProfile(db, scope.site.id, request.params.username, expert.found)
        reply.header('cache-control', 'no-cache')
        return ok(widgetProfile(profile, scope.urls))
      },
    )
  }
}
