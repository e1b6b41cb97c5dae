import { iso31661, iso31662 } from 'iso-3166'

const COUNTRIES = new Set(iso31661.map((country) => country.alpha2))

/** Subdivision codes by country: `CA` -> { `ON`, `QC`, ... } (the part after `CA-`). */
const SUBDIVISIONS = new Map<string, Set<string>>()
for (const { code } of iso31662) {
  const dash = code.indexOf('-')
  const country = code.slice(0, dash)
  const codes = SUBDIVISIONS.get(country) ?? new Set<string>()
  SUBDIVISIONS.set(country, codes)
  codes.add(code.slice(dash + 1))
}

/** ISO 3166-1 alpha-2 check, case-insensitive. */
export function isCountryCode(value: string): boolean {
  return COUNTRIES.has(value.toUpperCase())
}

/**
 * The short upper-case subdivision code (`ON`) for `state` given as `ON`, `on` or `CA-ON`,
 * or undefined when it is not a subdivision of `country`.
 */
export function subdivisionCode(country: string, state: string): string | undefined {
  const upperCountry = country.toUpperCase()
  let code = state.toUpperCase()
  if (code.startsWith(`${upperCountry}-`)) code = code.slice(upperCountry.length + 1)
  return SUBDIVISIONS.get(upperCountry)?.has(code) ? code : undefined
}
