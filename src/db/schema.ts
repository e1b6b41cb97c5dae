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
  inquiries: InquiriesTable
  inquiry_deliveries: InquiryDeliveriesTable
  idempotency_keys: IdempotencyKeysTable
  webhooks: WebhooksTable
}

export type ExpertRow = Selectable<ExpertsTable>
export type NewExpertRow = Insertable<ExpertsTable>
export type OrganizationRow = Selectable<OrganizationsTable>
export type ClientRow = Selectable<ClientsTable>

/** One received inquiry of either kind; the fields of the other kind are null. */
export interface InquiriesTable {
  id: Generated<number>
  org_id: number
  kind: 'donor' | 'event'
  username: string
  /** The expert's address when the inquiry arrived: where the email goes even if the expert changes. */
  expert_email: string
  firstname: string
  lastname: string | null
  email: string
  phone: string | null
  website: string | null
  organization: string | null
  message: string
  location_city: string | null
  location_state: string | null
  location_country: string | null
  donor_type: string | null
  donor_focus: string | null
  event_name: string | null
  event_location: string | null
  /** Unix seconds, as sent. */
  event_date: number | null
  event_description: string | null
  created_at: number
}

export type DeliveryChannel = 'email' | 'webhook'
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped'

/** The outbox: one row per inquiry and channel, written in the inquiry's transaction. */
export interface InquiryDeliveriesTable {
  id: Generated<number>
  inquiry_id: number
  org_id: number
  channel: DeliveryChannel
  status: DeliveryStatus
  attempts: Generated<number>
  /** When a pending delivery is due; null once it is final. */
  next_attempt_at: number | null
  /** A worker's lease on the row; another worker may take it over only after this time. */
  locked_until: number | null
  lock_token: string | null
  last_error: string | null
  delivered_at: number | null
  created_at: number
  updated_at: number
}

export interface IdempotencyKeysTable {
  org_id: number
  key: string
  /** SHA-256 of the route and the validated body. */
  fingerprint: string
  /** The JSON `data` of the first response. */
  response: string
  created_at: number
  expires_at: number
}

/** An organization's webhook. The secret is kept as is: the server needs it to sign every delivery. */
export interface WebhooksTable {
  org_id: number
  url: string
  secret: string
  created_at: number
  updated_at: number
}

export type InquiryRow = Selectable<InquiriesTable>
export type NewInquiryRow = Insertable<InquiriesTable>
export type DeliveryRow = Selectable<InquiryDeliveriesTable>
export type WebhookRow = Selectable<WebhooksTable>
