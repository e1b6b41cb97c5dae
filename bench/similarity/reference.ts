import type { SyntheticOrganization } from './generate.js'

/**
 * A reference ranking computed in memory, not through the API: TF-IDF cosine over each expert's
 * profile text and loaded works (titles and abstracts). It shows what the simplest text model reaches on
 * the generated data, so a figure of the meaning engine can be read against it (and the data's
 * difficulty judged) without trusting either alone.
 */

type Vector = Map<string, number>

const wordsOf = (text: string) =>
  (text.toLowerCase().match(/\p{L}+/gu) ?? []).filter((word) => word.length >= 4)

function counts(texts: readonly string[]): Map<string, number> {
  const counted = new Map<string, number>()
  for (const text of texts) for (const word of wordsOf(text)) counted.set(word, (counted.get(word) ?? 0) + 1)
  return counted
}

export class TfIdfReference {
  readonly #vectors: Map<number, Vector>
  readonly #frequencies = new Map<string, number>()
  readonly #documents: number

  constructor(organization: SyntheticOrganization) {
    const texts = new Map<number, string[]>()
    for (const expert of organization.experts)
      texts.set(expert.index, [
        expert.tagline,
        expert.biography,
        ...expert.topics.map((topic) => topic.label),
      ])
    for (const work of organization.works)
      for (const author of work.authors) texts.get(author)?.push(work.title, work.abstract)
    const counted = new Map([...texts].map(([index, list]) => [index, counts(list)]))
    for (const words of counted.values())
      for (const word of words.keys()) this.#frequencies.set(word, (this.#frequencies.get(word) ?? 0) + 1)
    this.#documents = counted.size
    this.#vectors = new Map([...counted].map(([index, words]) => [index, this.#vectorOf(words)]))
  }

  #vectorOf(words: Map<string, number>): Vector {
    const vector: Vector = new Map()
    let norm = 0
    for (const [word, count] of words) {
      const weight =
        (1 + Math.log(count)) * Math.log(this.#documents / (this.#frequencies.get(word) ?? this.#documents))
      vector.set(word, weight)
      norm += weight * weight
    }
    const length = Math.sqrt(norm) || 1
    for (const [word, weight] of vector) vector.set(word, weight / length)
    return vector
  }

  #rank(query: Vector, k: number, exclude?: number): number[] {
    const scored: [number, number][] = []
    for (const [index, vector] of this.#vectors) {
      if (index === exclude) continue
      let score = 0
      for (const [word, weight] of query) score += weight * (vector.get(word) ?? 0)
      scored.push([index, score])
    }
    return scored
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([index]) => index)
  }

  /** Expert indexes for a text, best first. */
  forText(text: string, k: number): number[] {
    return this.#rank(this.#vectorOf(counts([text])), k)
  }

  /** Expert indexes most like the expert, best first, the expert left out. */
  similarTo(expert: number, k: number): number[] {
    return this.#rank(this.#vectors.get(expert) ?? new Map(), k, expert)
  }
}
