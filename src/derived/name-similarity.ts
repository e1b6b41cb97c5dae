/**
 * Names found with typos and without accents (CONTRACT §20): a name and a query are compared by
 * pg_trgm's trigram similarity, computed here so that both databases rank alike. The databases only
 * find candidates (PostgreSQL's `%` over a trigram index, SQLite's FTS5 `trigram` tokenizer); this
 * module decides which of them match and in what order.
 */

/** pg_trgm's default `pg_trgm.similarity_threshold`: a name at least this similar to the query matches. */
export const NAME_SIMILARITY_THRESHOLD = 0.3

/**
 * A word of the query is a name's word misspelt when they are at least this similar ("jon"/"john"
 * 0.29, "smiht"/"smith" 0.33); a word like no word of the name ("history" against "hans muller")
 * keeps the name from matching, as a word the text search cannot find keeps a profile out.
 */
export const WORD_SIMILARITY_THRESHOLD = 0.2

/** A query whose key has fewer letters and digits than this is not matched by likeness (no trigram of it says much). */
export const MIN_FUZZY_LENGTH = 3

/** Letters NFKD leaves whole, spelt as unaccent's rules spell them. */
const LETTERS: Record<string, string> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  ł: 'l',
  Ł: 'l',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
}
const SPECIAL_LETTERS = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'gu')
const NOT_WORD = /[^\p{L}\p{N}]+/gu

/**
 * The form names are compared in: lower-cased, without diacritics, words of letters and digits
 * separated by one space. The index stores it for every profile (`expert_search.name_key`).
 */
export function nameKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(SPECIAL_LETTERS, (letter) => LETTERS[letter] ?? letter)
    .toLowerCase()
    .replace(NOT_WORD, ' ')
    .trim()
}

/**
 * The distinct trigrams of a name key as pg_trgm takes them: each word padded with two spaces before
 * and one after, every run of three characters of it.
 */
export function trigramsOf(key: string): Set<string> {
  const trigrams = new Set<string>()
  for (const word of key.split(' ')) {
    if (word === '') continue
    const padded = [...`  ${word} `]
    for (let i = 0; i + 3 <= padded.length; i++) trigrams.add(padded.slice(i, i + 3).join(''))
  }
  return trigrams
}

/** pg_trgm's `similarity`: shared trigrams over all trigrams of the two (Jaccard), of texts folded by nameKey. */
export function nameSimilarity(a: string, b: string): number {
  return trigramSimilarity(trigramsOf(nameKey(a)), trigramsOf(nameKey(b)))
}

export function trigramSimilarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0
  for (const trigram of a) if (b.has(trigram)) shared++
  const all = a.size + b.size - shared
  return all === 0 ? 0 : shared / all
}

/**
 * How like the name the query is (`nameSimilarity` of their keys), or undefined when it does not match:
 * less similar than the threshold, or one of its words like none of the name's.
 */
export function nameLikeness(queryKey: string, name: string): number | undefined {
  const similarity = trigramSimilarity(trigramsOf(queryKey), trigramsOf(name))
  if (similarity < NAME_SIMILARITY_THRESHOLD) return undefined
  const nameWords = name.split(' ').map((word) => trigramsOf(word))
  const everyWordLike = queryKey
    .split(' ')
    .every((word) =>
      nameWords.some(
        (trigrams) => trigramSimilarity(trigramsOf(word), trigrams) >= WORD_SIMILARITY_THRESHOLD,
      ),
    )
  return everyWordLike ? similarity : undefined
}

/** Whether a query key is long enough to be matched by likeness. */
export function fuzzyQueryKey(q: string): string | undefined {
  const key = nameKey(q)
  return key.replaceAll(' ', '').length >= MIN_FUZZY_LENGTH ? key : undefined
}
