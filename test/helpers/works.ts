import type { Kysely } from 'kysely'
import type { DB } from '../../src/db/schema.js'
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

/** Stores a work of `orgId` offered to the expert `username` (pending), as a refresh would; returns its id. */
export async function seedCandidate(
  db: Kysely<DB>,
  orgId: number,
  username: string,
  now: number,
): Promise<number> {
  const expert = await db
    .selectFrom('experts')
    .select('id')
    .where('org_id', '=', orgId)
    .where('username', '=', username)
    .executeTakeFirstOrThrow()
  const work = await db
    .insertInto('works')
    .values({
      org_id: orgId,
      doi_norm: `10.1000/seeded-${expert.id}`,
      pmid: null,
      openalex_id: null,
      orcid_putcodes: '[]',
      title_fingerprint: 'a seeded work',
      year: 2024,
      first_author: null,
      fields: JSON.stringify({ title: { value: 'A seeded work', source: 'crossref' } }),
      needs_lookup: 0,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db
    .insertInto('work_candidates')
    .values({
      org_id: orgId,
      expert_id: expert.id,
      work_id: work.id,
      state: 'pending',
      reason: 'identifier',
      score: 0.5,
      first_seen: now,
      decided_by: null,
      decided_at: null,
      note: null,
    })
    .execute()
  return work.id
}
