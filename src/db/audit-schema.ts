import type { Generated, Selectable } from 'kysely'

/** The audit log: migration 0018_audit. Times are unix milliseconds. */
export interface AuditTables {
  audit_log: AuditLogTable
}

/** One administrative write: who, through what, which record, when. */
export interface AuditLogTable {
  id: Generated<number>
  org_id: number
  created_at: number
  /** `person`, `client`, `cli`, `system` or `schedule` (src/audit/actor.ts). */
  actor_kind: string
  /** The person's id or the client's id; for the schedule, who set it (`person:12`); null for the CLI and the system. */
  actor_id: string | null
  /** The route (`PUT /v2/organization/:corporation/expert/:username`) or the command (`cli people add`). */
  action: string
  record_kind: string
  record_id: string | null
  /** The username of the profile a delegate acted on through its grant (migration 0034); null otherwise. */
  on_behalf_of: Generated<string | null>
}

export type AuditRow = Selectable<AuditLogTable>
