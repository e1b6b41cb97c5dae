import type { Generated, Selectable } from 'kysely'

/** Single sign-on: migration 0019_sso. Times are unix milliseconds. */
export interface SsoTables {
  sso_settings: SsoSettingsTable
  sso_domains: SsoDomainsTable
  sso_transactions: SsoTransactionsTable
  sso_assertions: SsoAssertionsTable
  sso_identities: SsoIdentitiesTable
  sso_confirmations: SsoConfirmationsTable
}

export interface SsoSettingsTable {
  org_id: number
  /** `oidc` or `saml`. */
  protocol: string
  issuer: string | null
  client_id: string | null
  /** Encrypted (src/sso/secret-box.ts), never in clear; null for a public client. */
  client_secret: string | null
  scope: string | null
  groups_claim: string | null
  entry_point: string | null
  /** PEM. */
  idp_certificate: string | null
  sp_entity_id: string | null
  /** JSON array of `{"group", "role"}`. */
  role_mapping: string
  default_role: string | null
  allow_create: Generated<number>
  passwords_off: Generated<number>
  created_at: number
  updated_at: number
}

/** Migration 0025: unique across organizations; routes sign-ins only once verified. */
export interface SsoDomainsTable {
  org_id: number
  /** Lower-cased. */
  domain: string
  /** The value of the TXT record that proves the domain (`expertdir-verification=<token>`). */
  token: string | null
  verified_at: number | null
  /** `dns` or `operator`. */
  verified_by: string | null
}

/** The identity provider's subject a person is bound to (migration 0025). */
export interface SsoIdentitiesTable {
  person_id: number
  org_id: number
  /** OIDC issuer, or the SAML IdP's entity id. */
  issuer: string
  /** OIDC `sub`, or the SAML persistent NameID (or subject-id attribute). */
  subject: string
  created_at: number
}

/** A first sign-in into an existing account, waiting for the person to open the emailed link. */
export interface SsoConfirmationsTable {
  token_hash: string
  key_hash: string
  org_id: number
  person_id: number
  issuer: string
  subject: string
  created_at: number
  expires_at: number
}

/** A browser sign-in under way, found by the SHA-256 of its cookie. */
export interface SsoTransactionsTable {
  id: Generated<number>
  key_hash: string
  org_id: number
  protocol: string
  request_id: string | null
  answered_at: number | null
  person_id: number | null
  created_at: number
  expires_at: number
}

/** SAML assertion ids already used, kept until the assertion's own end of validity. */
export interface SsoAssertionsTable {
  org_id: number
  assertion_id: string
  expires_at: number
}

export type SsoSettingsRow = Selectable<SsoSettingsTable>
