import type { Generated, Selectable } from 'kysely'

/** The editorial workflow: migration 0032_editorial. Times are unix milliseconds. */
export interface EditorialTables {
  organization_workflows: OrganizationWorkflowsTable
  record_versions: RecordVersionsTable
  drafts: DraftsTable
}

/** An organization's workflow settings (src/workflow/settings.ts), as JSON; no row: the defaults. */
export interface OrganizationWorkflowsTable {
  org_id: number
  settings: string
  updated_at: number
}

/** One published change of a profile's part, a post or a Q&A item (src/history/versions.ts). */
export interface RecordVersionsTable {
  id: Generated<number>
  org_id: number
  /** `profile`, `spotlight` or `question`. */
  record_kind: string
  record_id: number
  /** `account` or a section name for a profile; `item` for a post or a question. */
  part: string
  created_at: number
  /** Who, as the audit log names them (src/audit/actor.ts). */
  actor_kind: string
  actor_id: string | null
  action: string
  /** The part as it was after the change, JSON. */
  snapshot: string
}

export type RecordVersionRow = Selectable<RecordVersionsTable>

/** A change that needs review, beside the live record (migration 0035_drafts, src/drafts/). */
export interface DraftsTable {
  id: Generated<number>
  org_id: number
  /** `profile`, `spotlight` or `question`. */
  record_kind: string
  record_id: number
  /** `account` or a section name for a profile; `item` for a post or a question. */
  part: string
  /** The person who wrote it. */
  author_id: number
  /** `open`, `submitted`, `returned`, `approved` (waiting for `publish_at`) or `published`. */
  state: string
  /** The change, JSON: an update body (account, item) or the section's elements. */
  changes: string
  /** The live part when the draft was opened, JSON. */
  base: string
  comment: string | null
  /** `person` or `client`: who approved or returned it. */
  reviewer_kind: string | null
  /** The person's id or the client's id. */
  reviewer_id: string | null
  /** When an approval publishes it, unix milliseconds; null: at once. */
  publish_at: number | null
  /** 1 when the approval overrides a conflict with the live record. */
  force: Generated<number>
  locked_until: number | null
  lock_token: string | null
  created_at: number
  updated_at: number
}

export type DraftRow = Selectable<DraftsTable>
