import { iso31661 } from 'iso-3166'
import { iso31662 } from 'iso-3166/2'

/**
 * Countries and their subdivisions by name for the location pickers, from the same ISO 3166 data the
 * server validates against. The subdivision list is large (about 5,000 names): this module loads with
 * the first location field shown, not with the dashboard.
 */
export interface Region {
  code: string
  name: string
}

const byName = (a: Region, b: Region) => a.name.localeCompare(b.name)

let countries: Region[] | undefined
/** Every ISO 3166-1 country, named in the browser's language where it knows the name. */
export function countryList(): Region[] {
  if (countries) return countries
  const names = new Intl.DisplayNames(undefined, { type: 'region', fallback: 'none' })
  countries = iso31661
    .map((entry) => ({ code: entry.alpha2, name: names.of(entry.alpha2) ?? entry.name }))
    .sort(byName)
  return countries
}

const subdivisions = new Map<string, Region[]>()
/** A country's subdivisions as the server stores them: the short code (`ON` of `CA-ON`). */
export function subdivisionList(country: string): Region[] {
  const upper = country.toUpperCase()
  const known = subdivisions.get(upper)
  if (known) return known
  const prefix = `${upper}-`
  const list = iso31662
    .filter((entry) => entry.code.startsWith(prefix))
    .map((entry) => ({ code: entry.code.slice(prefix.length), name: entry.name }))
    .sort(byName)
  subdivisions.set(upper, list)
  return list
}
