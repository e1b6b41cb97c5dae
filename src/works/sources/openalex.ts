import type { SourceClient } from './client.js'
import { conceptScore, orderedConcepts } from './concepts.js'
import {
  datedFields,
  normalizeDoi,
  normalizeMeshUi,
  normalizeOpenalexId,
  normalizeOpenalexKeywordId,
  normalizeOpenalexTopicId,
  normalizeOrcid,
  normalizePmid,
  plainText,
} from './normalize.js'
import {
  expectShape,
  OpenalexAuthorShape,
  type OpenalexWorkReply,
  OpenalexWorksShape,
  shapeDrift,
} from './shapes.js'
import type { ExpertToSearch, Source, SourceAuthor, SourceNote, SourceWork, WorkConcept } from './source.js'

/**
 * OpenAlex (SOURCES.md §2): the works of an author by ORCID (or by OpenAlex author id, followed
 * through a merge's 301 first), 100 per page, cursor paging from `cursor=*` until the cursor ends or
 * a page is empty. Authorships are cut at 100 by OpenAlex. An authorship ORCID may come from
 * OpenAlex's own disambiguation, so its works are `identifier` candidates, never auto-claimed.
 */
export interface OpenalexSettings {
  baseUrl: string
  apiKey?: string | undefined
}

/** Root fields read, so pages carry no more than the connector uses. */
const SELECT = [
  'id',
  'doi',
  'ids',
  'title',
  'display_name',
  'publication_year',
  'publication_date',
  'type',
  'primary_location',
  'authorships',
  'abstract_inverted_index',
  'topics',
  'keywords',
  'mesh',
].join(',')

/** OpenAlex's daily budget is said to reset at midnight UTC ([unverified] in the sources' notes). */
export function nextMidnightUtc(now: number): number {
  const date = new Date(now)
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)
}

export class OpenalexSource implements Source {
  readonly name = 'openalex'

  constructor(
    private readonly client: SourceClient,
    private readonly settings: OpenalexSettings,
  ) {}

  skipReason(): string | null {
    return null
  }

  notes(): SourceNote[] {
    return this.settings.apiKey
      ? []
      : [{ source: 'openalex', message: 'no OpenAlex API key: the free keyless budget is very small' }]
  }

  async *worksFor(expert: ExpertToSearch, signal?: AbortSignal): AsyncIterable<SourceWork> {
    const orcid = normalizeOrcid(expert.orcid)
    let filter: string
    let score: number
    if (orcid) {
      filter = `authorships.author.orcid:${orcid}`
      score = 0.85
    } else {
      const authorId = normalizeOpenalexId(expert.openalexId, 'A')
      if (!authorId) return
      filter = `authorships.author.id:${await this.currentAuthorId(authorId, signal)}`
      score = 0.8
    }
    const seen = new Set<string>()
    let cursor = '*'
    for (;;) {
      const { value } = await this.client.json(
        { url: this.url('works', { filter, select: SELECT, per_page: '100', cursor }) },
        signal,
      )
      const page = expectShape('openalex', OpenalexWorksShape, value, 'the works page')
      for (const work of page.results) yield openalexWork(work, score)
      const next = page.meta.next_cursor
      if (!next || page.results.length === 0 || seen.has(next)) return
      seen.add(next)
      cursor = next
    }
  }

  async probe(orcid: string, signal?: AbortSignal): Promise<string[]> {
    const query = {
      filter: `authorships.author.orcid:${orcid}`,
      select: SELECT,
      per_page: '100',
      cursor: '*',
    }
    const { value } = await this.client.json({ url: this.url('works', query) }, signal)
    return shapeDrift(OpenalexWorksShape, value).map((problem) => `works: ${problem}`)
  }

  /** The author's id now: a merged id answers 301 to the one it was merged into. */
  private async currentAuthorId(authorId: string, signal?: AbortSignal): Promise<string> {
    const { value } = await this.client.json({ url: this.url(`authors/${authorId}`, {}) }, signal)
    const author = expectShape('openalex', OpenalexAuthorShape, value, 'the author')
    return normalizeOpenalexId(author.id, 'A') ?? authorId
  }

  private url(path: string, query: Record<string, string>): URL {
    const url = new URL(`${this.settings.baseUrl.replace(/\/+$/, '')}/${path}`)
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value)
    if (this.settings.apiKey) url.searchParams.set('api_key', this.settings.apiKey)
    return url
  }
}

/** The plain abstract from OpenAlex's word → positions index (each word placed at its positions). */
export function rebuildAbstract(index: Record<string, number[]> | null | undefined): string | undefined {
  if (!index) return undefined
  const words: string[] = []
  for (const [word, positions] of Object.entries(index)) {
    for (const position of positions) if (position < 1_000_000) words[position] = word
  }
  const text = words.filter((word) => word !== undefined).join(' ')
  return text === '' ? undefined : text
}

function authorship(entry: OpenalexWorkReply['authorships'][number]): SourceAuthor[] {
  const name = (entry.author.display_name ?? entry.raw_author_name ?? '').trim()
  if (!name) return []
  const orcid = normalizeOrcid(entry.author.orcid)
  const position = entry.author_position
  return [
    {
      name,
      ...(orcid ? { orcid } : {}),
      ...(position === 'first' || position === 'middle' || position === 'last' ? { position } : {}),
    },
  ]
}

/**
 * The work's topics (`T10017`), keywords (their slug) and MeSH descriptors (one per descriptor, major
 * when any of its rows, one per qualifier, is), without the entries that have no usable id or label.
 */
export function openalexConcepts(work: OpenalexWorkReply): WorkConcept[] {
  const concepts: WorkConcept[] = []
  for (const topic of work.topics ?? []) {
    const id = normalizeOpenalexTopicId(topic.id)
    const label = plainText(topic.display_name)
    if (id && label)
      concepts.push({ scheme: 'openalex_topic', id, label, score: conceptScore(topic.score), major: true })
  }
  for (const keyword of work.keywords ?? []) {
    const id = normalizeOpenalexKeywordId(keyword.id)
    const label = plainText(keyword.display_name)
    if (id && label) {
      concepts.push({
        scheme: 'openalex_keyword',
        id,
        label,
        score: conceptScore(keyword.score),
        major: true,
      })
    }
  }
  for (const row of work.mesh ?? []) {
    const id = normalizeMeshUi(row.descriptor_ui)
    const label = plainText(row.descriptor_name)
    if (id && label)
      concepts.push({ scheme: 'mesh', id, label, score: 1, major: row.is_major_topic === true })
  }
  return orderedConcepts(concepts)
}

export function openalexWork(work: OpenalexWorkReply, score: number): SourceWork {
  const openalexId = normalizeOpenalexId(work.id, 'W')
  const doi = normalizeDoi(work.doi)
  const pmid = normalizePmid(
    work.ids?.pmid?.replace(/^https?:\/\/pubmed\.ncbi\.nlm\.nih\.gov\//, '').replace(/\/$/, ''),
  )
  const title = plainText(work.title ?? work.display_name)
  const [year, month, day] = (work.publication_date ?? '').split('-').map(Number)
  const dated =
    work.publication_year !== null && work.publication_year !== undefined
      ? datedFields(
          work.publication_year,
          year === work.publication_year ? month : undefined,
          year === work.publication_year ? day : undefined,
        )
      : {}
  const container = plainText(work.primary_location?.source?.display_name)
  const abstract = rebuildAbstract(work.abstract_inverted_index)
  const concepts = openalexConcepts(work)
  return {
    source: 'openalex',
    ...(doi ? { doi } : {}),
    ...(pmid ? { pmid } : {}),
    ...(openalexId ? { openalexId } : {}),
    ...(title ? { title } : {}),
    ...dated,
    ...(container ? { container } : {}),
    authors: work.authorships.flatMap(authorship),
    ...(abstract ? { abstract } : {}),
    ...(work.type ? { type: work.type } : {}),
    ...(doi ? { url: `https://doi.org/${doi}` } : {}),
    ...(concepts.length > 0 ? { concepts } : {}),
    foundBecause: 'identifier',
    score,
  }
}
