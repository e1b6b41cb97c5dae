import { normalizeOrcid as checkedOrcid, orcidCheckCharacter } from '../../validation/orcid.js'

/**
 * The identifiers and titles every connector normalises the same way (SOURCES.md §5), so that the
 * importer can match a DOI from ORCID with the same DOI from Crossref.
 */

const DOI_PREFIX = /^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i

/** Percent-decodes until nothing changes, so a twice-encoded DOI and its plain form agree. */
function decodeFully(text: string): string {
  let current = text
  for (let round = 0; round < 5; round += 1) {
    let decoded: string
    try {
      decoded = decodeURIComponent(current)
    } catch {
      return current
    }
    if (decoded === current) return current
    current = decoded
  }
  return current
}

/**
 * A bare lower-case DOI (`10.1234/abc`) from any of its written forms (`https://doi.org/…`,
 * `http://dx.doi.org/…`, `doi:…`, percent-encoded, any case); undefined when it is no DOI.
 */
export function normalizeDoi(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined
  let text = decodeFully(raw.trim()).trim()
  for (let round = 0; round < 3 && DOI_PREFIX.test(text); round += 1)
    text = text.replace(DOI_PREFIX, '').trim()
  text = text.toLowerCase()
  return /^10\.\d{4,9}\/\S+$/.test(text) ? text : undefined
}

/** Digits only (`PMID: 012345` → `12345`); undefined when it is no PubMed id. */
export function normalizePmid(raw: string | number | null | undefined): string | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw > 0 ? String(raw) : undefined
  if (typeof raw !== 'string') return undefined
  const digits = raw
    .trim()
    .replace(/^pmid:?\s*/i, '')
    .replace(/^0+/, '')
  return /^[1-9]\d{0,11}$/.test(digits) ? digits : undefined
}

/** The ISO 7064 MOD 11-2 check character of an ORCID iD's first 15 digits (`0`–`9` or `X`). */
export const orcidCheckDigit = orcidCheckCharacter

/**
 * A bare, hyphenated, checked ORCID iD (`0000-0002-1825-0097`) from any form the sources write (bare,
 * without hyphens, an `http(s)://(sandbox.)orcid.org/…` URL); undefined when it is none or its check digit
 * is wrong. The one rule is the account's (src/validation/orcid.ts).
 */
export function normalizeOrcid(raw: string | null | undefined): string | undefined {
  return typeof raw === 'string' ? checkedOrcid(raw) : undefined
}

/**
 * A bare OpenAlex id (`W2741809807`, `A5023888391`) from the id or its `https://openalex.org/` URL;
 * `kind` is the entity letter wanted. Undefined when it is none.
 */
export function normalizeOpenalexId(raw: string | null | undefined, kind: 'W' | 'A'): string | undefined {
  if (typeof raw !== 'string') return undefined
  const text = raw
    .trim()
    .replace(/^https?:\/\/(?:api\.)?openalex\.org\/(?:works\/|authors\/)?/i, '')
    .toUpperCase()
  return new RegExp(`^${kind}\\d{1,15}$`).test(text) ? text : undefined
}

/** A bare OpenAlex topic id (`T10017`) from the id or its `https://openalex.org/` URL; undefined when it is none. */
export function normalizeOpenalexTopicId(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined
  const text = raw
    .trim()
    .replace(/^https?:\/\/(?:api\.)?openalex\.org\/(?:topics\/)?/i, '')
    .toUpperCase()
  return /^T\d{1,9}$/.test(text) ? text : undefined
}

/** An OpenAlex keyword's slug (`climate-change`) from `https://openalex.org/keywords/<slug>`; undefined when it is none. */
export function normalizeOpenalexKeywordId(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined
  const text = raw
    .trim()
    .replace(/^https?:\/\/(?:api\.)?openalex\.org\/keywords\//i, '')
    .toLowerCase()
  return /^[\p{Ll}\p{N}]+(?:-[\p{Ll}\p{N}]+)*$/u.test(text) ? text : undefined
}

/** A MeSH descriptor's unique id (`D003412`); undefined when it is none. */
export function normalizeMeshUi(raw: string | null | undefined): string | undefined {
  if (typeof raw !== 'string') return undefined
  const text = raw.trim().toUpperCase()
  return /^D\d{6,9}$/.test(text) ? text : undefined
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** Decodes the XML/HTML named entities above and numeric ones (`&#233;`, `&#xE9;`). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[name.toLowerCase()] ?? whole
  })
}

/** Tags inside a word (`H<sub>2</sub>O`, `<i>E. coli</i>`): removed without a space. */
const INLINE_TAG =
  /<\/?(?:jats:)?(?:i|b|u|em|strong|sub|sup|sc|italic|bold|underline|monospace|span|inline-formula)(?:\s[^>]*)?>/gi

/** Plain text from a JATS or HTML fragment: tags dropped, entities decoded, white space collapsed. */
export function stripMarkup(text: string): string {
  return decodeEntities(text.replace(INLINE_TAG, '').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?)\]])/g, '$1')
    .replace(/([([])\s+/g, '$1')
    .trim()
}

/** Plain text or undefined for an empty or absent fragment. */
export function plainText(text: string | null | undefined): string | undefined {
  if (typeof text !== 'string') return undefined
  const plain = stripMarkup(text)
  return plain === '' ? undefined : plain
}

/**
 * The title fingerprint for "possible duplicate" checks: tags stripped, NFKD with combining marks
 * removed, lower case, punctuation dropped, spaces collapsed (`Zoë's <i>Übung</i>!` → `zoe s ubung`).
 */
export function titleFingerprint(title: string): string {
  return stripMarkup(title)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

/** Unix seconds at midnight UTC of a year, month (1–12) and day; month and day default to the first. */
export function unixDate(year: number, month?: number, day?: number): number {
  return Math.floor(Date.UTC(year, (month ?? 1) - 1, day ?? 1) / 1000)
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

/** A month from `3`, `03`, `Mar` or `March`; undefined otherwise. */
export function monthNumber(raw: string | number | null | undefined): number | undefined {
  if (raw === null || raw === undefined) return undefined
  const text = String(raw).trim().toLowerCase()
  const numeric = Number(text)
  if (/^\d{1,2}$/.test(text)) return numeric >= 1 && numeric <= 12 ? numeric : undefined
  const index = MONTHS.indexOf(text.slice(0, 3))
  return index === -1 ? undefined : index + 1
}

/** A plausible publication year (1000–2999) from a number or string; undefined otherwise. */
export function yearNumber(raw: string | number | null | undefined): number | undefined {
  if (raw === null || raw === undefined) return undefined
  const year = Number(String(raw).trim())
  return Number.isInteger(year) && year >= 1000 && year <= 2999 ? year : undefined
}

/** The year, and the date when the year is known (day and month checked, dropped when invalid). */
export function datedFields(
  year: number | undefined,
  month?: number,
  day?: number,
): { year?: number; date?: number } {
  if (year === undefined) return {}
  const validMonth = month !== undefined && month >= 1 && month <= 12 ? month : undefined
  const lastDay = validMonth === undefined ? 0 : new Date(Date.UTC(year, validMonth, 0)).getUTCDate()
  const validDay =
    validMonth !== undefined && day !== undefined && day >= 1 && day <= lastDay ? day : undefined
  return { year, date: unixDate(year, validMonth, validDay) }
}
