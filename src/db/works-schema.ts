import type { Generated, Selectable } from 'kysely'

/** Tables of the works importer (migration 0028, CONTRACT §19). Times are unix milliseconds. */
export interface WorksTables {
  works: WorksTable
  work_candidates: WorkCandidatesTable
  work_rejections: WorkRejectionsTable
  work_duplicates: WorkDuplicatesTable
  work_runs: WorkRunsTable
  work_schedule: WorkScheduleTable
}

/** What a match of one of an expert's identifiers does (Symplectic Elements' four answers). */
export type IdentifierPolicy = 'auto_claim' | 'suggest' | 'auto_reject' | 'ignore'

export type CandidateState = 'pending' | 'claimed' | 'rejected' | 'hidden'

export type CandidateReason = 'authenticated_orcid' | 'orcid_record' | 'identifier' | 'name_affiliation'

/** One work of an organization; `fields` is JSON `{ field: { value, source } }`. */
export interface WorksTable {
  id: Generated<number>
  org_id: number
  doi_norm: string | null
  pmid: string | null
  openalex_id: string | null
  /** JSON array of ORCID put-codes. */
  orcid_putcodes: string
  title_fingerprint: string | null
  year: number | null
  /** The first author's family name, lower case, for the possible-duplicate check. */
  first_author: string | null
  fields: string
  needs_lookup: number
  created_at: number
  updated_at: number
}

export interface WorkCandidatesTable {
  org_id: number
  expert_id: number
  work_id: number
  state: CandidateState
  reason: CandidateReason
  score: number
  first_seen: number
  decided_by: string | null
  decided_at: number | null
  note: string | null
}

/** An identifier of a work an expert rejected: the same work found again through it stays rejected. */
export interface WorkRejectionsTable {
  org_id: number
  expert_id: number
  kind: 'doi' | 'pmid' | 'openalex' | 'putcode'
  value: string
  work_id: number
}

export interface WorkDuplicatesTable {
  org_id: number
  work_id: number
  other_work_id: number
  created_at: number
}

export type RunTrigger = 'schedule' | 'request' | 'cli'
/** `interrupted`: the process running it died; another took the expert over and refreshed it again. */
export type RunStatus = 'running' | 'finished' | 'failed' | 'interrupted'

export interface WorkRunsTable {
  id: Generated<number>
  org_id: number
  expert_id: number | null
  username: string
  trigger: RunTrigger
  status: RunStatus
  sources: string
  counts: string
  errors: string
  notes: string
  started_at: number
  finished_at: number | null
}

/** When each expert with an identifier is next due, and the lease of the process refreshing it. */
export interface WorkScheduleTable {
  expert_id: number
  org_id: number
  due_at: number
  locked_until: number | null
  lock_token: string | null
  last_refreshed_at: number | null
}

export type WorkRow = Selectable<WorksTable>
export type WorkCandidateRow = Selectable<WorkCandidatesTable>
export type WorkRunRow = Selectable<WorkRunsTable>
