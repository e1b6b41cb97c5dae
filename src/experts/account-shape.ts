import type { ExpertRow } from '../db/schema.js'
import { mediaAccountOf } from './media-account.js'

/**
 * The `account` element of a profile as a reader holding `read` sees it (src/profiles/read.ts narrows
 * it for `read:public`), and as a version of the account keeps it (src/history/versions.ts).
 */
export function accountElement(expert: ExpertRow) {
  return {
    username: expert.username,
    firstname: expert.firstname,
    lastname: expert.lastname,
    job_title: expert.job_title,
    email: expert.email,
    assistant_email: expert.assistant_email,
    company: expert.company,
    department: expert.department,
    phone_number: expert.phone_number,
    phone_number_extension: expert.phone_number_extension,
    location_city: expert.location_city,
    location_state: expert.location_state,
    location_country: expert.location_country,
    location_postal: expert.location_postal,
    location_address: expert.location_address,
    location_building: expert.location_building,
    location_room: expert.location_room,
    corporation_id: expert.org_id,
    is_published: expert.is_published,
    is_private: expert.is_private,
    orcid: expert.orcid,
    openalex_id: expert.openalex_id,
    scopus_id: expert.scopus_id,
    orcid_policy: expert.orcid_policy,
    openalex_policy: expert.openalex_policy,
    scopus_policy: expert.scopus_policy,
    ...mediaAccountOf(expert),
  }
}
