import { Type } from 'typebox'
import type { Audience } from '../db/schema.js'
import { validationError } from '../errors.js'
import { toSeconds } from '../time.js'
import { Clearable, UnixSeconds } from './fields.js'

/**
 * Scheduled publishing and unpublishing (embargoes, CONTRACT §21) as experts, posts and Q&A items take
 * them: `publish_at` and `unpublish_at`, unix seconds, `null` (or "") to cancel. The schedule
 * (src/schedules/) carries each out once, at its time, through the record's normal update.
 */

/** The two fields of every create and update body that schedules. */
export const SCHEDULE_FIELDS = {
  publish_at: Clearable(
    UnixSeconds(
      {
        title: 'Publish at',
        description:
          'When to publish it (in the future); null cancels. Published within a minute of that time by the schedule',
      },
      0,
    ),
  ),
  unpublish_at: Clearable(
    UnixSeconds(
      {
        title: 'Unpublish at',
        description:
          'When to unpublish it (in the future); null cancels. Unpublished within a minute of that time by the schedule',
      },
      0,
    ),
  ),
}

export interface ScheduleInput {
  publish_at?: number | '' | null | undefined
  unpublish_at?: number | '' | null | undefined
}

/** The stored columns of a schedule: times in unix milliseconds, and who set each (an actor reference). */
export interface ScheduleColumns {
  publish_at?: number | null
  publish_by?: string | null
  unpublish_at?: number | null
  unpublish_by?: string | null
}

/**
 * The columns a write's schedule fields set: a time is stored with who set it (`by`), a cancel clears
 * both. A time that is not in the future is 400 naming the field: a schedule that would be carried out
 * at once is a plain publish, which the caller asks for with the published flag.
 */
export function scheduleColumns(input: ScheduleInput, now: number, by: string | null): ScheduleColumns {
  const columns: ScheduleColumns = {}
  const past: { field: string; message: string }[] = []
  for (const action of ['publish', 'unpublish'] as const) {
    const value = input[`${action}_at`]
    if (value === undefined) continue
    const at = value === '' || value === null ? null : value * 1000
    if (at !== null && at <= now)
      past.push({ field: `${action}_at`, message: 'must be in the future (unix seconds); null cancels' })
    columns[`${action}_at`] = at
    columns[`${action}_by`] = at === null ? null : by
  }
  if (past.length > 0) throw validationError(past)
  return columns
}

const scheduledTime = (description: string) =>
  Type.Optional(Type.Union([Type.Integer({ description }), Type.Null()], { description }))

/** The schedule in a read: present for readers who may see everything (`read`), absent for `read:public`. */
export const SCHEDULE_READ = {
  publish_at: scheduledTime(
    'When the schedule publishes it (unix seconds); null: not scheduled. Not shown to read:public',
  ),
  unpublish_at: scheduledTime(
    'When the schedule unpublishes it (unix seconds); null: not scheduled. Not shown to read:public',
  ),
}

/** The schedule of a stored record as `audience` reads it: nothing for the public. */
export function scheduleRead(
  row: { publish_at: number | null; unpublish_at: number | null },
  audience: Audience,
): { publish_at?: number | null; unpublish_at?: number | null } {
  if (audience !== 'all') return {}
  return { publish_at: toSeconds(row.publish_at), unpublish_at: toSeconds(row.unpublish_at) }
}
