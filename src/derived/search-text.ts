import { type RawBuilder, sql } from 'kysely'

/** Query words: runs of letters, digits and combining marks, as the FTS5 tokenizer and PostgreSQL's parser see them. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u

export const MAX_TERMS = 20

/** The words of a free-text query, in order. */
export function searchTerms(q: string): string[] {
  return (q.normalize('NFC').match(WORD) ?? []).filter((word) => HAS_LETTER_OR_DIGIT.test(word))
}

/** Lower-cased, without diacritics: sort keys compare alike on both databases. */
export function foldForSort(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()
}

/** The key a facet value or a company is matched by (case-insensitive). */
export function valueKey(value: string): string {
  return value.trim().toLowerCase()
}

/**
 * SQLite FTS5 query: every word must match, the last one as a prefix. Each word is quoted, so query
 * syntax (AND, OR, NEAR, column names) in the input is plain text. `column` restricts every word to it
 * (a column name, or `{a b}` for several).
 */
export function fts5Query(terms: string[], column?: string): string {
  const filter = column ? `${column} : ` : ''
  return terms.map((term, i) => `${filter}"${term}"${i === terms.length - 1 ? '*' : ''}`).join(' AND ')
}

/**
 * PostgreSQL tsquery with the same meaning as fts5Query, unaccented like the indexed text. Each
 * word goes through quote_literal, so nothing in it is read as tsquery syntax. `weight` restricts
 * the words to the columns indexed with that setweight letter.
 */
export function tsQuery(terms: string[], weight = ''): RawBuilder<unknown> {
  return sql.join(
    terms.map((term, i) => {
      const suffix = `:${i === terms.length - 1 ? '*' : ''}${weight}`
      return sql`to_tsquery('simple', quote_literal(expertdir_unaccent(${term})) || ${suffix})`
    }),
    sql` && `,
  )
}
