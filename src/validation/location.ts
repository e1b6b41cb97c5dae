import { InvalidFields } from './errors.js'
import { blankToNull } from './fields.js'
import { subdivisionCode } from './geo.js'

export interface Location {
  location_country?: string | null
  location_state?: string | null
}

/**
 * The one normalization of a country/state pair, for experts, the organization profile and inquiries:
 * "" clears a field, the country is stored upper-case, the state as its short ISO 3166-2 code (`ON` for
 * `CA-ON` or `on`), checked against the country it will have (`stored` for a partial update). Fields
 * not given stay absent from the result. Throws InvalidFields for a state that does not fit.
 */
export function normalizeLocation(given: Location, stored: Location = {}): Location {
  const out: Location = {}
  const country = blankToNull(given.location_country)
  const state = blankToNull(given.location_state)
  if (country !== undefined) out.location_country = country?.toUpperCase() ?? null
  const effectiveCountry = country !== undefined ? out.location_country : stored.location_country
  const effectiveState = state !== undefined ? state : stored.location_state
  if (state !== undefined) out.location_state = state
  if (!effectiveState) return out
  const code = effectiveCountry ? subdivisionCode(effectiveCountry, effectiveState) : undefined
  if (code) {
    if (state !== undefined) out.location_state = code
    return out
  }
  const message = effectiveCountry
    ? `${effectiveState} is not an ISO 3166-2 subdivision of ${effectiveCountry}: send a location_state of that country, or ""`
    : 'requires location_country'
  throw new InvalidFields([{ field: 'location_state', message }])
}
