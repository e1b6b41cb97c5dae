import type { Generated, Selectable } from 'kysely'

/** People, sessions and their links: migration 0017_people. Times are unix milliseconds. */
export interface PeopleTables {
  people: PeopleTable
  person_sessions: PersonSessionsTable
  person_tokens: PersonTokensTable
  person_links: PersonLinksTable
}

export interface PeopleTable {
  id: Generated<number>
  org_id: number
  email: string
  /** Lower-cased email: unique across the service. */
  email_key: string
  name: string
  /** One of the roles of src/auth/roles.ts. */
  role: string
  expert_id: number | null
  /** argon2id PHC string, never the password; null until one is set. */
  password_hash: string | null
  /** 1 when the password was generated and must be changed before anything else. */
  password_must_change: Generated<number>
  created_at: number
  updated_at: number
}

export interface PersonSessionsTable {
  id: Generated<number>
  /** SHA-256 of the session cookie's value, hex. */
  token_hash: string
  person_id: number
  created_at: number
  last_seen_at: number
  /** The absolute end of the session, whatever its use. */
  expires_at: number
}

/** Short-lived bearer tokens a session mints (POST /auth/token); they die with their session. */
export interface PersonTokensTable {
  token_hash: string
  session_id: number
  created_at: number
  expires_at: number
}

/** Single-use links: invitations and password resets. */
export interface PersonLinksTable {
  token_hash: string
  person_id: number
  purpose: string
  created_at: number
  expires_at: number
}

export type PersonRow = Selectable<PeopleTable>
