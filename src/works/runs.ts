import type { Queryable } from '../db/database.js'
import type { RunTrigger, WorkRunRow } from '../db/works-schema.js'
import { idCursor } from '../http/cursor.js'
import { isObject } from '../validation/guards.js'
import type { SourceName } from './sources/source.js'

/** The run log of refreshes (`GET .../imports`): one run per expert refresh, with each source's errors and notes. */

export interface RunCounts {
  /** Works the sources gave. */
  found: number
  /** Works new to the organization. */
  created: number
  /** Works whose identifiers or fields changed. */
  updated: number
  /** Candidates new to the expert, by the state they started in. */
  claimed: number
  pending: number
  rejected: number
}

export const emptyCounts = (): RunCounts => ({
  found: 0,
  created: 0,
  updated: 0,
  claimed: 0,
  pending: 0,
  rejected: 0,
})

export interface SourceMessage {
  source: SourceName | string
  message: string
}

export async function startRun(
  db: Queryable,
  orgId: number,
  expert: { id: number; username: string },
  { trigger, sources, now }: { trigger: RunTrigger; sources: SourceName[]; now: number },
): Promise<WorkRunRow> {
  return db
    .insertInto('work_runs')
    .values({
      org_id: orgId,
      expert_id: expert.id,
      username: expert.username,
      trigger,
      status: 'running',
      sources: JSON.stringify(sources),
      counts: JSON.stringify(emptyCounts()),
      errors: '[]',
      notes: '[]',
      started_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function finishRun(
  db: Queryable,
  runId: number,
  {
    counts,
    errors,
    notes,
    now,
    failed,
  }: { counts: RunCounts; errors: SourceMessage[]; notes: SourceMessage[]; now: number; failed: boolean },
): Promise<WorkRunRow> {
  return db
    .updateTable('work_runs')
    .set({
      status: failed ? 'failed' : 'finished',
      counts: JSON.stringify(counts),
      errors: JSON.stringify(errors),
      notes: JSON.stringify(notes),
      finished_at: now,
    })
    .where('id', '=', runId)
    .returningAll()
    .executeTakeFirstOrThrow()
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function messagesOf(text: string): SourceMessage[] {
  const value = parsed(text)
  if (!Array.isArray(value)) return []
  return value.flatMap((entry) =>
    isObject(entry) && typeof entry.source === 'string' && typeof entry.message === 'string'
      ? [{ source: entry.source, message: entry.message }]
      : [],
  )
}

function countsOf(text: string): RunCounts {
  const value = parsed(text)
  const counts = emptyCounts()
  if (!isObject(value)) return counts
  for (const key of Object.keys(counts)) {
    const n = value[key]
    if (typeof n === 'number') Reflect.set(counts, key, n)
  }
  return counts
}

/** A run as the API serves it (times in unix seconds). */
export function runView(run: WorkRunRow) {
  const sources = parsed(run.sources)
  return {
    id: run.id,
    username: run.username,
    trigger: run.trigger,
    status: run.status,
    sources: Array.isArray(sources) ? sources.filter((s): s is string => typeof s === 'string') : [],
    counts: countsOf(run.counts),
    errors: messagesOf(run.errors),
    notes: messagesOf(run.notes),
    started: Math.floor(run.started_at / 1000),
    finished: run.finished_at === null ? null : Math.floor(run.finished_at / 1000),
  }
}

export type RunView = ReturnType<typeof runView>

const runCursor = idCursor('run1.', 'this run log')

/**
 * The organization's runs, newest first, a page at a time; optionally those logged under a username, or
 * one expert's whatever the username was when each ran (`expertId`).
 */
export async function listRuns(
  db: Queryable,
  orgId: number,
  {
    page_size,
    cursor,
    username,
    expertId,
  }: {
    page_size: number
    cursor?: string | undefined
    username?: string | undefined
    expertId?: number | undefined
  },
): Promise<{ runs: RunView[]; next_cursor: string | null }> {
  const before = runCursor.parameter(cursor)
  let query = db.selectFrom('work_runs').selectAll().where('org_id', '=', orgId)
  if (before !== undefined) query = query.where('id', '<', before)
  if (username !== undefined) query = query.where('username', '=', username)
  if (expertId !== undefined) query = query.where('expert_id', '=', expertId)
  const rows = await query
    .orderBy('id', 'desc')
    .limit(page_size + 1)
    .execute()
  const page = rows.slice(0, page_size)
  const last = page.at(-1)
  return {
    runs: page.map(runView),
    next_cursor: rows.length > page_size && last ? runCursor.encode(last.id) : null,
  }
}
