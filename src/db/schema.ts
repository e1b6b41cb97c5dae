import type { Generated, Insertable, Selectable } from 'kysely'

/** Times are unix milliseconds in every table. */
export interface OrganizationsTable {
  id: number
  name: string
  created_at: number
}

export interface ClientsTable {
  client_id: string
  org_id: number
  label: string | null
  /** scrypt: `scrypt$N$r$p$salt$hash`, never the secret itself. */
  secret_hash: string
  created_at: number
  revoked_at: number | null
}

export interface AccessTokensTable {
  /** SHA-256 of the token, hex. The token itself is never stored. */
  token_hash: string
  client_id: string
  org_id: number
  created_at: number
  expires_at: number
}

export interface ExpertsTable {
  id: Generated<number>
  org_id: number
  username: string
  firstname: string
  lastname: string
  job_title: string
  email: string
  /** Lower-cased email: the per-organization uniqueness key. */
  email_key: string
  company: string
  department: string | null
  phone_number: string | null
  phone_number_extension: string | null
  location_city: string | null
  location_state: string | null
  location_country: string | null
  location_postal: string | null
  location_address: string | null
  location_building: string | null
  location_room: string | null
  is_published: number
  is_private: number
  created_at: number
  updated_at: number
}

/** Every username ever handed out, so that none is reused after a delete. */
export interface UsernamesTable {
  username: string
  created_at: number
}

export interface DB {
  organizations: OrganizationsTable
  clients: ClientsTable
  access_tokens: AccessTokensTable
  experts: ExpertsTable
  usernames: UsernamesTable
}

export type ExpertRow = Selectable<ExpertsTable>
export type NewExpertRow = Insertable<ExpertsTable>
export type OrganizationRow = Selectable<OrganizationsTable>
export type ClientRow = Selectable<ClientsTable>
