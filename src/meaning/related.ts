import type { Queryable } from '../db/database.js'
import type { Audience } from '../derived/audience.js'
import { conceptKey } from '../derived/meaning/analyzer.js'
import { byCode } from './rank.js'
import { readConceptHolders, readConceptsOf, readVisibleConceptCounts } from './repository.js'

/**
 * Related topics (SOURCES §7.3): concepts that the experts holding a topic also hold, by normalised PMI
 * over the experts' concept sets, npmi(a, b) = ln(p(a,b) / (p(a)·p(b))) / −ln p(a,b), counted among the
 * experts the audience may see. A pair needs at least MIN_PAIR experts (PMI overrates rare pairs).
 */

const MIN_PAIR = 3
/** Holders of the topic read at most (the pairs of a very common topic are counted over these). */
const MAX_HOLDERS = 5000
/** Co-occurring concepts scored at most (the most frequent pairs). */
const MAX_PAIRS = 200

export interface RelatedTopic {
  topic: string
  strength: number
  experts: number
}

export async function relatedTopics(
  db: Queryable,
  orgId: number,
  topic: string,
  audience: Audience,
  limit: number,
): Promise<RelatedTopic[]> {
  const key = conceptKey(topic)
  if (key === '') return []
  const holders = await readConceptHolders(db, orgId, key, audience, MAX_HOLDERS)
  if (holders.length < MIN_PAIR) return []
  const pairs = new Map<string, { n: number; labels: Map<string, number> }>()
  for (const row of await readConceptsOf(db, orgId, holders)) {
    if (row.concept === key) continue
    const pair = pairs.get(row.concept) ?? { n: 0, labels: new Map<string, number>() }
    pair.n++
    pair.labels.set(row.label, (pair.labels.get(row.label) ?? 0) + 1)
    pairs.set(row.concept, pair)
  }
  const frequent = [...pairs]
    .filter(([, pair]) => pair.n >= MIN_PAIR)
    .sort(([a, x], [b, y]) => y.n - x.n || byCode(a, b))
    .slice(0, MAX_PAIRS)
  if (frequent.length === 0) return []
  const { counts, experts } = await readVisibleConceptCounts(
    db,
    orgId,
    [key, ...frequent.map(([other]) => other)],
    audience,
  )
  const ofTopic = counts.get(key) ?? holders.length
  const related: RelatedTopic[] = []
  for (const [other, pair] of frequent) {
    const ofOther = counts.get(other) ?? pair.n
    const joint = pair.n / experts
    const strength =
      joint >= 1 ? 1 : Math.log(joint / ((ofTopic / experts) * (ofOther / experts))) / -Math.log(joint)
    const label = [...pair.labels].sort(([a, x], [b, y]) => y - x || byCode(a, b))[0]?.[0] ?? other
    related.push({ topic: label, strength: Math.round(strength * 1e4) / 1e4, experts: pair.n })
  }
  return related
    .sort((a, b) => b.strength - a.strength || b.experts - a.experts || byCode(a.topic, b.topic))
    .slice(0, limit)
}
