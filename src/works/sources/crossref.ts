import type { SourceClient } from './client.js'
import type { HttpReply } from './http.js'
import { datedFields, normalizeDoi, normalizeOrcid, plainText } from './normalize.js'
import type { Pacer } from './pacer.js'
import { type CrossrefItemReply, CrossrefWorksShape, expectShape, shapeDrift } from './shapes.js'
import type { ExpertToSearch, FoundBecause, Source, SourceAuthor, SourceNote, SourceWork } from './source.js'

/**
 * Crossref (SOURCES.md §3): the works whose deposit names the expert's ORCID iD, 100 per page, cursor
 * paging until a page is empty. With a contact address the requests go to the polite pool. Each
 * author's `authenticated-orcid` is read on its own (the filter once returned items without one).
 */
export interface CrossrefSettings {
  baseUrl: string
  mailto?: string | undefined
}

const SELECT = 'DOI,title,author,issued,container-title,type,URL,abstract'

/** `x-rate-limit-limit` per `x-rate-limit-interval` (`1s`, `60s`), in requests per second. */
export function advertisedRate(reply: HttpReply): number | undefined {
  const limit = Number(reply.headers['x-rate-limit-limit'])
  const interval = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(reply.headers['x-rate-limit-interval']?.trim() ?? '')
  if (!Number.isFinite(limit) || limit <= 0 || !interval) return undefined
  const unit = interval[2] === 'ms' ? 0.001 : interval[2] === 'm' ? 60 : 1
  const seconds = Number(interval[1]) * unit
  return seconds > 0 ? limit / seconds : undefined
}

/** Follows Crossref's advertised limits, never above the pacer's ceiling. */
export function followRateHeaders(pacer: Pacer): (reply: HttpReply) => void {
  return (reply) => {
    const rate = advertisedRate(reply)
    if (rate !== undefined) pacer.adjustRate(rate)
  }
}

export class CrossrefSource implements Source {
  readonly name = 'crossref'

  constructor(
    private readonly client: SourceClient,
    private readonly settings: CrossrefSettings,
  ) {}

  skipReason(): string | null {
    return null
  }

  notes(): SourceNote[] {
    return this.settings.mailto
      ? []
      : [{ source: 'crossref', message: 'no Crossref contact address: using the slower public pool' }]
  }

  async probe(orcid: string, signal?: AbortSignal): Promise<string[]> {
    const { value } = await this.client.json({ url: this.pageUrl(orcid, '*') }, signal)
    return shapeDrift(CrossrefWorksShape, value).map((problem) => `works: ${problem}`)
  }

  async *worksFor(expert: ExpertToSearch, signal?: AbortSignal): AsyncIterable<SourceWork> {
    const orcid = normalizeOrcid(expert.orcid)
    if (!orcid) return
    const seen = new Set<string>()
    let cursor = '*'
    for (;;) {
      const { value } = await this.client.json({ url: this.pageUrl(orcid, cursor) }, signal)
      const page = expectShape('crossref', CrossrefWorksShape, value, 'the works page').message
      for (const item of page.items) {
        const work = crossrefWork(item, orcid, expert.orcidAuthenticated === true)
        if (work) yield work
      }
      const next = page['next-cursor']
      if (!next || page.items.length === 0 || seen.has(next)) return
      seen.add(next)
      cursor = next
    }
  }

  private pageUrl(orcid: string, cursor: string): URL {
    const url = new URL(`${this.settings.baseUrl.replace(/\/+$/, '')}/works`)
    url.searchParams.set('filter', `orcid:${orcid}`)
    url.searchParams.set('rows', '100')
    url.searchParams.set('select', SELECT)
    url.searchParams.set('cursor', cursor)
    if (this.settings.mailto) url.searchParams.set('mailto', this.settings.mailto)
    return url
  }
}

function authors(item: CrossrefItemReply): SourceAuthor[] {
  const list = item.author ?? []
  return list.flatMap((author, index): SourceAuthor[] => {
    const name = (author.name ?? [author.given, author.family].filter(Boolean).join(' ')).trim()
    if (!name) return []
    const orcid = normalizeOrcid(author.ORCID)
    const position = author.sequence === 'first' ? 'first' : index === list.length - 1 ? 'last' : 'middle'
    return [
      {
        name,
        ...(orcid ? { orcid } : {}),
        ...(orcid && author['authenticated-orcid'] === true ? { orcidAuthenticated: true } : {}),
        position,
      },
    ]
  })
}

/**
 * Why the work is offered: the expert's own iD, vouched for by the publisher, on an expert whose iD
 * came from ORCID sign-in, is `authenticated_orcid`; any other match of the iD is `identifier`.
 */
function claimSignal(
  list: SourceAuthor[],
  orcid: string,
  expertAuthenticated: boolean,
): { foundBecause: FoundBecause; score: number } {
  const mine = list.filter((author) => author.orcid === orcid)
  if (mine.some((author) => author.orcidAuthenticated) && expertAuthenticated) {
    return { foundBecause: 'authenticated_orcid', score: 1 }
  }
  if (mine.length > 0) return { foundBecause: 'identifier', score: 0.85 }
  return { foundBecause: 'identifier', score: 0.7 }
}

/** `[[2024, 3, 15]]`, `[[2024]]` or `[[null]]`. */
function issued(item: CrossrefItemReply): { year?: number; date?: number } {
  const [year, month, day] = item.issued?.['date-parts'][0] ?? []
  if (year === null || year === undefined) return {}
  return datedFields(year, month ?? undefined, day ?? undefined)
}

export function crossrefWork(
  item: CrossrefItemReply,
  orcid: string,
  expertAuthenticated: boolean,
): SourceWork | undefined {
  const doi = normalizeDoi(item.DOI)
  if (!doi) return undefined
  const list = authors(item)
  const title = plainText(item.title?.[0])
  const container = plainText(item['container-title']?.[0])
  const abstract = plainText(item.abstract?.replace(/<jats:title>[\s\S]*?<\/jats:title>/g, ' '))
  return {
    source: 'crossref',
    doi,
    ...(title ? { title } : {}),
    ...issued(item),
    ...(container ? { container } : {}),
    authors: list,
    ...(abstract ? { abstract } : {}),
    ...(item.type ? { type: item.type } : {}),
    url: item.URL ?? `https://doi.org/${doi}`,
    ...claimSignal(list, orcid, expertAuthenticated),
  }
}
