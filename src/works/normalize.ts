/**
 * The keys works are matched by (SOURCES.md §5): the DOI, the title fingerprint, the first author's
 * family name. Connectors already give normalised identifiers; these make sure of it before a match.
 */

const DOI_PREFIX = /^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i

/** A bare lower-case DOI (`10.1000/xyz`), or undefined when `value` is not one. */
export function normalizeDoi(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  let text = value.trim()
  try {
    text = decodeURIComponent(text)
  } catch {
    // Not percent-encoded after all: keep it as it is.
  }
  text = text.replace(DOI_PREFIX, '').trim().toLowerCase()
  return /^10\.[0-9]{4,9}\/\S+$/.test(text) ? text : undefined
}

/** NFKD, combining marks and tags dropped, lower case, punctuation dropped, spaces collapsed. */
export function titleFingerprint(title: string | undefined): string | undefined {
  if (!title) return undefined
  const fingerprint = title
    .replace(/<[^>]*>/g, ' ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return fingerprint === '' ? undefined : fingerprint
}

/** The family name of an author as a source writes it (`Ada Okafor`, `Okafor, Ada`, `Okafor A`), for matching. */
export function familyName(name: string | undefined): string | undefined {
  if (!name) return undefined
  const trimmed = name.trim()
  const family = trimmed.includes(',')
    ? trimmed.split(',')[0]
    : /\s[A-Z]{1,3}$/.test(trimmed)
      ? trimmed.replace(/\s[A-Z]{1,3}$/, '')
      : trimmed.split(/\s+/).at(-1)
  return titleFingerprint(family)
}
