import { createRequire } from 'node:module'

interface Tables {
  countries: Set<string>
  /** Subdivision codes by country: `CA` -> { `ON`, `QC`, ... } (the part after `CA-`). */
  subdivisions: Map<string, Set<string>>
}

let tables: Tables | undefined

/**
 * The ISO 3166 tables, read by the first check: iso-3166 (its subdivision table above all) is about
 * 2 MiB of heap, which a process that never validates a location does without.
 */
function geo(): Tables {
  if (tables) return tables
  const { iso31661, iso31662 }: typeof import('iso-3166') = createRequire(import.meta.url)('iso-3166')
  const subdivisions = new Map<string, Set<string>>()
  for (const { code } of iso31662) {
    const dash = code.indexOf('-')
    const country = code.slice(0, dash)
    const codes = subdivisions.get(country) ?? new Set<string>()
    subdivisions.set(country, codes)
    codes.add(code.slice(dash + 1))
  }
  tables = { countries: new Set(iso31661.map((country) => country.alpha2)), subdivisions }
  return tables
}

/** ISO 3166-1 alpha-2 check, case-insensitive. */
export function isCountryCode(value: string): boolean {
  return geo().countries.has(value.toUpperCase())
}

/**
 * The short upper-case subdivision code (`ON`) for `state` given as `ON`, `on` or `CA-ON`,
 * or undefined when it is not a subdivision of `country`.
 */
export function subdivisionCode(country: string, state: string): string | undefined {
  const upperCountry = country.toUpperCase()
  let code = state.toUpperCase()
  if (code.startsWith(`${upperCountry}-`)) code = code.slice(upperCountry.length + 1)
  return geo().subdivisions.get(upperCountry)?.has(code) ? code : undefined
}
