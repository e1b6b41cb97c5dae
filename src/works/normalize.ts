/**
 * The keys works are matched by (SOURCES.md §5): the DOI, the title fingerprint, the first author's
 * family name. Connectors already give normalised identifiers; these make sure of it before a match.
 */
import { titleFingerprint as sourceFingerprint } from './sources/normalize.js'

export { normalizeDoi } from './sources/normalize.js'

/** The connectors' title fingerprint, or undefined for a missing or empty title. */
export function titleFingerprint(title: string | undefined): string | undefined {
  const fingerprint = title ? sourceFingerprint(title) : ''
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
