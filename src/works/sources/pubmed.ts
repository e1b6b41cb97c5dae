import type { SourceClient } from './client.js'
import { orderedConcepts } from './concepts.js'
import {
  datedFields,
  monthNumber,
  normalizeDoi,
  normalizeMeshUi,
  normalizeOrcid,
  normalizePmid,
  plainText,
  yearNumber,
} from './normalize.js'
import {
  expectShape,
  type MeshTermNode,
  type PubmedArticleReply,
  PubmedArticleSetShape,
  PubmedSearchShape,
  shapeCheck,
  shapeDrift,
  type XmlTextNode,
} from './shapes.js'
import type {
  ExpertToSearch,
  FoundBecause,
  Source,
  SourceAuthor,
  SourceNote,
  SourceWork,
  WorkConcept,
} from './source.js'

/**
 * PubMed E-utilities (SOURCES.md §4): `esearch` by ORCID iD (`[auid]`) and by name + affiliation,
 * paged with `retstart` until `count` (strings both); then `efetch` XML, by GET for up to 200 ids and
 * by POST above. A name alone is never searched: it would offer every namesake.
 */
export interface PubmedSettings {
  baseUrl: string
  apiKey?: string | undefined
  /** The `email` NCBI asks for, so it can write before it blocks. */
  email?: string | undefined
  /** Ids per `esearch` page. */
  pageSize: number
  /** Ids per `efetch` call. */
  fetchBatch: number
}

/** Above this many ids, efetch is a POST (NCBI's advice: the URL would be too long). */
export const EFETCH_GET_MAX = 200

/** Elements that may repeat: always arrays, even when one is present. */
export const PUBMED_REPEATABLE: ReadonlySet<string> = new Set([
  'PubmedArticle',
  'Author',
  'AbstractText',
  'ArticleId',
  'ELocationID',
  'Identifier',
  'AffiliationInfo',
  'MeshHeading',
  'QualifierName',
  'Keyword',
  'PublicationType',
])

interface Candidate {
  foundBecause: FoundBecause
  score: number
}

export class PubmedSource implements Source {
  readonly name = 'pubmed'

  constructor(
    private readonly client: SourceClient,
    private readonly settings: PubmedSettings,
  ) {}

  skipReason(): string | null {
    return null
  }

  notes(): SourceNote[] {
    return this.settings.apiKey ? [] : [{ source: 'pubmed', message: 'no NCBI API key: 3 requests a second' }]
  }

  async *worksFor(expert: ExpertToSearch, signal?: AbortSignal): AsyncIterable<SourceWork> {
    const orcid = normalizeOrcid(expert.orcid)
    const candidates = new Map<string, Candidate>()
    if (orcid) {
      for (const pmid of await this.search(`${orcid}[auid]`, signal)) {
        candidates.set(pmid, { foundBecause: 'identifier', score: 0.85 })
      }
    }
    const term = nameAndAffiliationTerm(expert)
    if (term) {
      for (const pmid of await this.search(term, signal)) {
        if (!candidates.has(pmid)) candidates.set(pmid, { foundBecause: 'name_affiliation', score: 0.4 })
      }
    }
    const ids = [...candidates.keys()]
    for (let start = 0; start < ids.length; start += this.settings.fetchBatch) {
      for (const article of await this.fetch(ids.slice(start, start + this.settings.fetchBatch), signal)) {
        const work = pubmedWork(article)
        const candidate = work?.pmid ? candidates.get(work.pmid) : undefined
        if (!work || !candidate) continue
        // An ORCID search hit whose authors do not show the iD is weaker evidence.
        const shown = orcid !== undefined && work.authors.some((author) => author.orcid === orcid)
        const score = candidate.foundBecause === 'identifier' && !shown ? 0.7 : candidate.score
        yield { ...work, foundBecause: candidate.foundBecause, score }
      }
    }
  }

  async probe(orcid: string, signal?: AbortSignal): Promise<string[]> {
    const url = this.url('esearch.fcgi', {
      db: 'pubmed',
      term: `${orcid}[auid]`,
      retmode: 'json',
      retmax: '20',
      retstart: '0',
    })
    const { value } = await this.client.json({ url }, signal)
    const drift = shapeDrift(PubmedSearchShape, value).map((problem) => `esearch: ${problem}`)
    if (drift.length > 0 || !shapeCheck(PubmedSearchShape)(value)) return drift
    const ids = value.esearchresult.idlist.slice(0, 20)
    if (ids.length === 0) return []
    const fetchUrl = this.url('efetch.fcgi', { db: 'pubmed', retmode: 'xml', id: ids.join(',') })
    const parsed = await this.client.xml({ url: fetchUrl }, PUBMED_REPEATABLE, signal)
    return shapeDrift(PubmedArticleSetShape, parsed).map((problem) => `efetch: ${problem}`)
  }

  /** Every PMID `term` finds, page by page (`retstart += retmax` while below `count`). */
  async search(term: string, signal?: AbortSignal): Promise<string[]> {
    const found: string[] = []
    let retstart = 0
    for (;;) {
      const url = this.url('esearch.fcgi', {
        db: 'pubmed',
        term,
        retmode: 'json',
        retmax: String(this.settings.pageSize),
        retstart: String(retstart),
      })
      const { value } = await this.client.json({ url }, signal)
      const result = expectShape('pubmed', PubmedSearchShape, value, 'the search reply').esearchresult
      for (const id of result.idlist) {
        const pmid = normalizePmid(id)
        if (pmid) found.push(pmid)
      }
      const count = Number(result.count)
      const pageSize = Number(result.retmax) || this.settings.pageSize
      retstart = Number(result.retstart) + pageSize
      if (result.idlist.length === 0 || retstart >= count) return found
    }
  }

  async fetch(ids: string[], signal?: AbortSignal): Promise<PubmedArticleReply[]> {
    if (ids.length === 0) return []
    const query = { db: 'pubmed', retmode: 'xml' }
    const request =
      ids.length > EFETCH_GET_MAX
        ? {
            method: 'POST' as const,
            url: this.url('efetch.fcgi', {}),
            form: this.params({ ...query, id: ids.join(',') }),
          }
        : { url: this.url('efetch.fcgi', { ...query, id: ids.join(',') }) }
    const parsed = await this.client.xml(request, PUBMED_REPEATABLE, signal)
    const set = expectShape('pubmed', PubmedArticleSetShape, parsed, 'the article set').PubmedArticleSet
    return typeof set === 'string' ? [] : (set.PubmedArticle ?? [])
  }

  private params(query: Record<string, string>): URLSearchParams {
    const params = new URLSearchParams(query)
    params.set('tool', 'expertdir')
    if (this.settings.email) params.set('email', this.settings.email)
    if (this.settings.apiKey) params.set('api_key', this.settings.apiKey)
    return params
  }

  private url(path: string, query: Record<string, string>): URL {
    const url = new URL(`${this.settings.baseUrl.replace(/\/+$/, '')}/${path}`)
    if (Object.keys(query).length > 0) url.search = this.params(query).toString()
    return url
  }
}

/** `"Müller Z"[au] AND "Example University"[ad]`; undefined without a family name or an affiliation. */
export function nameAndAffiliationTerm(expert: ExpertToSearch): string | undefined {
  const family = expert.familyName.replace(/"/g, '').trim()
  const affiliation = expert.affiliation?.replace(/"/g, '').trim()
  if (!family || !affiliation) return undefined
  const initials = expert.givenNames
    .split(/[\s-]+/)
    .map((name) =>
      name
        .replace(/[^\p{L}]/gu, '')
        .charAt(0)
        .toUpperCase(),
    )
    .join('')
  const author = initials ? `${family} ${initials}` : family
  return `"${author}"[au] AND "${affiliation}"[ad]`
}

function text(node: XmlTextNode | undefined): string | undefined {
  if (node === undefined) return undefined
  return typeof node === 'string' ? node : node['#text']
}

/** `2019 Mar-Apr`, `Spring 2020`, `2018 Dec 15-2019 Jan 2`: the first year and month it names. */
function medlineDate(raw: string | undefined): { year?: number; month?: number } {
  if (!raw) return {}
  const year = yearNumber(/\b(\d{4})\b/.exec(raw)?.[1])
  const month = monthNumber(/\b([A-Za-z]{3})[a-z]*\b/.exec(raw.replace(/^\D*\d{4}\s*/, ''))?.[1])
  return { ...(year ? { year } : {}), ...(month ? { month } : {}) }
}

function pubmedAuthors(article: PubmedArticleReply['MedlineCitation']['Article']): SourceAuthor[] {
  const list = article.AuthorList?.Author ?? []
  return list.flatMap((author, index): SourceAuthor[] => {
    const collective = plainText(text(author.CollectiveName))
    const given = text(author.ForeName) ?? text(author.Initials)
    const family = text(author.LastName)
    const name = collective ?? [given, family].filter(Boolean).join(' ').trim()
    if (!name) return []
    const orcidNode = author.Identifier?.find(
      (identifier) => identifier['@_Source']?.toUpperCase() === 'ORCID',
    )
    const orcid = normalizeOrcid(orcidNode?.['#text'])
    const position = index === 0 ? 'first' : index === list.length - 1 ? 'last' : 'middle'
    return [{ name, ...(orcid ? { orcid } : {}), position }]
  })
}

const isMajor = (term: MeshTermNode) => term['@_MajorTopicYN']?.trim().toUpperCase() === 'Y'

/**
 * The article's MeSH headings, score 1: a heading is major when its descriptor or any of its qualifiers
 * is marked `MajorTopicYN="Y"`.
 */
export function pubmedConcepts(citation: PubmedArticleReply['MedlineCitation']): WorkConcept[] {
  const list = citation.MeshHeadingList
  const headings = typeof list === 'object' ? (list.MeshHeading ?? []) : []
  return orderedConcepts(
    headings.flatMap((heading): WorkConcept[] => {
      const descriptor = heading.DescriptorName
      const id = normalizeMeshUi(descriptor['@_UI'])
      const label = plainText(descriptor['#text'])
      if (!id || !label) return []
      const major = isMajor(descriptor) || (heading.QualifierName ?? []).some(isMajor)
      return [{ scheme: 'mesh', id, label, score: 1, major }]
    }),
  )
}

/** One PubMed article as a work; `foundBecause` and `score` are set by the search that found it. */
export function pubmedWork(entry: PubmedArticleReply): SourceWork | undefined {
  const citation = entry.MedlineCitation
  const pmid = normalizePmid(text(citation.PMID))
  if (!pmid) return undefined
  const article = citation.Article
  const pubDate = article.Journal?.JournalIssue?.PubDate
  const fromMedline = medlineDate(text(pubDate?.MedlineDate))
  const year = yearNumber(text(pubDate?.Year)) ?? fromMedline.year
  const month = text(pubDate?.Year) ? monthNumber(text(pubDate?.Month)) : fromMedline.month
  const day = text(pubDate?.Year) ? Number(text(pubDate?.Day)) : undefined
  const doiNode =
    article.ELocationID?.find((id) => id['@_EIdType'] === 'doi') ??
    entry.PubmedData?.ArticleIdList?.ArticleId?.find((id) => id['@_IdType'] === 'doi')
  const doi = normalizeDoi(doiNode?.['#text'])
  const title = plainText(text(article.ArticleTitle))
  const container = plainText(text(article.Journal?.Title))
  const parts = (article.Abstract?.AbstractText ?? []).flatMap((part) => {
    const body = plainText(text(part))
    if (!body) return []
    const label = typeof part === 'string' ? undefined : labelOf(part)
    return [label ? `${label}: ${body}` : body]
  })
  const type = plainText(text(article.PublicationTypeList?.PublicationType?.[0]))
  const concepts = pubmedConcepts(citation)
  return {
    source: 'pubmed',
    pmid,
    ...(doi ? { doi } : {}),
    ...(title ? { title } : {}),
    ...datedFields(year, month, day),
    ...(container ? { container } : {}),
    authors: pubmedAuthors(article),
    ...(parts.length > 0 ? { abstract: parts.join('\n') } : {}),
    ...(type ? { type } : {}),
    url: `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`,
    ...(concepts.length > 0 ? { concepts } : {}),
    foundBecause: 'identifier',
    score: 0.85,
  }
}

function labelOf(part: object): string | undefined {
  const label = '@_Label' in part ? part['@_Label'] : undefined
  return typeof label === 'string' && label.trim() !== '' ? label.trim() : undefined
}
