import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.js'
import { absoluteMediaUrl } from '../storage/keys.js'

/** The service's public base URL: `EXPERTDIR_PUBLIC_URL`, else the request's own scheme and host. */
export function baseUrlOf(config: Config, request: FastifyRequest): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`
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
    post: (id: number) => `${root}/spotlight/${id}`,
    question: (id: number) => `${root}/qanda/${id}`,
    sitemap: (page?: number) => `${root}/sitemap.xml${page ? `?page=${page}` : ''}`,
    theme: (version: number) => `${root}/theme.css?v=${version}`,
    /** A stored photo or file: a media reference gets this address (src/storage/keys.ts); a URL is kept. */
    media: (value: string | undefined) => (value === undefined ? undefined : absoluteMediaUrl(base, value)),
  }
}

export type DirectoryUrls = ReturnType<typeof directoryUrls>
