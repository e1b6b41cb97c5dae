import type { WorkConcept } from './source.js'

/**
 * Concepts are gathered, never "one source wins": every source adds its own, and one concept
 * (the same scheme and id) keeps its highest score and is major when any source says so. Lists are
 * kept in one order (scheme, then score, highest first, then id) so that the same concepts always
 * give the same stored text.
 */

const SCHEME_ORDER: readonly WorkConcept['scheme'][] = ['openalex_topic', 'openalex_keyword', 'mesh']

const keyOf = (concept: WorkConcept) => `${concept.scheme}\u0000${concept.id}`

function compareConcepts(a: WorkConcept, b: WorkConcept): number {
  const scheme = SCHEME_ORDER.indexOf(a.scheme) - SCHEME_ORDER.indexOf(b.scheme)
  if (scheme !== 0) return scheme
  if (a.score !== b.score) return b.score - a.score
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * The union of `kept` and `added` by scheme and id, in the stored order. Where both name a concept its
 * label is `added`'s when `addedLabelsWin` (the adding source ranks at least as high), else `kept`'s.
 */
export function unionConcepts(
  kept: readonly WorkConcept[],
  added: readonly WorkConcept[],
  addedLabelsWin = true,
): WorkConcept[] {
  const byKey = new Map<string, WorkConcept>()
  for (const concept of kept) {
    const seen = byKey.get(keyOf(concept))
    byKey.set(keyOf(concept), seen ? combine(seen, concept, false) : { ...concept })
  }
  for (const concept of added) {
    const seen = byKey.get(keyOf(concept))
    byKey.set(keyOf(concept), seen ? combine(seen, concept, addedLabelsWin) : { ...concept })
  }
  return [...byKey.values()].sort(compareConcepts)
}

/** One concept of a source's list, deduplicated and ordered (`unionConcepts` with nothing kept). */
export const orderedConcepts = (concepts: readonly WorkConcept[]): WorkConcept[] =>
  unionConcepts([], concepts)

function combine(seen: WorkConcept, next: WorkConcept, nextLabelWins: boolean): WorkConcept {
  return {
    scheme: seen.scheme,
    id: seen.id,
    label: nextLabelWins ? next.label : seen.label,
    score: Math.max(seen.score, next.score),
    major: seen.major || next.major,
  }
}

/** A source's confidence as a score in 0..1; 1 when it gives none or gives nonsense. */
export function conceptScore(raw: number | null | undefined): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return 1
  return Math.min(1, Math.max(0, raw))
}
