import { recordAudit } from '../audit/log.js'
import type { WriteContext } from '../audit/write-context.js'
import type { Queryable } from '../db/database.js'
import { writeTransaction } from '../db/transactions.js'

/**
 * An organization's editorial workflow settings (CONTRACT §21, docs/editorial.md): which changes need
 * review, and the publish gate a profile must pass to be published. One JSON row per organization; an
 * organization without one has the defaults: no review, no gate.
 */

/**
 * Which changes need review: those of people holding one of `roles` (an empty list: none), to the
 * `sections` named (`account`, a section, `avatar`; null: every one). Stored now; it takes effect with
 * drafts, which hold a reviewed change beside the live profile.
 */
export interface ReviewRules {
  roles: string[]
  sections: string[] | null
}

/** What a profile must meet to be published; each limit null = not checked. */
export interface PublishGate {
  /** The photo's shorter side, in pixels, at least. */
  photo_min_px: number | null
  /** The tagline's characters, at most. */
  tagline_max: number | null
  /** The biography's characters of text (without markup), at most. */
  biography_max: number | null
  /** Topics, at least. */
  topics_min: number | null
}

export interface WorkflowSettings {
  review: ReviewRules
  gate: PublishGate
}

export const GATE_LIMITS = ['photo_min_px', 'tagline_max', 'biography_max', 'topics_min'] as const

export const DEFAULT_WORKFLOW: WorkflowSettings = {
  review: { roles: [], sections: null },
  gate: { photo_min_px: null, tagline_max: null, biography_max: null, topics_min: null },
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []

const limit = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined

/** Stored JSON -> settings; what is missing or malformed there reads as the default. */
function parseSettings(text: string): WorkflowSettings {
  const stored: unknown = JSON.parse(text)
  const review = field(stored, 'review')
  const gate = field(stored, 'gate')
  const sections = field(review, 'sections')
  return {
    review: {
      roles: strings(field(review, 'roles')),
      sections: sections === null ? null : strings(sections),
    },
    gate: {
      photo_min_px: limit(field(gate, 'photo_min_px')),
      tagline_max: limit(field(gate, 'tagline_max')),
      biography_max: limit(field(gate, 'biography_max')),
      topics_min: limit(field(gate, 'topics_min')),
    },
  }
}

export async function readWorkflow(db: Queryable, orgId: number): Promise<WorkflowSettings> {
  const row = await db
    .selectFrom('organization_workflows')
    .select('settings')
    .where('org_id', '=', orgId)
    .executeTakeFirst()
  return row ? parseSettings(row.settings) : DEFAULT_WORKFLOW
}

/** Replaces the organization's settings (in the caller's transaction); returns whether they changed. */
async function saveWorkflow(
  trx: Queryable,
  orgId: number,
  settings: WorkflowSettings,
  now: number,
): Promise<boolean> {
  const before = await readWorkflow(trx, orgId)
  const canonical: WorkflowSettings = {
    review: {
      roles: [...new Set(settings.review.roles)],
      sections: settings.review.sections && [...new Set(settings.review.sections)],
    },
    gate: {
      photo_min_px: settings.gate.photo_min_px,
      tagline_max: settings.gate.tagline_max,
      biography_max: settings.gate.biography_max,
      topics_min: settings.gate.topics_min,
    },
  }
  const text = JSON.stringify(canonical)
  if (JSON.stringify(before) === text) return false
  await trx
    .insertInto('organization_workflows')
    .values({ org_id: orgId, settings: text, updated_at: now })
    .onConflict((conflict) => conflict.column('org_id').doUpdateSet({ settings: text, updated_at: now }))
    .execute()
  return true
}

/** The settings' write (`PUT .../workflow`): replaced whole, audited when they changed. */
export async function setWorkflow(
  { db, orgId, now, trail }: WriteContext,
  settings: WorkflowSettings,
): Promise<boolean> {
  return writeTransaction(db, async (trx) => {
    const changed = await saveWorkflow(trx, orgId, settings, now)
    if (changed) await recordAudit(trx, orgId, trail, { kind: 'workflow', id: orgId }, now)
    return changed
  })
}
