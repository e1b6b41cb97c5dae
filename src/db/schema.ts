import type { Generated, Insertable, Selectable } from 'kysely'
import type { AuditTables } from './audit-schema.js'
import type { ContentKind } from './content-kinds.js'
import type { DelegatesTables } from './delegates-schema.js'
import type { EditorialTables } from './editorial-schema.js'
import type { MeaningTables } from './meaning-schema.js'
import type { PeopleTables } from './people-schema.js'
import type { SectionName } from './sections.js'
import type { SsoTables } from './sso-schema.js'
import type { IdentifierPolicy, WorksTables } from './works-schema.js'

/** What a reader may see: everything (`read`) or only what is public (`read:public`, CONTRACT §17). */
export type Audience = 'all' | 'public'

/** Times are unix milliseconds in every table. */
export interface OrganizationsTable {
  id: number
  name: string
  created_at: number
  /** Bumped by every change of the organization's public profile (every expert shows it). */
  profile_version: Generated<number>
}

export interface ClientsTable {
  client_id: string
  org_id: number
  label: string | null
  /** scrypt: `scrypt$N$r$p$salt$hash`, never the secret itself. */
  secret_hash: string
  created_at: number
  revoked_at: number | null
  /** Space-separated scopes the client may request (CONTRACT §13). */
  scope: Generated<string>
}

export interface AccessTokensTable {
  /** SHA-256 of the token, hex. The token itself is never stored. */
  token_hash: string
  client_id: string
  org_id: number
  created_at: number
  expires_at: number
  /** Space-separated scopes the token was granted. */
  scope: Generated<string>
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
  /** Where the expert's assistant receives inquiries, when the organization's settings say so. */
  assistant_email: Generated<string | null>
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
  /** Bumped by every change of what the expert's read documents show (src/derived/read-documents.ts). */
  doc_version: Generated<number>
  /** What the profile is: an expert (the directory's subject) or a staff member (CONTRACT §17). */
  type: Generated<ProfileType>
  /** Scholarly identifiers (CONTRACT §19): a checked ORCID iD `0000-0000-0000-000X`, an OpenAlex `A…`, a Scopus author id. */
  orcid: Generated<string | null>
  openalex_id: Generated<string | null>
  scopus_id: Generated<string | null>
  orcid_policy: Generated<IdentifierPolicy>
  openalex_policy: Generated<IdentifierPolicy>
  scopus_policy: Generated<IdentifierPolicy>
  /** Media availability (CONTRACT §22): 1 while available; the expiry pass sets 0 once `media_available_until` (unix ms) passes. */
  media_available: Generated<number>
  media_available_until: Generated<number | null>
  /** When the expert last became available (unix ms): where the calendars' availability events start. */
  media_available_since: Generated<number | null>
  /** JSON array of canonical BCP 47 tags. */
  interview_languages: Generated<string>
  remote_ready: Generated<number>
  studio_ready: Generated<number>
  /** An IANA time zone name. */
  time_zone: Generated<string | null>
  pronunciation: Generated<string | null>
  pronouns: Generated<string | null>
  /** When the schedule publishes or unpublishes it (unix ms; null: not scheduled; src/schedules/), and who set each. */
  publish_at: Generated<number | null>
  unpublish_at: Generated<number | null>
  publish_by: Generated<string | null>
  unpublish_by: Generated<string | null>
}

/** The kinds of profile the `experts` table holds; both use one profile engine and one username space. */
export type ProfileType = 'expert' | 'staff'

/** Every username ever handed out in an organization, so that none is generated again after a delete or a rename. */
export interface UsernamesTable {
  org_id: number
  username: string
  created_at: number
}

/** An old username of a renamed expert: requests under it are redirected to the expert's current one. */
export interface UsernameRedirectsTable {
  org_id: number
  username: string
  expert_id: number
  created_at: number
}

export interface DB
  extends ContentTables,
    SearchTables,
    PeopleTables,
    SsoTables,
    AuditTables,
    WorksTables,
    MeaningTables,
    EditorialTables,
    DelegatesTables {
  read_documents: ReadDocumentsTable
  organizations: OrganizationsTable
  clients: ClientsTable
  access_tokens: AccessTokensTable
  experts: ExpertsTable
  usernames: UsernamesTable
  username_redirects: UsernameRedirectsTable
  inquiries: InquiriesTable
  inquiry_deliveries: InquiryDeliveriesTable
  idempotency_keys: IdempotencyKeysTable
  webhooks: WebhooksTable
  inquiry_notifications: InquiryNotificationsTable
  privacy_requests: PrivacyRequestsTable
  media_files: MediaFilesTable
}

export type ExpertRow = Selectable<ExpertsTable>
export type NewExpertRow = Insertable<ExpertsTable>
export type OrganizationRow = Selectable<OrganizationsTable>
export type ClientRow = Selectable<ClientsTable>

/** One received inquiry of any kind. */
export interface InquiriesTable {
  id: Generated<number>
  org_id: number
  /** One of the kinds of src/inquiries/kinds.ts. */
  kind: string
  /** The recipient expert's username when the inquiry arrived; null for an inquiry to the organization's desk. */
  username: string | null
  /** The recipient expert's id (it stays the same across renames); null for the desk. */
  expert_id: number | null
  /**
   * Who is emailed, decided when the inquiry arrived (the notification settings, the expert's and the
   * assistant's addresses of that moment): a JSON array of `{"role", "email"}`.
   */
  recipients: string
  /** Handling: one of src/inquiries/handling.ts. */
  status: Generated<string>
  /** The person handling it (CONTRACT §22); null when nobody is, or the person was removed. */
  assignee_id: Generated<number | null>
  notes: Generated<string | null>
  /** When the sender's personal data was removed (retention or erasure); null while it is kept. */
  redacted_at: Generated<number | null>
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
  /** The fields of the inquiry's kind, as a JSON object (`{}` for a general inquiry); times in unix seconds. */
  kind_fields: string
  created_at: number
}

/** `confirmation`: the email telling a contact form's sender that the message arrived (src/delivery/confirmation.ts). */
export type DeliveryChannel = 'email' | 'webhook' | 'confirmation'
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

/** Per organization and inquiry kind: who is emailed (absent row: the defaults of src/inquiries/notifications.ts). */
export interface InquiryNotificationsTable {
  org_id: number
  kind: string
  /** The desk's addresses for this kind: a JSON array of strings. */
  recipients: string
  expert: number
  assistant: number
  desk: number
  updated_at: number
}

/** A record of an export or erasure by sender email: who asked and how many records, never the address. */
export interface PrivacyRequestsTable {
  id: Generated<number>
  org_id: number
  action: 'export' | 'erase'
  client_id: string
  records: number
  created_at: number
}

export type InquiryRow = Selectable<InquiriesTable>
export type InquiryNotificationRow = Selectable<InquiryNotificationsTable>
export type NewInquiryRow = Insertable<InquiriesTable>
export type DeliveryRow = Selectable<InquiryDeliveriesTable>
export type WebhookRow = Selectable<WebhooksTable>

/** Content (profile sections, posts, questions, tags): migration 0002_content. */
export interface ContentTables {
  organization_profiles: OrganizationProfilesTable
  profile_items: ProfileItemsTable
  expert_import_keys: ExpertImportKeysTable
  content_tags: ContentTagsTable
  spotlights: SpotlightsTable
  questions: QuestionsTable
  spotlight_experts: SpotlightExpertsTable
  answers: AnswersTable
  spotlight_tags: ContentTaggingsTable
  question_tags: ContentTaggingsTable
  directory_form_keys: DirectoryFormKeysTable
}

/** One row per organization that has a public profile; every column optional text. */
export interface OrganizationProfilesTable {
  org_id: number
  description: string | null
  website: string | null
  location_city: string | null
  location_state: string | null
  location_country: string | null
  location_postal: string | null
  location_address: string | null
  location_building: string | null
  location_room: string | null
  twitter: string | null
  facebook: string | null
  linkedin: string | null
  instagram: string | null
  youtube: string | null
  /** 1: the organization publishes its directory pages under /directory/:corporation/ (migration 0021). */
  public_directory: Generated<number>
  logo_url: string | null
  /** `#rrggbb` colours of the directory pages. */
  brand_color: string | null
  accent_color: string | null
  /** The inquiry kinds the directory's contact form offers, space-separated; null: the default kinds. */
  directory_inquiry_kinds: string | null
}

/** The secret that signs an organization's directory contact-form tokens (migration 0021). */
export interface DirectoryFormKeysTable {
  org_id: number
  secret: string
  created_at: number
}

/** One element of a stored profile section; `data` is the element as served, minus `id`, as JSON. */
export interface ProfileItemsTable {
  id: Generated<number>
  expert_id: number
  org_id: number
  section: SectionName
  position: number
  /** The import key of the element, or `#<position>` for elements imported without one. */
  external_key: string
  data: string
}

/** Import keys of experts, so that a re-import updates instead of duplicating. */
export interface ExpertImportKeysTable {
  org_id: number
  key: string
  expert_id: number
}

export interface ContentTagsTable {
  id: Generated<number>
  org_id: number
  name: string
  /** Lower-cased name: tags are unique per organization case-insensitively. */
  name_key: string
}

interface PublishedContent {
  id: Generated<number>
  org_id: number
  external_key: string | null
  published: number
  published_at: number | null
  seo_title: string | null
  seo_description: string | null
  seo_keywords: string | null
  seo_image: string | null
  seo_canonical_url: string | null
  created_at: number
  updated_at: number
  /** Bumped by every change of what the item's read document shows (src/derived/read-documents.ts). */
  doc_version: Generated<number>
  /** When the schedule publishes or unpublishes it (unix ms; null: not scheduled; src/schedules/), and who set each. */
  publish_at: Generated<number | null>
  unpublish_at: Generated<number | null>
  publish_by: Generated<string | null>
  unpublish_by: Generated<string | null>
}

export interface SpotlightsTable extends PublishedContent {
  title: string
  html: string
  featured_image: string | null
}

export interface QuestionsTable extends PublishedContent {
  question: string
  details: string | null
}

export interface SpotlightExpertsTable {
  spotlight_id: number
  expert_id: number
  position: number
}

export interface AnswersTable {
  id: Generated<number>
  question_id: number
  expert_id: number
  external_key: string
  position: number
  answer: string
  created_at: number
}

/** A tag on a post (`spotlight_tags`) or a question (`question_tags`); `owner_id` is that post or question. */
export interface ContentTaggingsTable {
  id: Generated<number>
  owner_id: number
  content_tag_id: number
  position: number
}

/** Search index rows (migration 0006_search), derived from the tables above by src/derived/search-maintenance.ts. */
export interface SearchTables {
  expert_search: ExpertSearchTable
  expert_facets: ExpertFacetsTable
  expert_facet_counts: ExpertFacetCountsTable
  expert_search_versions: ExpertSearchVersionsTable
  spotlight_search: SpotlightSearchTable
  question_search: QuestionSearchTable
}

export interface ExpertSearchTable {
  expert_id: number
  org_id: number
  /** First and last name. */
  names: string
  /** Job title, company, department. */
  title: string
  tagline: string
  /** Topics, industries, categories and tags. */
  keywords: string
  /** The biography as plain text. */
  biography: string
  /**
   * First and last name, lower-cased and unaccented (src/derived/name-similarity.ts): names found by
   * likeness. Null only on rows that predate it, until the step after the migrations rebuilds them.
   */
  name_key: string | null
  /** Lower-cased, unaccented: the `name` sort. */
  sort_last: string
  sort_first: string
  username: string
  /** Lower-cased company: the `companies` filter. */
  company_key: string
  is_published: number
  is_private: number
  /** Filled profile sections: the `featured` sort. */
  completeness: number
  /** The expert's `updated_at`. */
  modified: number
  /** An expert's row, or a staff member's (the staff and employee lists; never an expert search's). */
  type: ProfileType
}

export type SearchFacet =
  | 'countries'
  | 'topics'
  | 'industries'
  | 'categories'
  | 'tags'
  | 'interview_languages'
  | 'media_available'

export interface ExpertFacetsTable {
  expert_id: number
  facet: SearchFacet
  /** Lower-cased value: filters match it case-insensitively. */
  value_key: string
  /** The value as written (countries: the upper-case code). */
  value: string
  org_id: number
  is_published: number
  is_private: number
}

/** Experts per facet value and flags, kept by triggers on expert_facets. */
export interface ExpertFacetCountsTable {
  org_id: number
  facet: SearchFacet
  value_key: string
  is_private: number
  is_published: number
  value: string
  count: number
}

/** Raised with every change to an organization's expert index (migration 0011_search_versions). */
export interface ExpertSearchVersionsTable {
  org_id: number
  version: number
}

interface ContentSearchRow {
  org_id: number
  published: number
  /** `published_at`, or `created_at` when unset: the newest-first order. */
  sort_date: number
  /** UTC year and month of `sort_date`. */
  year: number
  month: number
}

export interface SpotlightSearchTable extends ContentSearchRow {
  spotlight_id: number
  title: string
  /** The post's HTML as plain text. */
  body: string
}

export interface QuestionSearchTable extends ContentSearchRow {
  question_id: number
  question: string
  details: string
  /** The answers of experts the public may see, as plain text. */
  answers: string
  /** The answers of the other experts (unpublished or private): never searched by the public. */
  hidden_answers: string
}

export type DocumentKind = 'expert' | ContentKind

/** A stored read document (migration 0009_read_documents): the response bytes and their ETag. */
export interface ReadDocumentsTable {
  kind: DocumentKind
  record_id: number
  /** Who the document was built for (src/derived/audience.ts): a reader gets only its own audience's. */
  audience: Audience
  org_id: number
  /** The record's `doc_version` the document was built from. */
  record_version: number
  /** The organization's `profile_version` it was built from (0 for posts and questions). */
  org_version: number
  etag: string
  /** The whole response body: the `{"success":true,"data":...}` envelope as served. */
  body: Buffer
}

/** What a stored media file is for: a rendition of an expert's photo, or a document uploaded for a section. */
export type MediaPurpose = 'avatar' | 'file'

/** One stored file of the media storage (src/storage): its key there and its owner. */
export interface MediaFilesTable {
  /** `<org id>/<content hash>.<ext>`: the object's name in the folder or bucket. */
  key: string
  org_id: number
  /** The expert whose photo this is; null for documents. */
  expert_id: number | null
  purpose: MediaPurpose
  content_type: string
  bytes: number
  created_at: number
}
