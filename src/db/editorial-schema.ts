import type { Generated, Selectable } from 'kysely'

/** The editorial workflow: migration 0032_editorial. Times are unix milliseconds. */
export interface EditorialTables {
  organization_workflows: OrganizationWorkflowsTable
  record_versions: RecordVersionsTable
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
