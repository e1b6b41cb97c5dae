import {
  type ExpertToSearch,
  type Source,
  SourceError,
  type SourceName,
  type SourceWork,
} from '../../src/works/sources/source.js'

/**
 * A test source: a real `Source` that yields the works a test has authored for each ORCID iD, as a
 * connector would after reading its API. Tests change `works` between refreshes (a source that later
 * adds a PMID) and may make it fail (`failWith`). It records every expert it was asked about.
 */
export class AuthoredSource implements Source {
  readonly asked: ExpertToSearch[] = []
  /** Works per ORCID iD (or per OpenAlex author id). */
  works = new Map<string, SourceWork[]>()
  failWith: string | undefined
  skip: string | null = null

  constructor(readonly name: SourceName) {}

  skipReason(): string | null {
    return this.skip
  }

  async *worksFor(expert: ExpertToSearch): AsyncIterable<SourceWork> {
    this.asked.push(expert)
    const works = [
      ...(expert.orcid ? (this.works.get(expert.orcid) ?? []) : []),
      ...(expert.openalexId ? (this.works.get(expert.openalexId) ?? []) : []),
    ]
    for (const work of works) yield work
    if (this.failWith) throw new SourceError(this.name, this.failWith)
  }
}

/** A work as `source` describes it, with defaults for the fields a test does not care about. */
export function authoredWork(source: SourceName, fields: Partial<SourceWork>): SourceWork {
  return {
    source,
    authors: [{ name: 'Ada Okafor', position: 'first' }],
    foundBecause: 'identifier',
    score: 0.5,
    ...fields,
  }
}
