import type { InquiryRow } from '../db/schema.js'

/** What an inquiry looks like outside the database (webhook body, email): times in unix seconds. */
export function inquiryPayload(row: InquiryRow): Record<string, unknown> {
  const common = {
    id: row.id,
    kind: row.kind,
    username: row.username,
    created_at: Math.floor(row.created_at / 1000),
    firstname: row.firstname,
    lastname: row.lastname,
    email: row.email,
    phone: row.phone,
    website: row.website,
    organization: row.organization,
    message: row.message,
    location_city: row.location_city,
    location_state: row.location_state,
    location_country: row.location_country,
  }
  return row.kind === 'donor'
    ? { ...common, donor_type: row.donor_type, donor_focus: row.donor_focus }
    : {
        ...common,
        event_name: row.event_name,
        event_location: row.event_location,
        event_date: row.event_date,
        event_description: row.event_description,
      }
}
