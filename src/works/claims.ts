import type { ExpertRow } from '../db/schema.js'
import type { CandidateReason, CandidateState, IdentifierPolicy } from '../db/works-schema.js'
import type { SourceWork } from './sources/source.js'

/**
 * What a found work becomes for the expert (SOURCES.md §5, "Claim signals"):
 *
 * - on the expert's own ORCID record (`orcid_record`): claimed. The record is what the researcher keeps
 *   (they add works or let trusted parties add them), so this is the one case where a typed iD leads to a
 *   claim: the claim rests on the record's content, not on who typed the iD in;
 * - a Crossref author with an authenticated iD equal to the expert's (`authenticated_orcid`): claimed only
 *   when the expert's iD itself is authenticated (an ORCID sign-in); a typed iD gives a high score instead;
 * - an identifier match (`identifier`): the policy of the identifier that matched: `auto_claim` claims,
 *   except for a typed ORCID iD (it "may raise scores but never auto-claims"), `suggest` leaves the work
 *   pending, `auto_reject` rejects it;
 * - name + affiliation: pending with the source's score;
 * - an identifier whose policy is `ignore` is not searched at all (see `expertToSearch`); one whose policy
 *   is `auto_reject` rejects everything found through it, with the reason kept.
 */

export type ExpertIdentifiers = Pick<
  ExpertRow,
  'orcid' | 'orcid_policy' | 'openalex_id' | 'openalex_policy' | 'scopus_id' | 'scopus_policy'
>

export interface Outcome {
  state: CandidateState
  score: number
}

/** A score for a signal that is strong but not a claim. */
const HIGH_SCORE = 0.9

const clamp = (score: number) => Math.min(1, Math.max(0, Number.isFinite(score) ? score : 0))

/** Which of the expert's identifiers a work found by identifier matched, and its policy. */
function matchedPolicy(
  expert: ExpertIdentifiers,
  work: SourceWork,
): { typedOrcid: boolean; policy: IdentifierPolicy } {
  if (work.source === 'openalex' && expert.openalex_id)
    return { typedOrcid: false, policy: expert.openalex_policy }
  return { typedOrcid: true, policy: expert.orcid_policy }
}

export function outcomeOf(
  expert: ExpertIdentifiers,
  work: SourceWork,
  { orcidAuthenticated = false }: { orcidAuthenticated?: boolean } = {},
): Outcome {
  const score = clamp(work.score)
  switch (work.foundBecause) {
    case 'orcid_record':
      if (expert.orcid_policy === 'auto_reject') return { state: 'rejected', score }
      return { state: 'claimed', score: Math.max(score, HIGH_SCORE) }
    case 'authenticated_orcid':
      if (expert.orcid_policy === 'auto_reject') return { state: 'rejected', score }
      return orcidAuthenticated
        ? { state: 'claimed', score: Math.max(score, HIGH_SCORE) }
        : { state: 'pending', score: Math.max(score, HIGH_SCORE) }
    case 'identifier': {
      const { typedOrcid, policy } = matchedPolicy(expert, work)
      if (policy === 'auto_reject') return { state: 'rejected', score }
      if (policy === 'auto_claim' && !typedOrcid) return { state: 'claimed', score }
      return { state: 'pending', score: Math.max(score, typedOrcid ? HIGH_SCORE : score) }
    }
    case 'name_affiliation':
      return { state: 'pending', score }
  }
}

const REASON_STRENGTH: readonly CandidateReason[] = [
  'authenticated_orcid',
  'orcid_record',
  'identifier',
  'name_affiliation',
]

/** The stronger of two reasons a work was found for. */
export function strongerReason(a: CandidateReason, b: CandidateReason): CandidateReason {
  return REASON_STRENGTH.indexOf(a) <= REASON_STRENGTH.indexOf(b) ? a : b
}
