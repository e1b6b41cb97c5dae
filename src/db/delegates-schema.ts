import type { Selectable } from 'kysely'

/** Delegates of profiles: migration 0035_delegates_schedules. Times are unix milliseconds. */
export interface DelegatesTables {
  expert_delegates: ExpertDelegatesTable
}

/** A person of the organization who may edit one profile, as its expert could, until `until`. */
export interface ExpertDelegatesTable {
  org_id: number
  expert_id: number
  person_id: number
  until: number
  /** Who granted it, as the audit log names actors (`person:12`, `client:cl_x`, `cli`). */
  granted_by: string | null
  created_at: number
}

export type ExpertDelegateRow = Selectable<ExpertDelegatesTable>
