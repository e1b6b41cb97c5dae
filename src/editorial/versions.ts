import type { WriteContext } from '../audit/write-context.js'
import { CONTENT_API, type UpdateInput } from '../content/kinds.js'
import { updateItem } from '../content/publishing.js'
import { findQuestion, findSpotlight } from '../content/repository.js'
import { PostUpdate, QuestionUpdate } from '../content/schemas.js'
import type { ContentKind } from '../db/content-kinds.js'
import type { Queryable } from '../db/database.js'
import type { ProfileType } from '../db/schema.js'
import { ApiError, notFound } from '../errors.js'
import { profileNotFound } from '../experts/profile-type.js'
import { findExpert } from '../experts/repository.js'
import { ExpertUpdate, type ExpertUpdateInput } from '../experts/schemas.js'
import { updateExpert } from '../experts/service.js'
import { type FieldChange, fieldChanges, type RichField } from '../history/diff.js'
import { findVersion, ITEM_PART, listVersions, type VersionedRecord } from '../history/versions.js'
import { compileValidator, type Validator } from '../http/validation.js'
import { isStoredSection, markupFields } from '../profiles/section-fields.js'
import { restoreSection } from '../profiles/sections.js'
import { isObject } from '../validation/guards.js'

/**
 * The versions of a profile, a post or a Q&A item as the API serves them (CONTRACT §21,
 * docs/editorial.md): the history, one version with its diff, and restoring one. The versions are kept
 * by the write services themselves (src/history/versions.ts); this reads them and restores them.
 */

/** Whose versions: a profile by its type and username, or a post or question by its id. */
export type VersionTarget =
  | { kind: 'profile'; type: ProfileType; username: string }
  | { kind: ContentKind; id: number }

const ITEM_FINDERS: Record<ContentKind, (db: Queryable, orgId: number, id: number) => Promise<unknown>> = {
  spotlight: findSpotlight,
  question: findQuestion,
}

/** The record the target names, as versions are kept of it; a 404 when there is none. */
async function recordOf(db: Queryable, orgId: number, target: VersionTarget): Promise<VersionedRecord> {
  if (target.kind === 'profile') {
    const expert = await findExpert(db, orgId, target.username, target.type)
    if (!expert) throw profileNotFound(target.type, target.username)
    return { kind: 'profile', id: expert.id }
  }
  if (!(await ITEM_FINDERS[target.kind](db, orgId, target.id)))
    throw notFound(`${CONTENT_API[target.kind].noun} ${target.id}`)
  return { kind: target.kind, id: target.id }
}

/** One page of the target's versions, newest first. */
export async function readVersions(
  db: Queryable,
  orgId: number,
  target: VersionTarget,
  page: { page_size: number; cursor?: string | undefined },
) {
  return listVersions(db, orgId, await recordOf(db, orgId, target), page)
}

const versionNotFound = (id: number) => notFound(`Version ${id}`)

/** The HTML fields of a part: a section's markup fields, a post's body, a question's details. */
function richFields(part: string, kind: VersionTarget['kind']): RichField {
  if (kind === 'spotlight') return (name) => name === 'html'
  if (kind === 'question') return (name) => name === 'details'
  if (!isStoredSection(part)) return () => false
  const markup = markupFields(part)
  return (name) => markup.has(name)
}

/** One version with what it changed from the version of the same part before it. */
export async function readVersion(db: Queryable, orgId: number, target: VersionTarget, id: number) {
  const found = await findVersion(db, orgId, await recordOf(db, orgId, target), id)
  if (!found) throw versionNotFound(id)
  const { version, previous } = found
  const diff: FieldChange[] = fieldChanges(
    previous?.snapshot ?? null,
    version.snapshot,
    richFields(version.part, target.kind),
  )
  return { ...version, previous_id: previous?.id ?? null, diff }
}

/** A kept snapshot as the body of an update; what today's rules refuse is a 409 naming it. */
function asUpdate<T>(validator: Validator<T>, body: unknown, id: number): T {
  const { value, error } = validator(body)
  if (error)
    throw new ApiError(
      'conflict',
      `Version ${id} cannot be restored: what it kept does not meet today's rules for the record.`,
      error.details ? { details: error.details } : {},
    )
  return value
}

const expertUpdate = compileValidator<ExpertUpdateInput>(ExpertUpdate, 'body')
const itemUpdates = {
  spotlight: compileValidator<UpdateInput<'spotlight'>>(PostUpdate, 'body'),
  question: compileValidator<UpdateInput<'question'>>(QuestionUpdate, 'body'),
}

/** The account element kept by a version, as an update body: null clears a field (""), the rest as kept. */
function accountBody(snapshot: unknown): Record<string, unknown> {
  if (!isObject(snapshot)) return {}
  const { corporation_id: _organization, ...fields } = snapshot
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, value ?? '']))
}

/**
 * Restores a version: the part it kept becomes the record's again, as a new change through the same
 * write as any other (the account's update, the section's restore, the item's update), so the audit
 * log, the search index, the read documents, the publish gate and a new version follow. Every restore
 * goes through here: when changes need review, this is where a restore becomes a draft instead.
 * Returns whether the record changed (false when it already equalled the version).
 */
export async function restoreVersion(
  write: WriteContext,
  target: VersionTarget,
  id: number,
): Promise<{ restored: number; updated: boolean }> {
  const found = await findVersion(write.db, write.orgId, await recordOf(write.db, write.orgId, target), id)
  if (!found) throw versionNotFound(id)
  const { part, snapshot } = found.version
  if (target.kind === 'profile') {
    const profile = { type: target.type, username: target.username }
    if (part === 'account') {
      const input = asUpdate(expertUpdate, accountBody(snapshot), id)
      const { updated } = await updateExpert(write, { username: target.username, input, type: target.type })
      return { restored: id, updated }
    }
    const kept: unknown = isObject(snapshot) ? snapshot[part] : undefined
    if (!isStoredSection(part) || !Array.isArray(kept))
      throw new ApiError('conflict', `Version ${id} keeps no section this service can restore.`)
    const elements = kept.filter(isObject)
    return { restored: id, updated: await restoreSection(write, { profile, section: part, elements }) }
  }
  if (part !== ITEM_PART) throw versionNotFound(id)
  const updated =
    target.kind === 'spotlight'
      ? await updateItem(write, {
          kind: 'spotlight',
          id: target.id,
          input: asUpdate(itemUpdates.spotlight, snapshot, id),
        })
      : await updateItem(write, {
          kind: 'question',
          id: target.id,
          input: asUpdate(itemUpdates.question, snapshot, id),
        })
  return { restored: id, updated }
}
