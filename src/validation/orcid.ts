/**
 * ORCID iDs (CONTRACT §19): 16 characters, the last a check character computed with ISO 7064 mod 11-2
 * over the first 15 digits (https://support.orcid.org/hc/en-us/articles/360006897674). Accepted with or
 * without hyphens, lower-case x, or as an `https://orcid.org/` address; stored as `0000-0000-0000-000X`.
 */

const SHAPE =
  /^(?:https?:\/\/(?:www\.|sandbox\.)?orcid\.org\/)?([0-9]{4})-?([0-9]{4})-?([0-9]{4})-?([0-9]{3}[0-9Xx])\/?$/i

/** The ISO 7064 mod 11-2 check character of 15 digits. */
export function orcidCheckCharacter(digits: string): string {
  let total = 0
  for (const digit of digits) total = (total + Number(digit)) * 2
  const result = (12 - (total % 11)) % 11
  return result === 10 ? 'X' : String(result)
}

/** The iD as stored (`0000-0002-1825-0097`), or undefined when it is not an ORCID iD with a correct check character. */
export function normalizeOrcid(value: string): string | undefined {
  const match = SHAPE.exec(value.trim())
  if (!match) return undefined
  const bare = `${match[1]}${match[2]}${match[3]}${match[4]}`.toUpperCase()
  if (orcidCheckCharacter(bare.slice(0, 15)) !== bare[15]) return undefined
  return `${bare.slice(0, 4)}-${bare.slice(4, 8)}-${bare.slice(8, 12)}-${bare.slice(12)}`
}
