import { stemmer } from 'stemmer'

/**
 * The one text analyzer of finding by meaning, in TypeScript so that SQLite and PostgreSQL index and
 * query the same terms: lower case, accents removed, split on anything that is not a letter or a digit,
 * English stop words and numbers dropped, then Porter's stemmer (`stemmer`). Each term keeps the word it
 * came from, so explanations can show a word rather than a stem.
 */

/** English function words and the filler of academic prose ("study", "results") that match everyone. */
const STOP_WORDS = new Set(
  `a about above after again against all also although am among an and any are around as at be because been
before being below between both but by can could did do does doing done down during each either et etc
few for from further had has have having he her here hers herself him himself his how however i if in into
is it its itself just may me might more most much must my myself no nor not now of off on once only or other
our ours ourselves out over own per rather same she should since so some such than that the their theirs
them themselves then there these they this those through thus to too under until up upon us use used using
very via was we well were what when where whether which while who whom whose why will with within without
would yet you your yours yourself yourselves
among across al based dr eg ie including new one two three first second several many work works working
study studies studied result results show shows shown paper research researcher professor department
university school faculty`
    .split(/\s+/)
    .filter(Boolean),
)

/** Lower case without accents (`Zoë Müller` → `zoe muller`). */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
}

/** The words of a text, folded, in order (letters and digits; everything else separates). */
export function words(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? []
}

export interface Token {
  term: string
  word: string
}

/** The analyzed terms of a text, in order, each with the folded word it came from. */
export function analyze(text: string): Token[] {
  const tokens: Token[] = []
  for (const word of words(text)) {
    if (word.length < 2 || word.length > 40 || STOP_WORDS.has(word) || /^\p{N}+$/u.test(word)) continue
    tokens.push({ term: stemmer(word), word })
  }
  return tokens
}

export interface TermCount {
  term: string
  /** The most frequent word of the term in the text (ties: the shorter, then the first in code-point order). */
  word: string
  tf: number
}

/** Term frequencies of a text and its length in terms; the terms sorted by term. */
export function termCounts(text: string): { terms: TermCount[]; length: number } {
  const tokens = analyze(text)
  const byTerm = new Map<string, Map<string, number>>()
  for (const { term, word } of tokens) {
    const forms = byTerm.get(term) ?? new Map<string, number>()
    forms.set(word, (forms.get(word) ?? 0) + 1)
    byTerm.set(term, forms)
  }
  const terms: TermCount[] = []
  for (const [term, forms] of byTerm) {
    let best = ''
    let bestCount = 0
    let tf = 0
    for (const [word, count] of forms) {
      tf += count
      if (
        count > bestCount ||
        (count === bestCount && (word.length < best.length || (word.length === best.length && word < best)))
      ) {
        best = word
        bestCount = count
      }
    }
    terms.push({ term, word: best, tf })
  }
  terms.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
  return { terms, length: tokens.length }
}

/**
 * A concept's key: its label folded, its words joined by `-` (`Coastal Engineering` and `coastal
 * engineering` are one concept, whichever source or section named it); empty when it has no words.
 */
export function conceptKey(label: string): string {
  return words(label).join('-').slice(0, 200)
}

/** The longest concept label (in words) that text is searched for. */
export const MAX_CONCEPT_WORDS = 5

/** Every run of 1..MAX_CONCEPT_WORDS consecutive words of a text as a concept key, each once. */
export function conceptKeysIn(text: string): Map<string, number> {
  const all = words(text)
  const found = new Map<string, number>()
  for (let start = 0; start < all.length; start++) {
    for (let size = 1; size <= MAX_CONCEPT_WORDS && start + size <= all.length; size++) {
      const key = all.slice(start, start + size).join('-')
      if (key.length > 200) break
      found.set(key, (found.get(key) ?? 0) + 1)
    }
  }
  return found
}
