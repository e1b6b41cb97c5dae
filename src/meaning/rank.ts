import type { Queryable } from '../db/database.js'
import {
  readConceptFrequencies,
  readConceptPostings,
  readConceptsWithFrequencies,
  readTermConcepts,
  readTermFrequencies,
  readTermPostings,
  readTermWorks,
  type Totals,
} from './repository.js'

/**
 * The rankings finding by meaning fuses (SOURCES §7): concept cosine, BM25 over "more like this" terms,
 * and reciprocal rank fusion. Candidate sets are bounded at every step: the query's strongest concepts
 * and terms only, postings of keys held by at most MAX_POSTINGS experts, the best CANDIDATES of a
 * first pass scored exactly. Ties are broken by expert id, so both databases give one order.
 */

/** Concepts of the query (the source's strongest) that pick candidates. */
const QUERY_CONCEPTS = 50
/** Terms of a "more like this" query (Lucene's max_query_terms). */
export const QUERY_TERMS = 25
/** Keys held by more experts than this pick no candidates (they still count in an exact cosine). */
const MAX_POSTINGS = 5000
/**
 * Postings one ranking reads at most: keys are taken strongest first while their document frequencies
 * fit (a key that would overflow is passed over, rarer ones after it may still fit), so a query's cost
 * stops growing with the organization.
 */
const POSTINGS_BUDGET = 10_000
/** Candidates of the concept ranking whose full vectors are read for an exact cosine. */
const CANDIDATES = 100
/** Ranks each list keeps for fusion. */
export const LIST_DEPTH = 100
export const RRF_K = 60
const K1 = 1.2
const B = 0.75

export const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Ids ordered by score (higher first), then id. */
export function ordered(scores: Map<number, number>): number[] {
  return [...scores].sort(([a, x], [b, y]) => y - x || a - b).map(([id]) => id)
}

/**
 * The first `count` of ordered(scores), without sorting them all: one pass keeps the best `count` so far
 * in order, so a ranking of thousands of candidates costs their number, not its logarithm times it.
 */
export function best(scores: Map<number, number>, count: number): number[] {
  const ids: number[] = []
  const values: number[] = []
  const before = (id: number, value: number, at: number) =>
    value > (values[at] ?? 0) || (value === values[at] && id < (ids[at] ?? 0))
  for (const [id, value] of scores) {
    const last = ids.length - 1
    if (ids.length === count && !before(id, value, last)) continue
    let low = 0
    let high = ids.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (before(id, value, middle)) high = middle
      else low = middle + 1
    }
    ids.splice(low, 0, id)
    values.splice(low, 0, value)
    if (ids.length > count) {
      ids.pop()
      values.pop()
    }
  }
  return ids
}

/** Reciprocal rank fusion: Σ weight / (k + rank), ranks from 1 (Cormack, Clarke & Büttcher 2009). */
export function fuse(lists: readonly { ids: readonly number[]; weight?: number }[]): Map<number, number> {
  const fused = new Map<number, number>()
  for (const { ids, weight = 1 } of lists)
    for (const [index, id] of ids.entries())
      fused.set(id, (fused.get(id) ?? 0) + weight / (RRF_K + index + 1))
  return fused
}

/** The keys, in their order, whose document frequencies fit in POSTINGS_BUDGET together. */
function withinBudget<T>(keys: readonly T[], df: (key: T) => number): T[] {
  let left = POSTINGS_BUDGET
  return keys.filter((key) => {
    const cost = df(key)
    if (cost > left) return false
    left -= cost
    return true
  })
}

export const conceptIdf = (experts: number, df: number) => Math.log(1 + experts / Math.max(df, 1))

/** A concept vector: key → weight with IDF applied, and the label each key had. */
export interface ConceptVector {
  weights: Map<string, number>
  labels: Map<string, string>
}

/** Weights × IDF of rows of one expert; keys nobody holds visibly any more are left out. */
export function vectorOf(
  rows: readonly { concept: string; label: string; weight: number }[],
  frequencies: Map<string, number>,
  totals: Totals,
): ConceptVector {
  const weights = new Map<string, number>()
  const labels = new Map<string, string>()
  for (const row of rows) {
    const df = frequencies.get(row.concept)
    if (df === undefined) continue
    weights.set(row.concept, row.weight * conceptIdf(totals.conceptExperts, df))
    labels.set(row.concept, row.label)
  }
  return { weights, labels }
}

export const norm = (weights: Map<string, number>) =>
  Math.sqrt([...weights.values()].reduce((sum, w) => sum + w * w, 0))

export interface ConceptRanking {
  /** Candidates by cosine, best first. */
  ids: number[]
  vectors: Map<number, ConceptVector>
}

/** Experts by the cosine of their concept vector with `query` (IDF applied), `exclude` left out. */
export async function rankByConcepts(
  db: Queryable,
  orgId: number,
  query: Map<string, number>,
  totals: Totals,
  exclude?: number,
): Promise<ConceptRanking> {
  const queryNorm = norm(query)
  if (queryNorm === 0) return { ids: [], vectors: new Map() }
  const strongest = [...query]
    .sort(([a, x], [b, y]) => y - x || byCode(a, b))
    .slice(0, QUERY_CONCEPTS)
    .map(([key]) => key)
  const frequencies = await readConceptFrequencies(db, orgId, strongest)
  const picking = withinBudget(
    strongest.filter((key) => (frequencies.get(key) ?? 0) <= MAX_POSTINGS),
    (key) => frequencies.get(key) ?? 0,
  )
  const partial = new Map<number, number>()
  for (const posting of await readConceptPostings(db, orgId, picking)) {
    if (posting.expert_id === exclude) continue
    const df = frequencies.get(posting.concept) ?? 1
    const w = posting.weight * conceptIdf(totals.conceptExperts, df)
    partial.set(
      posting.expert_id,
      (partial.get(posting.expert_id) ?? 0) + w * (query.get(posting.concept) ?? 0),
    )
  }
  const candidates = best(partial, CANDIDATES)
  const rows = await readConceptsWithFrequencies(db, orgId, candidates)
  const allFrequencies = new Map(rows.map((row) => [row.concept, row.df]))
  const byExpert = new Map<number, typeof rows>()
  for (const row of rows) {
    const list = byExpert.get(row.expert_id)
    if (list) list.push(row)
    else byExpert.set(row.expert_id, [row])
  }
  const cosine = new Map<number, number>()
  const vectors = new Map<number, ConceptVector>()
  for (const id of candidates) {
    const vector = vectorOf(byExpert.get(id) ?? [], allFrequencies, totals)
    const length = norm(vector.weights)
    if (length === 0) continue
    let dot = 0
    for (const [key, w] of vector.weights) dot += w * (query.get(key) ?? 0)
    if (dot <= 0) continue
    cosine.set(id, dot / (length * queryNorm))
    vectors.set(id, vector)
  }
  return { ids: best(cosine, LIST_DEPTH), vectors }
}

export interface QueryTerm {
  term: string
  word: string
  tf: number
}

/**
 * The "more like this" query (SOURCES §7.1): the QUERY_TERMS terms of the source with the highest
 * tf-idf among those held by at least `minDf` documents (2 for an expert: someone else must use it)
 * and by at most half the documents, their postings within POSTINGS_BUDGET.
 */
export async function moreLikeThisTerms(
  db: Queryable,
  orgId: number,
  source: readonly QueryTerm[],
  totals: Totals,
  minDf: number,
): Promise<{ terms: QueryTerm[]; frequencies: Map<string, number> }> {
  const frequencies = await readTermFrequencies(
    db,
    orgId,
    source.map((term) => term.term),
  )
  const most = Math.min(totals.documents / 2, MAX_POSTINGS)
  const scored = source
    .map((term) => ({ term, df: frequencies.get(term.term) ?? 0 }))
    .filter(({ df }) => df >= minDf && df <= most)
    .map(({ term, df }) => ({ term, score: term.tf * (Math.log(totals.documents / (df + 1)) + 1) }))
    .sort((a, b) => b.score - a.score || byCode(a.term.term, b.term.term))
  const terms = withinBudget(
    scored.map(({ term }) => term),
    (term) => frequencies.get(term.term) ?? 0,
  ).slice(0, QUERY_TERMS)
  return { terms, frequencies }
}

export interface TermRanking {
  ids: number[]
  /** A candidate's score per query term it holds (the reasons of those answered). */
  contributionsOf(id: number): Map<string, number>
}

/** BM25 (k1 1.2, b 0.75) of the query terms over the organization's documents, `exclude` left out. */
export async function rankByTerms(
  db: Queryable,
  orgId: number,
  terms: readonly QueryTerm[],
  frequencies: Map<string, number>,
  totals: Totals,
  exclude?: number,
): Promise<TermRanking> {
  if (terms.length === 0 || totals.documents === 0) return { ids: [], contributionsOf: () => new Map() }
  const average = totals.totalLength / totals.documents
  const postings = await readTermPostings(
    db,
    orgId,
    terms.map((term) => term.term),
  )
  const byTerm = new Map<string, typeof postings>()
  for (const posting of postings) {
    const list = byTerm.get(posting.term)
    if (list) list.push(posting)
    else byTerm.set(posting.term, [posting])
  }
  // Term by term in code order: each expert's score is summed in the same order whatever the order the
  // database gives the rows in, and nothing is kept per candidate but its score.
  const scores = new Map<number, number>()
  const perTerm = new Map<string, Map<number, number>>()
  for (const term of [...byTerm.keys()].sort(byCode)) {
    const df = frequencies.get(term) ?? 1
    const idf = Math.log(1 + (totals.documents - df + 0.5) / (df + 0.5))
    const ofTerm = new Map<number, number>()
    for (const posting of byTerm.get(term) ?? []) {
      if (posting.expert_id === exclude) continue
      const score =
        (idf * posting.tf * (K1 + 1)) / (posting.tf + K1 * (1 - B + (B * posting.length) / (average || 1)))
      scores.set(posting.expert_id, (scores.get(posting.expert_id) ?? 0) + score)
      ofTerm.set(posting.expert_id, score)
    }
    perTerm.set(term, ofTerm)
  }
  return {
    ids: best(scores, LIST_DEPTH),
    contributionsOf(id) {
      const mine = new Map<string, number>()
      for (const [term, ofTerm] of perTerm) {
        const score = ofTerm.get(id)
        if (score !== undefined) mine.set(term, score)
      }
      return mine
    },
  }
}

/** The keys of `a` also in `b`, by the product of their weights, strongest first (then by label). */
export function sharedConcepts(
  a: Map<string, number>,
  b: ConceptVector,
  count: number,
): { key: string; label: string }[] {
  return [...b.weights]
    .filter(([key]) => a.has(key))
    .map(([key, w]) => ({ key, label: b.labels.get(key) ?? key, product: w * (a.get(key) ?? 0) }))
    .sort((x, y) => y.product - x.product || byCode(x.label, y.label))
    .slice(0, count)
    .map(({ key, label }) => ({ key, label }))
}

/** A candidate's strongest query terms, strongest first. */
export function strongestTerms(contributions: Map<string, number> | undefined, count: number): string[] {
  return [...(contributions ?? [])]
    .sort(([a, x], [b, y]) => y - x || byCode(a, b))
    .slice(0, count)
    .map(([term]) => term)
}

/** Concepts a text's words imply, at most this many (the strongest). */
const INFERRED_CONCEPTS = 10
/** An implied concept weaker than this share of the strongest is left out. */
const INFERRED_FLOOR = 0.1
/** A word speaks for the concepts nearly as often with it as its most frequent one: this share of it, or more. */
const WORD_FOCUS = 0.8
/** A word and a concept seen together in fewer works tell nothing. */
const MIN_PAIR_WORKS = 2

/**
 * The concepts a text is about, inferred from its words through the organization's claimed works
 * (migration 0033): a word held by n works, c of which have concept k, speaks for k with its share c / n
 * (a word's evidence goes to the concepts it goes with most, WORD_FOCUS), weighted by the word's
 * frequency in the text (1 + ln tf) and its rarity among the works (ln(works / n)). Words held by more
 * than half the works or than MAX_POSTINGS speak for nothing. Keys → evidence, strongest first, each
 * divided by the strongest (so 1 at most).
 */
export async function inferConcepts(
  db: Queryable,
  orgId: number,
  terms: readonly QueryTerm[],
  totals: Totals,
): Promise<Map<string, number>> {
  if (totals.works === 0 || terms.length === 0) return new Map()
  const most = Math.min(totals.works / 2, MAX_POSTINGS)
  const held = await readTermWorks(
    db,
    orgId,
    terms.map((term) => term.term),
  )
  const speaking = terms.filter((term) => (held.get(term.term)?.works ?? 0) <= most)
  // Only a word's pairs of at least WORD_FOCUS of its most frequent one count: only those are read.
  const least = new Map<string, number>()
  for (const term of speaking) {
    const top = held.get(term.term)?.top ?? 0
    if (top >= MIN_PAIR_WORKS) least.set(term.term, Math.max(MIN_PAIR_WORKS, Math.ceil(WORD_FOCUS * top)))
  }
  const pairs = await readTermConcepts(db, orgId, least)
  const byTerm = new Map<string, { concept: string; works: number }[]>()
  for (const pair of pairs) {
    const list = byTerm.get(pair.term)
    if (list) list.push(pair)
    else byTerm.set(pair.term, [pair])
  }
  const evidence = new Map<string, number>()
  for (const term of speaking) {
    const works = held.get(term.term)?.works ?? 0
    const concepts = byTerm.get(term.term) ?? []
    if (works === 0 || concepts.length === 0) continue
    const weight = (1 + Math.log(term.tf)) * Math.log(totals.works / works)
    const best = Math.max(...concepts.map((pair) => pair.works))
    for (const pair of concepts)
      if (pair.works >= WORD_FOCUS * best)
        evidence.set(pair.concept, (evidence.get(pair.concept) ?? 0) + (weight * pair.works) / works)
  }
  const strongest = [...evidence]
    .filter(([, value]) => value > 0)
    .sort(([a, x], [b, y]) => y - x || byCode(a, b))
    .slice(0, INFERRED_CONCEPTS)
  const top = strongest[0]?.[1] ?? 0
  return new Map(
    strongest.filter(([, value]) => value >= INFERRED_FLOOR * top).map(([key, value]) => [key, value / top]),
  )
}
