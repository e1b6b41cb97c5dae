import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { CONTENT_API } from '../content/kinds.js'
import { absoluteMediaUrl } from '../storage/keys.js'

/** The service's public base URL: `EXPERTDIR_PUBLIC_URL`, else the request's own scheme and host. */
export function baseUrlOf(config: Config, request: FastifyRequest): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`
}

/**
 * The request headers the directory's absolute URLs (canonical links, sitemaps, form actions, the page
 * policy) come from, for `Vary`: none with `EXPERTDIR_PUBLIC_URL`; else `Host`, and behind a trusted
 * proxy the forwarded host and protocol, so that a shared cache never serves one host's page to another.
 */
export function hostVary(config: Pick<Config, 'publicUrl' | 'trustProxy'>): string | undefined {
  if (config.publicUrl) return undefined
  return config.trustProxy ? 'Host, X-Forwarded-Host, X-Forwarded-Proto' : 'Host'
}

/** Adds `vary` to the response's `Vary` header, keeping what it already names. */
export function addVary(reply: FastifyReply, vary: string): void {
  const current = reply.getHeader('vary')
  const named = typeof current === 'string' && current !== '' ? current.split(/\s*,\s*/) : []
  const added = vary
    .split(/\s*,\s*/)
    .filter((name) => !named.some((n) => n.toLowerCase() === name.toLowerCase()))
  reply.header('vary', [...named, ...added].join(', '))
}

/** Absolute URLs of one organization's directory. */
export function directoryUrls(base: string, orgId: number) {
  const root = `${base}/directory/${orgId}`
  const query = (params: URLSearchParams) => (params.size > 0 ? `?${params}` : '')
  return {
    base,
    assets: `${base}/directory/assets`,
    home: `${root}/`,
    search: (params: URLSearchParams) => `${root}/${query(params)}`,
    expert: (username: string) => `${root}/${encodeURIComponent(username)}`,
    contact: (username: string, kind?: string) =>
      `${root}/${encodeURIComponent(username)}/contact${kind ? `?kind=${encodeURIComponent(kind)}` : ''}`,
    post: (id: number) => `${root}/${CONTENT_API.spotlight.path}/${id}`,
    question: (id: number) => `${root}/${CONTENT_API.question.path}/${id}`,
    /** The organization's media availability calendar, or one expert's. */
    calendar: (username?: string) =>
      username === undefined
        ? `${root}/calendar.ics`
        : `${root}/${encodeURIComponent(username)}/calendar.ics`,
    mediaKit: (username: string, download = false) =>
      `${root}/${encodeURIComponent(username)}/media-kit${download ? '.zip' : ''}`,
    /** The Atom feed of posts and Q&A items, of a topic or an expert. */
    feed: (filter: { topic?: string; expert?: string } = {}) =>
      `${root}/feed.atom${query(new URLSearchParams(Object.entries(filter).filter(([, value]) => value !== undefined)))}`,
    sitemap: (page?: number) => `${root}/sitemap.xml${page ? `?page=${page}` : ''}`,
    theme: (version: number) => `${root}/theme.css?v=${version}`,
    /** A stored photo or file: a media reference gets this address (src/storage/keys.ts); a URL is kept. */
    media: (value: string | undefined) => (value === undefined ? undefined : absoluteMediaUrl(base, value)),
  }
}

export type DirectoryUrls = ReturnType<typeof directoryUrls>
