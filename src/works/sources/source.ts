/**
 * What every scholarly source connector gives the works importer (CONTRACT §19, SOURCES.md).
 * A connector reads one source for one expert and yields each work it finds, already normalised
 * (bare lower-case DOI, digits-only PMID, bare OpenAlex W-id, bare checked ORCID iD), with the
 * reason it was found. It never touches the database; the importer merges, deduplicates and decides.
 */

export type SourceName = 'orcid' | 'openalex' | 'crossref' | 'pubmed'

/**
 * A subject a source gives a work: an OpenAlex topic or keyword, or a MeSH heading (PubMed, OpenAlex
 * `mesh[]`). `id` is the source's own (`T10017`, `D006358`, a keyword's slug); `score` 0..1 is the
 * source's confidence (1 where it gives none); `major` marks a MeSH major topic (true elsewhere).
 */
export interface WorkConcept {
  scheme: 'openalex_topic' | 'openalex_keyword' | 'mesh'
  id: string
  label: string
  score: number
  major: boolean
}

/** Why a work was found for the expert, strongest first (CONTRACT §19). */
export type FoundBecause = 'authenticated_orcid' | 'orcid_record' | 'identifier' | 'name_affiliation'

/** The expert as a connector needs it. */
export interface ExpertToSearch {
  /** Bare ORCID iD (`0000-0002-1825-0097`), checked. */
  orcid?: string
  /** True when the iD came from the expert's own ORCID sign-in, not typed in. */
  orcidAuthenticated?: boolean
  /** Bare OpenAlex author id (`A5023888391`). */
  openalexId?: string
  scopusId?: string
  /** For name + affiliation candidates (PubMed): family name, given names, the organization's name. */
  familyName: string
  givenNames: string
  affiliation?: string
}

export interface SourceAuthor {
  name: string
  /** Bare ORCID iD when the source names one. */
  orcid?: string
  /** Crossref's `authenticated-orcid: true`. */
  orcidAuthenticated?: boolean
  position?: 'first' | 'middle' | 'last'
}

/** One work as one source describes it. Absent fields are unknown to this source. */
export interface SourceWork {
  source: SourceName
  /** Normalised: lower case, no `https://doi.org/` or `doi:` prefix. Only a `self` DOI. */
  doi?: string
  pmid?: string
  openalexId?: string
  /** ORCID put-code, as a string. */
  orcidPutCode?: string
  title?: string
  year?: number
  /** Unix seconds, at day precision when only the year or month is known (1 January / the 1st). */
  date?: number
  /** Journal or container title. */
  container?: string
  /** In the order the source gives them; the source may cut long lists (OpenAlex: 100). */
  authors: SourceAuthor[]
  /** Plain text; JATS and HTML tags stripped; OpenAlex abstracts rebuilt from the inverted index. */
  abstract?: string
  /** The source's own type word (`journal-article`, `article`, ...). */
  type?: string
  url?: string
  /** Topics, keywords and MeSH headings the source gives the work (WorkConcept). */
  concepts?: WorkConcept[]
  /** Why this source offered the work for this expert. */
  foundBecause: FoundBecause
  /** 0..1: how sure the source's signal is that the expert wrote it. */
  score: number
}

/** What a source says when it is not configured or not reachable: a note for a person, not a failure. */
export interface SourceNote {
  source: SourceName
  message: string
}

export interface Source {
  readonly name: SourceName
  /** Null when the source can run; otherwise why it is skipped (for example a missing setting). */
  skipReason(): string | null
  /** What a person should know although the source runs (a missing key or contact address). */
  notes?(): SourceNote[]
  /**
   * The live smoke check: reads one reply of each endpoint for this iD and returns each mismatch with
   * the source's shape contract as `endpoint: path: problem` (none: the replies fit).
   */
  probe?(orcid: string, signal?: AbortSignal): Promise<string[]>
  /** Every work this source knows for the expert, paging to the end. Throws `SourceError` on failure. */
  worksFor(expert: ExpertToSearch, signal?: AbortSignal): AsyncIterable<SourceWork>
}

/** A source failed for a reason a person can read; `retryAt` (unix ms) when it asked to be left alone. */
export class SourceError extends Error {
  constructor(
    readonly source: SourceName,
    message: string,
    readonly retryAt?: number,
  ) {
    super(message)
  }
}
