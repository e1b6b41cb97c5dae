import { createRequire } from 'node:module'

/**
 * Country and subdivision names for the pages (stored codes: `CA`, `ON`). Countries by their common
 * English name (`Intl.DisplayNames`: "United Kingdom", where ISO 3166's official one is "United Kingdom
 * of Great Britain and Northern Ireland"), else ISO 3166's; subdivisions from the ISO 3166 dataset the
 * API validates codes with. Loaded on the first page that shows a place.
 */

interface Names {
  countries: Map<string, string>
  subdivisions: Map<string, string>
}

let names: Names | undefined

function tables(): Names {
  if (names) return names
  const { iso31661, iso31662 }: typeof import('iso-3166') = createRequire(import.meta.url)('iso-3166')
  names = {
    countries: new Map(iso31661.map((country) => [country.alpha2, country.name])),
    subdivisions: new Map(iso31662.map((subdivision) => [subdivision.code, subdivision.name])),
  }
  return names
}

const regions = new Intl.DisplayNames('en', { type: 'region', fallback: 'none' })

/** `CA` -> `Canada`; an unknown code is shown as it is. */
export function countryName(code: string): string {
  const upper = code.toUpperCase()
  if (!/^[A-Z]{2}$/.test(upper)) return code
  return regions.of(upper) ?? tables().countries.get(upper) ?? code
}

/** `ON` of `CA` -> `Ontario`; an unknown code is shown as it is. */
export function subdivisionName(country: string, code: string): string {
  return tables().subdivisions.get(`${country.toUpperCase()}-${code.toUpperCase()}`) ?? code
}
