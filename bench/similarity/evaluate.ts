import { Type } from 'typebox'
import { Value } from 'typebox/value'
import { coauthorsOf, type SyntheticOrganization } from './generate.js'
import { mean, meanPrecisionAtK, recallAtK } from './metrics.js'
import { TfIdfReference } from './reference.js'

/**
 * The evaluation's queries, sent to the API as any client would: similar experts (precision@5
 * against the co-author graph), experts for a text (recall@5: each held-out work's abstract should
 * bring one of its authors into the first five), and the plain keyword search on the same questions.
 */

export const K = 5

/** A request to the app: `app.inject` or a real HTTP client; the body is the parsed JSON. */
export type Send = (
  method: 'GET' | 'POST',
  url: string,
  payload?: Record<string, unknown>,
) => Promise<{ status: number; body: unknown }>

const ExpertList = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ experts: Type.Array(Type.Object({ username: Type.String() })) }),
})

/** The routes of the meaning engine are not there (this build has no similar or match). */
export class NotAvailable extends Error {
  constructor(readonly status: number) {
    super(`not available (${status})`)
  }
}

async function usernamesFrom(
  send: Send,
  method: 'GET' | 'POST',
  url: string,
  payload?: Record<string, unknown>,
) {
  const { status, body } = await send(method, url, payload)
  if (status === 404 || status === 405) throw new NotAvailable(status)
  if (status !== 200 || !Value.Check(ExpertList, body))
    throw new Error(`${method} ${url} answered ${status}: ${JSON.stringify(body).slice(0, 500)}`)
  return body.data.experts.map((expert) => expert.username)
}

/** Words too common in any abstract to be worth typing into a search box. */
const STOPWORDS = new Set(
  'about after also among and are but for from has have into its may more not our over such than that the their them then there these they this those was were when where which while with within'.split(
    ' ',
  ),
)

/** Document frequency of each word over every abstract of the organization, held-out ones included. */
export function documentFrequencies(organization: SyntheticOrganization): Map<string, number> {
  const frequencies = new Map<string, number>()
  for (const work of [...organization.works, ...organization.heldOut.map(({ work }) => work)])
    for (const word of new Set(wordsOf(work.abstract)))
      frequencies.set(word, (frequencies.get(word) ?? 0) + 1)
  return frequencies
}

const wordsOf = (text: string) =>
  (text.toLowerCase().match(/\p{L}+/gu) ?? []).filter((word) => word.length >= 4 && !STOPWORDS.has(word))

/** The text's rarest words (by document frequency over the organization's abstracts), rarest first. */
export function keywordsOf(text: string, frequencies: ReadonlyMap<string, number>, count: number): string[] {
  const words = [...new Set(wordsOf(text))]
  return words
    .map((word, position) => ({ word, position, frequency: frequencies.get(word) ?? 0 }))
    .sort((a, b) => a.frequency - b.frequency || a.position - b.position)
    .slice(0, count)
    .map(({ word }) => word)
}

/** How many of a text's rarest words the plain keyword query takes (the search's every word must match). */
export const KEYWORDS = 3

/**
 * The keyword baseline: the expert search (`GET .../expert?q=`), whose every word must match and which
 * takes at most 20 words, so a text cannot be pasted as it is. `plain`: one search for the text's
 * three rarest words, as a person would type them. `backoff`, a kinder baseline, reported beside it:
 * the three rarest words, then the two rarest, then each of the eight rarest alone, until five experts
 * are found, in the order found.
 */
export async function keywordRanking(
  send: Send,
  orgId: number,
  words: readonly string[],
  { strategy = 'plain', exclude }: { strategy?: 'plain' | 'backoff'; exclude?: string } = {},
): Promise<string[]> {
  const top = words.slice(0, KEYWORDS).join(' ')
  const queries = strategy === 'plain' ? [top] : [top, words.slice(0, 2).join(' '), ...words]
  const found: string[] = []
  for (const q of [...new Set(queries)].filter(Boolean)) {
    const url = `/v2/organization/${orgId}/expert?q=${encodeURIComponent(q)}&sort=relevance&page_size=${K + 1}`
    for (const username of await usernamesFrom(send, 'GET', url))
      if (username !== exclude && !found.includes(username)) found.push(username)
    if (found.length >= K) break
  }
  return found.slice(0, K)
}

export interface Measure {
  /** The meaning engine's figure; null when its route is not there. */
  meaning: number | null
  /** Why `meaning` is null: `not available (404)`. */
  unavailable?: string
  keyword: number
  /** The keyword search backing off to fewer words (texts only). */
  keywordBackoff?: number
  /** TF-IDF over the generated data in memory (reference.ts): not the API, a yardstick. */
  reference: number
  queries: number
}

export interface Evaluation {
  similar: Measure & { ceiling: number }
  match: Measure
  seconds: number
}

/** Runs `task` for each item, `NotAvailable` ending them all with the reason. */
async function rankingsOf<T>(
  items: readonly T[],
  task: (item: T) => Promise<string[]>,
): Promise<{ rankings: string[][] } | { unavailable: string }> {
  const rankings: string[][] = []
  for (const item of items) {
    try {
      rankings.push(await task(item))
    } catch (error) {
      if (error instanceof NotAvailable) return { unavailable: error.message }
      throw error
    }
  }
  return { rankings }
}

function measure(
  relevant: ReadonlySet<string>[],
  engine: { rankings: string[][] } | { unavailable: string },
  keyword: string[][],
  reference: string[][],
  score: (queries: { ranked: string[]; relevant: ReadonlySet<string> }[], k: number) => number,
): Measure {
  const queries = (rankings: string[][]) =>
    rankings.map((ranked, index) => ({ ranked, relevant: relevant[index] ?? new Set<string>() }))
  return {
    ...('rankings' in engine
      ? { meaning: score(queries(engine.rankings), K) }
      : { meaning: null, unavailable: engine.unavailable }),
    keyword: score(queries(keyword), K),
    reference: score(queries(reference), K),
    queries: relevant.length,
  }
}

/** Every measure on a loaded organization; `usernames` by expert index, as loadOrganization returned them. */
export async function evaluate(
  send: Send,
  orgId: number,
  organization: SyntheticOrganization,
  usernames: readonly string[],
): Promise<Evaluation> {
  const started = performance.now()
  const name = (index: number) => usernames[index] ?? `#${index}`
  const frequencies = documentFrequencies(organization)
  const tfidf = new TfIdfReference(organization)

  // Similar experts: the experts a work was held out for (a sample of the organization), each against its co-authors.
  const graph = coauthorsOf(organization)
  const asked = organization.heldOut
    .map(({ expert }) => expert)
    .filter((expert) => (graph.get(expert)?.size ?? 0) > 0)
  const coauthors = asked.map((expert) => new Set([...(graph.get(expert) ?? [])].map(name)))
  const similar = await rankingsOf(asked, (expert) =>
    usernamesFrom(send, 'GET', `/v2/organization/${orgId}/expert/${name(expert)}/similar?limit=${K}`),
  )
  const similarKeyword: string[][] = []
  for (const expert of asked) {
    const topics = organization.experts[expert]?.topics ?? []
    // The keyword way to "find people like X": search X's first profile topic.
    similarKeyword.push(
      await keywordRanking(send, orgId, [topics[0]?.label.toLowerCase() ?? ''], { exclude: name(expert) }),
    )
  }

  // Experts for a text: each held-out abstract, against the authors of its work.
  const authors = organization.heldOut.map(({ work }) => new Set(work.authors.map(name)))
  const match = await rankingsOf(organization.heldOut, ({ work }) =>
    usernamesFrom(send, 'POST', `/v2/organization/${orgId}/expert/match`, { text: work.abstract, limit: K }),
  )
  const matchKeyword: string[][] = []
  const matchBackoff: string[][] = []
  for (const { work } of organization.heldOut) {
    const words = keywordsOf(work.abstract, frequencies, 8)
    matchKeyword.push(await keywordRanking(send, orgId, words))
    matchBackoff.push(await keywordRanking(send, orgId, words, { strategy: 'backoff' }))
  }

  return {
    similar: {
      ...measure(
        coauthors,
        similar,
        similarKeyword,
        asked.map((expert) => tfidf.similarTo(expert, K).map(name)),
        meanPrecisionAtK,
      ),
      ceiling: mean(coauthors.map((set) => Math.min(K, set.size) / K)),
    },
    match: {
      ...measure(
        authors,
        match,
        matchKeyword,
        organization.heldOut.map(({ work }) => tfidf.forText(work.abstract, K).map(name)),
        recallAtK,
      ),
      keywordBackoff: recallAtK(
        matchBackoff.map((ranked, index) => ({ ranked, relevant: authors[index] ?? new Set<string>() })),
        K,
      ),
    },
    seconds: (performance.now() - started) / 1000,
  }
}

/** Whether the goals of issue 41 are met: recall@5 of texts >= 0.8 and at least twice the keyword search's. */
export function goalsMet(evaluation: Evaluation): { met: boolean; why: string } {
  const { meaning, keyword, unavailable } = evaluation.match
  if (meaning === null) return { met: false, why: `similar/match: ${unavailable ?? 'not available'}` }
  if (meaning < 0.8) return { met: false, why: `recall@5 ${meaning.toFixed(3)} is below 0.8` }
  if (meaning < 2 * keyword)
    return {
      met: false,
      why: `recall@5 ${meaning.toFixed(3)} is less than twice the keyword search's ${keyword.toFixed(3)}`,
    }
  return { met: true, why: 'recall@5 >= 0.8 and at least twice the keyword search' }
}
