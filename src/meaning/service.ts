import type { Queryable } from '../db/database.js'
import { parseItemData } from '../db/item-data.js'
import type { Audience } from '../derived/audience.js'
import { conceptKey, conceptKeysIn, termCounts } from '../derived/meaning/analyzer.js'
import { workText } from '../derived/meaning/fingerprint.js'
import { profileNotFound } from '../experts/profile-type.js'
import { findExpert } from '../experts/repository.js'
import { propertyOf } from '../validation/guards.js'
import { normalizeDoi, normalizePmid } from '../works/sources/normalize.js'
import type { EmbeddingRanking } from './embeddings/ranking.js'
import {
  byCode,
  type ConceptVector,
  conceptIdf,
  fuse,
  inferConcepts,
  moreLikeThisTerms,
  ordered,
  type QueryTerm,
  rankByConcepts,
  rankByTerms,
  sharedConcepts,
  strongestTerms,
  vectorOf,
} from './rank.js'
import {
  type ExpertCard,
  readCoauthoredWorks,
  readConceptFrequencies,
  readConceptsWithFrequencies,
  readTermsOf,
  readTotals,
  readVisibleDepartments,
  readVisibleExperts,
  readWorksByIdentifiers,
  type Totals,
} from './repository.js'
import type { ReasonData, SimilarExpertData } from './schemas.js'

/**
 * Similar experts and experts for a text (CONTRACT §20, SOURCES §7): each ranking is narrowed to the
 * experts the audience may see before ranks are fused, so a hidden expert never takes a rank, a place
 * or a reason. Reasons come only from the two visible sides: the source (or the text) and the candidate.
 *
 * With embeddings configured (`embeddings`), their cosine ranking is one more list, narrowed the same way.
 * It gives no reasons: an expert found by it alone is listed with the reasons the other lists give it,
 * possibly none.
 */

const CONCEPT_REASONS = 3
const TERM_REASONS = 3
const COAUTHOR_REASONS = 2
/**
 * For a text, the concept ranking (labels named, concepts its words imply) weighs twice the words'
 * ranking: a concept gathers every word a text may use for it, where BM25 needs the very words.
 */
const TEXT_CONCEPT_WEIGHT = 2
/** The same department is a weak signal: a quarter of a list's weight, among experts found otherwise. */
const DEPARTMENT_WEIGHT = 0.25

const AVATAR_NAMES = { small: 's', medium: 'm', large: 'l', original: 'o' } as const

function urlOf(data: Record<string, unknown>, name: string): string {
  const url = propertyOf(data[name], 'url')
  return typeof url === 'string' ? url : ''
}

function cardOf(card: ExpertCard, score: number, reasons: ReasonData[]): SimilarExpertData {
  const avatar = card.avatar ? parseItemData(card.avatar) : {}
  return {
    username: card.expert.username,
    firstname: card.expert.firstname,
    lastname: card.expert.lastname,
    job_title: card.expert.job_title,
    avatar: {
      small: urlOf(avatar, AVATAR_NAMES.small),
      medium: urlOf(avatar, AVATAR_NAMES.medium),
      large: urlOf(avatar, AVATAR_NAMES.large),
      original: urlOf(avatar, AVATAR_NAMES.original),
    },
    score: Math.round(score * 1e6) / 1e6,
    reasons,
  }
}

const keep = (ids: readonly number[], visible: Map<number, unknown>) => ids.filter((id) => visible.has(id))

interface Coauthorship {
  ids: number[]
  titles: Map<number, string[]>
}

/** Experts who claimed works the source claimed, by how many (then id), with the works' titles, newest first. */
async function coauthorsOf(db: Queryable, orgId: number, expertId: number): Promise<Coauthorship> {
  const rows = await readCoauthoredWorks(db, orgId, expertId)
  rows.sort((a, b) => (b.year ?? 0) - (a.year ?? 0) || a.work_id - b.work_id)
  const counts = new Map<number, number>()
  const titles = new Map<number, string[]>()
  for (const row of rows) {
    counts.set(row.expert_id, (counts.get(row.expert_id) ?? 0) + 1)
    const title = workText(row.fields).title
    if (title) titles.set(row.expert_id, [...(titles.get(row.expert_id) ?? []), title])
  }
  return { ids: ordered(counts), titles }
}

/** The visible experts most like `username` (404 when the audience may not see it). */
export async function similarExperts(
  db: Queryable,
  orgId: number,
  username: string,
  audience: Audience,
  limit: number,
  embeddings?: EmbeddingRanking,
): Promise<SimilarExpertData[]> {
  const source = await findExpert(db, orgId, username)
  if (!source || (audience === 'public' && (source.is_published !== 1 || source.is_private !== 0)))
    throw profileNotFound('expert', username)
  const totals = await readTotals(db, orgId)

  const sourceRows = await readConceptsWithFrequencies(db, orgId, [source.id])
  const sourceVector = vectorOf(sourceRows, new Map(sourceRows.map((row) => [row.concept, row.df])), totals)
  const concepts = await rankByConcepts(db, orgId, sourceVector.weights, totals, source.id)

  const sourceTerms = await readTermsOf(db, orgId, source.id)
  const words = new Map(sourceTerms.map((term) => [term.term, term.word]))
  const query = await moreLikeThisTerms(db, orgId, sourceTerms, totals, 2)
  const terms = await rankByTerms(db, orgId, query.terms, query.frequencies, totals, source.id)

  const coauthors = await coauthorsOf(db, orgId, source.id)
  const nearest = embeddings ? await embeddings.forExpert(orgId, source.id) : []

  const visible = await readVisibleDepartments(
    db,
    orgId,
    [...new Set([...concepts.ids, ...terms.ids, ...coauthors.ids, ...nearest])],
    audience,
  )
  const lists = [
    keep(concepts.ids, visible),
    keep(terms.ids, visible),
    keep(coauthors.ids, visible),
    keep(nearest, visible),
  ]
  const fused = fuse(lists.map((ids) => ({ ids })))
  const department = source.department?.trim()
  if (department) {
    const sameDepartment = ordered(fused).filter((id) => visible.get(id)?.trim() === department)
    for (const [id, bonus] of fuse([{ ids: sameDepartment, weight: DEPARTMENT_WEIGHT }]))
      fused.set(id, (fused.get(id) ?? 0) + bonus)
  }
  const best = ordered(fused).slice(0, limit)
  const cards = await readVisibleExperts(db, orgId, best, audience)
  return best.flatMap((id) => {
    const card = cards.get(id)
    if (!card) return []
    const vector = concepts.vectors.get(id)
    const reasons: ReasonData[] = [
      ...(vector ? sharedConcepts(sourceVector.weights, vector, CONCEPT_REASONS) : []).map(({ label }) => ({
        kind: 'concept' as const,
        label,
      })),
      ...(coauthors.titles.get(id) ?? []).slice(0, COAUTHOR_REASONS).map((label) => ({
        kind: 'coauthor' as const,
        label,
      })),
      ...strongestTerms(terms.contributionsOf(id), TERM_REASONS).map((term) => ({
        kind: 'term' as const,
        label: words.get(term) ?? term,
      })),
    ]
    return [cardOf(card, fused.get(id) ?? 0, reasons)]
  })
}

const DOI_IN_TEXT = /\b10\.\d{4,9}\/[^\s"'<>]+/g
const PMID_IN_TEXT = /\bPMID:?\s*(\d{1,9})\b/gi

/** DOIs and PMIDs a text names, normalised. */
export function identifiersIn(text: string): { dois: string[]; pmids: string[] } {
  const dois = new Set<string>()
  for (const [raw] of text.matchAll(DOI_IN_TEXT)) {
    const doi = normalizeDoi(raw.replace(/[.,;:)\]}]+$/, ''))
    if (doi) dois.add(doi)
  }
  const pmids = new Set<string>()
  for (const match of text.matchAll(PMID_IN_TEXT)) {
    const pmid = normalizePmid(match[1])
    if (pmid) pmids.add(pmid)
  }
  return { dois: [...dois].sort(byCode).slice(0, 50), pmids: [...pmids].sort(byCode).slice(0, 50) }
}

/**
 * The concept query of a text: the concept labels it contains and the concepts its words imply (a label
 * named counts as much as the strongest concept implied, however often it is named), and the concepts
 * of the works it names.
 */
async function conceptQueryOf(
  db: Queryable,
  orgId: number,
  text: string,
  terms: readonly QueryTerm[],
  totals: Totals,
) {
  const experts = totals.conceptExperts
  const mentioned = conceptKeysIn(text)
  const inferred = await inferConcepts(db, orgId, terms, totals)
  const frequencies = await readConceptFrequencies(db, orgId, [
    ...new Set([...mentioned.keys(), ...inferred.keys()]),
  ])
  const query = new Map<string, number>()
  for (const [key, df] of frequencies)
    query.set(key, Math.max(mentioned.has(key) ? 1 : 0, inferred.get(key) ?? 0) * conceptIdf(experts, df))
  const { dois, pmids } = identifiersIn(text)
  const named = new Map<string, number>()
  for (const work of await readWorksByIdentifiers(db, orgId, dois, pmids))
    for (const concept of workText(work.fields).concepts) {
      const key = conceptKey(concept.label)
      if (key) named.set(key, (named.get(key) ?? 0) + concept.score * (concept.major ? 1 : 0.5))
    }
  const namedFrequencies = await readConceptFrequencies(db, orgId, [...named.keys()])
  for (const [key, weight] of named) {
    const df = namedFrequencies.get(key)
    if (df !== undefined) query.set(key, (query.get(key) ?? 0) + weight * conceptIdf(experts, df))
  }
  return query
}

/** The visible experts for a text: its "more like this" terms fused with its concepts. */
export async function matchExperts(
  db: Queryable,
  orgId: number,
  text: string,
  audience: Audience,
  limit: number,
  embeddings?: EmbeddingRanking,
): Promise<SimilarExpertData[]> {
  // The text's embedding is asked for while the other rankings run; it never rejects for the provider.
  const embedded = embeddings ? embeddings.forText(orgId, text) : Promise.resolve([])
  embedded.catch(() => {})
  const totals = await readTotals(db, orgId)
  const counted = termCounts(text).terms
  const words = new Map(counted.map((term) => [term.term, term.word]))
  const query = await moreLikeThisTerms(db, orgId, counted, totals, 1)
  const conceptQuery = await conceptQueryOf(db, orgId, text, query.terms, totals)
  const concepts = await rankByConcepts(db, orgId, conceptQuery, totals)
  const terms = await rankByTerms(db, orgId, query.terms, query.frequencies, totals)
  const nearest = await embedded
  const visible = await readVisibleDepartments(
    db,
    orgId,
    [...new Set([...concepts.ids, ...terms.ids, ...nearest])],
    audience,
  )
  const fused = fuse([
    { ids: keep(concepts.ids, visible), weight: TEXT_CONCEPT_WEIGHT },
    { ids: keep(terms.ids, visible) },
    { ids: keep(nearest, visible) },
  ])
  const best = ordered(fused).slice(0, limit)
  const cards = await readVisibleExperts(db, orgId, best, audience)
  return best.flatMap((id) => {
    const card = cards.get(id)
    if (!card) return []
    const vector: ConceptVector | undefined = concepts.vectors.get(id)
    const reasons: ReasonData[] = [
      ...(vector ? sharedConcepts(conceptQuery, vector, CONCEPT_REASONS) : []).map(({ label }) => ({
        kind: 'concept' as const,
        label,
      })),
      ...strongestTerms(terms.contributionsOf(id), TERM_REASONS).map((term) => ({
        kind: 'term' as const,
        label: words.get(term) ?? term,
      })),
    ]
    return [cardOf(card, fused.get(id) ?? 0, reasons)]
  })
}
