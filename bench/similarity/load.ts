import type { Kysely } from 'kysely'
import { cliTrail } from '../../src/audit/actor.js'
import { cliWriteContext } from '../../src/audit/write-context.js'
import type { DB } from '../../src/db/schema.js'
import { lockedForWrite, writeTransaction } from '../../src/db/transactions.js'
import { importContent } from '../../src/import/index.js'
import { offerWork } from '../../src/works/candidates.js'
import { outcomeOf } from '../../src/works/claims.js'
import { mergeWork } from '../../src/works/merge.js'
import type { SourceWork, WorkConcept } from '../../src/works/sources/source.js'
import type { SyntheticExpert, SyntheticOrganization, SyntheticWork } from './generate.js'
import type { Concept } from './vocabulary.js'

/**
 * Loads the synthetic organization through the production write paths: the experts and their profile
 * sections through the import (one transaction, the search index and read documents kept current by
 * it), then each expert's works as the works importer stores a work an ORCID record lists: merged into
 * the organization's works (mergeWork), offered to the expert with the outcome of its signal (outcomeOf,
 * offerWork: claimed, so it becomes an `article` element and the change hub runs). It is refresh.ts's
 * own sequence, with one transaction per hundred experts rather than one per work: a commit waits for
 * the disk, and a thousand experts' works would otherwise take most of a minute.
 */

const EXPERTS_PER_TRANSACTION = 100

export interface Loaded {
  /** Usernames by expert index. */
  usernames: string[]
  works: number
  claims: number
}

function profileRecord(expert: SyntheticExpert, fieldName: string) {
  return {
    key: expert.key,
    firstname: expert.firstname,
    lastname: expert.lastname,
    job_title: expert.jobTitle,
    email: expert.email,
    company: 'Eval University',
    department: fieldName,
    orcid: expert.orcid,
    is_published: 1,
    is_private: 0,
    sections: {
      topic: expert.topics.map((topic) => ({ name: topic.label })),
      industry: expert.industries.map((name) => ({ name })),
      tag: expert.tags.map((tag) => ({ tag })),
      tagline: { tagline: expert.tagline },
      biography: { biography: expert.biography },
    },
  }
}

/** A work's concepts as a source gives them: its OpenAlex topic and its MeSH heading. */
function conceptsOf(concepts: Concept[]): WorkConcept[] {
  return concepts.flatMap((concept, rank) => [
    {
      scheme: 'openalex_topic' as const,
      id: concept.topicId,
      label: concept.label,
      score: Number((0.95 - rank * 0.1).toFixed(2)),
      major: true,
    },
    { scheme: 'mesh' as const, id: concept.meshUi, label: concept.meshLabel, score: 1, major: rank === 0 },
  ])
}

/** The work as the ORCID connector would yield it from an author's record. */
export function sourceWorkOf(organization: SyntheticOrganization, work: SyntheticWork): SourceWork {
  return {
    source: 'orcid',
    doi: work.doi,
    title: work.title,
    year: work.year,
    container: 'Journal of Synthetic Research',
    type: 'journal-article',
    authors: work.authors.map((index, position) => {
      const author = organization.experts[index]
      return {
        name: author ? `${author.firstname} ${author.lastname}` : `Author ${index}`,
        ...(author ? { orcid: author.orcid } : {}),
        position: position === 0 ? 'first' : position === work.authors.length - 1 ? 'last' : 'middle',
      }
    }),
    abstract: work.abstract,
    concepts: conceptsOf(work.concepts),
    foundBecause: 'orcid_record',
    score: 1,
  }
}

export async function loadOrganization(
  db: Kysely<DB>,
  orgId: number,
  organization: SyntheticOrganization,
  now: number,
): Promise<Loaded> {
  const file = {
    experts: organization.experts.map((expert) =>
      profileRecord(expert, organization.fields[expert.fields[0] ?? 0]?.name ?? ''),
    ),
  }
  const imported = await importContent(
    cliWriteContext(db, orgId, 'eval similarity', now),
    JSON.stringify(file),
  )
  const usernames = imported.ids.experts
  const worksOf = new Map<number, SyntheticWork[]>()
  for (const work of organization.works)
    for (const author of work.authors) worksOf.set(author, [...(worksOf.get(author) ?? []), work])
  const trail = cliTrail('eval similarity')
  let claims = 0
  for (let start = 0; start < usernames.length; start += EXPERTS_PER_TRANSACTION) {
    const batch = [...usernames.entries()].slice(start, start + EXPERTS_PER_TRANSACTION)
    claims += await writeTransaction(db, async (trx) => {
      let claimed = 0
      for (const [index, username] of batch) {
        // As refresh.ts: the expert's row is locked first, the article section it changes is the expert's.
        const expert = await lockedForWrite(
          trx,
          trx.selectFrom('experts').selectAll().where('org_id', '=', orgId).where('username', '=', username),
        ).executeTakeFirstOrThrow()
        for (const work of worksOf.get(index) ?? []) {
          const incoming = sourceWorkOf(organization, work)
          const merged = await mergeWork(trx, orgId, incoming, now)
          const offered = await offerWork(trx, orgId, expert, merged.work, {
            outcome: outcomeOf(expert, incoming),
            reason: incoming.foundBecause,
            now,
            trail,
          })
          if (offered.candidate.state === 'claimed') claimed++
        }
      }
      return claimed
    })
  }
  return { usernames, works: organization.works.length, claims }
}
