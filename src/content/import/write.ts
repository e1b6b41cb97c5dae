import type { Transaction } from 'kysely'
import type { DB, ExpertRow } from '../../db/schema.js'
import { insertExpert, updateExpertRow } from '../../experts/repository.js'
import { claimUsername, type ExpertColumns, resolveState, toColumns } from '../../experts/service.js'
import { usernameBase } from '../../experts/username.js'
import {
  refreshExpertSearch,
  refreshQuestionSearch,
  refreshSpotlightSearch,
} from '../../search/maintenance.js'
import { subdivisionCode } from '../../validation/geo.js'
import type { ProfileItemRow } from '../repository.js'
import { AVATAR_SIZES, type StoredSection, sectionFieldNames } from '../sections.js'
import type { ImportIssue } from './format.js'
import type {
  ExpertRecord,
  ImportPlan,
  OrganizationRecord,
  QuestionRecord,
  SpotlightRecord,
} from './validate.js'

type Trx = Transaction<DB>

export interface ImportCounts {
  created: number
  updated: number
  unchanged: number
}

export interface ImportResult {
  experts: ImportCounts
  spotlights: ImportCounts
  questions: ImportCounts
  /** Usernames of the file's experts and ids of its posts and questions, in file order. */
  ids: { experts: string[]; spotlights: number[]; questions: number[] }
}

/** The file has problems; nothing was written. */
export class ImportRejected extends Error {
  constructor(readonly issues: ImportIssue[]) {
    super(
      `The import file has ${issues.length} problem${issues.length === 1 ? '' : 's'}; nothing was imported.`,
    )
    this.name = 'ImportRejected'
  }
}

const CHUNK = 500

async function inChunks<T, R>(values: T[], run: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = []
  const unique = [...new Set(values)]
  for (let i = 0; i < unique.length; i += CHUNK) out.push(...(await run(unique.slice(i, i + CHUNK))))
  return out
}

const counts = (): ImportCounts => ({ created: 0, updated: 0, unchanged: 0 })
const ms = (seconds: number | null | undefined) =>
  seconds === null || seconds === undefined ? null : seconds * 1000

/** Who the file's experts are in the database, and what its references point at. */
interface Resolution {
  /** File expert key -> existing expert id (by key, or adopted by email). */
  targets: Map<string, number>
  /** Reference (key or username) -> expert id, for references outside the file. */
  references: Map<string, number>
  rows: Map<number, ExpertRow>
  linkedKeys: Set<string>
}

/** Reads what the plan refers to; every problem found is reported together. */
async function resolve(trx: Trx, orgId: number, plan: ImportPlan): Promise<Resolution> {
  const issues: ImportIssue[] = []
  const fileKeys = new Set(plan.experts.map((e) => e.record.key))
  const keyRows = await inChunks([...fileKeys], (keys) =>
    trx
      .selectFrom('expert_import_keys')
      .select(['key', 'expert_id'])
      .where('org_id', '=', orgId)
      .where('key', 'in', keys)
      .execute(),
  )
  const byKey = new Map(keyRows.map((row) => [row.key, row.expert_id]))
  const emailRows = await inChunks(
    plan.experts.map((e) => e.record.email.toLowerCase()),
    (emails) =>
      trx
        .selectFrom('experts')
        .select(['id', 'username', 'email_key'])
        .where('org_id', '=', orgId)
        .where('email_key', 'in', emails)
        .execute(),
  )
  const byEmail = new Map(emailRows.map((row) => [row.email_key, row]))
  const holderKeys = await inChunks(
    emailRows.map((row) => row.id),
    (ids) =>
      trx
        .selectFrom('expert_import_keys')
        .select(['key', 'expert_id'])
        .where('org_id', '=', orgId)
        .where('expert_id', 'in', ids)
        .execute(),
  )
  const keyOfExpert = new Map(holderKeys.map((row) => [row.expert_id, row.key]))

  const targets = new Map<string, number>()
  for (const { position, record } of plan.experts) {
    const target = byKey.get(record.key)
    const holder = byEmail.get(record.email.toLowerCase())
    const conflict = (message: string) => issues.push({ position, key: record.key, field: 'email', message })
    if (target !== undefined) {
      targets.set(record.key, target)
      if (holder && holder.id !== target) conflict(`is already used by expert ${holder.username}`)
    } else if (holder) {
      const linked = keyOfExpert.get(holder.id)
      if (linked !== undefined && linked !== record.key)
        conflict(`is already used by expert ${holder.username}, imported with the key ${linked}`)
      else targets.set(record.key, holder.id)
    }
  }

  const refs = [
    ...plan.spotlights.flatMap((s) => s.record.experts ?? []),
    ...plan.questions.flatMap((q) => (q.record.answers ?? []).map((a) => a.expert)),
  ].filter((ref) => !fileKeys.has(ref))
  const references = new Map<string, number>()
  for (const row of await inChunks(refs, (keys) =>
    trx
      .selectFrom('expert_import_keys')
      .select(['key', 'expert_id'])
      .where('org_id', '=', orgId)
      .where('key', 'in', keys)
      .execute(),
  ))
    references.set(row.key, row.expert_id)
  for (const row of await inChunks(
    refs.filter((ref) => !references.has(ref)),
    (names) =>
      trx
        .selectFrom('experts')
        .select(['id', 'username'])
        .where('org_id', '=', orgId)
        .where('username', 'in', names)
        .execute(),
  ))
    references.set(row.username, row.id)
  const unknown =
    'is neither the key of an expert in this file or an earlier import, nor the username of an expert of this organization'
  for (const { position, record } of plan.spotlights) {
    ;(record.experts ?? []).forEach((ref, i) => {
      if (!fileKeys.has(ref) && !references.has(ref))
        issues.push({ position, key: record.key, field: `experts[${i}]`, message: unknown })
    })
  }
  for (const { position, record } of plan.questions) {
    ;(record.answers ?? []).forEach((answer, i) => {
      if (!fileKeys.has(answer.expert) && !references.has(answer.expert))
        issues.push({ position, key: record.key, field: `answers[${i}].expert`, message: unknown })
    })
  }
  if (issues.length > 0) throw new ImportRejected(issues)

  const rows = new Map<number, ExpertRow>()
  for (const row of await inChunks([...targets.values()], (ids) =>
    trx.selectFrom('experts').selectAll().where('org_id', '=', orgId).where('id', 'in', ids).execute(),
  ))
    rows.set(row.id, row)
  return { targets, references, rows, linkedKeys: new Set(byKey.keys()) }
}

/** Finds or creates the organization's tags (case-insensitive); name key -> tag. */
async function ensureTags(trx: Trx, orgId: number, names: string[]) {
  const wanted = new Map<string, string>()
  for (const name of names) if (!wanted.has(name.toLowerCase())) wanted.set(name.toLowerCase(), name)
  const tags = new Map<string, { id: number; name: string }>()
  for (const row of await inChunks([...wanted.keys()], (keys) =>
    trx
      .selectFrom('content_tags')
      .select(['id', 'name', 'name_key'])
      .where('org_id', '=', orgId)
      .where('name_key', 'in', keys)
      .execute(),
  ))
    tags.set(row.name_key, row)
  const missing = [...wanted].filter(([key]) => !tags.has(key))
  for (let i = 0; i < missing.length; i += CHUNK) {
    const rows = await trx
      .insertInto('content_tags')
      .values(missing.slice(i, i + CHUNK).map(([name_key, name]) => ({ org_id: orgId, name, name_key })))
      .returning(['id', 'name', 'name_key'])
      .execute()
    for (const row of rows) tags.set(row.name_key, row)
  }
  return tags
}

type Tags = Awaited<ReturnType<typeof ensureTags>>

/** Rows keyed for sync: what the file wants, in order. */
interface Desired<T> {
  key: string
  values: T
}

/**
 * Makes the stored children equal the desired list: rows with the same key are updated in place
 * (ids stay stable across re-imports), new keys inserted, others deleted. Returns whether anything changed.
 */
async function syncChildren<T extends Record<string, unknown>>(
  existing: ({ id: number; key: string } & T)[],
  desired: Desired<T>[],
  ops: {
    insert(values: T): Promise<void>
    update(id: number, values: T): Promise<void>
    remove(ids: number[]): Promise<void>
  },
): Promise<boolean> {
  const byKey = new Map(existing.map((row) => [row.key, row]))
  let changed = false
  for (const { key, values } of desired) {
    const row = byKey.get(key)
    if (!row) {
      await ops.insert(values)
      changed = true
      continue
    }
    byKey.delete(key)
    if (Object.entries(values).some(([field, value]) => row[field] !== value)) {
      await ops.update(row.id, values)
      changed = true
    }
  }
  const stale = [...byKey.values()].map((row) => row.id)
  if (stale.length > 0) {
    await ops.remove(stale)
    changed = true
  }
  return changed
}

/** The stored JSON of one element: every field of the section, in order, unset ones null. */
function elementData(section: StoredSection, element: Record<string, unknown>, tags: Tags): string {
  const data: Record<string, unknown> = {}
  if (section === 'tag') {
    const tag = tags.get(String(element.tag).toLowerCase())
    return JSON.stringify({ content_tag_id: tag?.id, tag: tag?.name })
  }
  for (const field of sectionFieldNames(section)) {
    const value = element[field] ?? null
    data[field] = field === 'currency' && typeof value === 'string' ? value.toUpperCase() : value
  }
  return JSON.stringify(data)
}

async function syncSections(
  trx: Trx,
  orgId: number,
  expertId: number,
  sections: NonNullable<ExpertRecord['sections']>,
  tags: Tags,
): Promise<boolean> {
  const names = Object.keys(sections)
  if (names.length === 0) return false
  const stored: ProfileItemRow[] = await trx
    .selectFrom('profile_items')
    .select(['id', 'section', 'position', 'external_key', 'data'])
    .where('org_id', '=', orgId)
    .where('expert_id', '=', expertId)
    .where('section', 'in', names)
    .execute()
  let changed = false
  for (const [section, value] of Object.entries(sections)) {
    let desired: Desired<{ position: number; data: string }>[]
    if (section === 'avatar') {
      const avatar = value as Record<string, unknown>
      const renditions = Object.fromEntries(AVATAR_SIZES.filter((s) => avatar[s]).map((s) => [s, avatar[s]]))
      desired =
        Object.keys(renditions).length > 0
          ? [{ key: '#0', values: { position: 0, data: JSON.stringify(renditions) } }]
          : []
    } else {
      desired = (value as unknown as Record<string, unknown>[]).map((element, position) => ({
        key: typeof element.key === 'string' ? element.key : `#${position}`,
        values: { position, data: elementData(section as StoredSection, element, tags) },
      }))
    }
    const existing = stored
      .filter((row) => row.section === section)
      .map((row) => ({ id: row.id, key: row.external_key, position: row.position, data: row.data }))
    changed =
      (await syncChildren(existing, desired, {
        insert: async (values) => {
          const key = desired.find((d) => d.values === values)?.key as string
          await trx
            .insertInto('profile_items')
            .values({ expert_id: expertId, org_id: orgId, section, external_key: key, ...values })
            .execute()
        },
        update: async (id, values) => {
          await trx
            .updateTable('profile_items')
            .set(values)
            .where('org_id', '=', orgId)
            .where('id', '=', id)
            .execute()
        },
        remove: async (ids) => {
          await trx.deleteFrom('profile_items').where('org_id', '=', orgId).where('id', 'in', ids).execute()
        },
      })) || changed
  }
  return changed
}

async function writeOrganization(trx: Trx, orgId: number, record: OrganizationRecord): Promise<void> {
  const values: Record<string, string | null> = {}
  for (const [field, value] of Object.entries(record))
    values[field] = (value as string | null | undefined) ?? null
  if (values.location_country) values.location_country = values.location_country.toUpperCase()
  if (values.location_state && values.location_country)
    values.location_state = subdivisionCode(values.location_country, values.location_state) ?? null
  const exists = await trx
    .selectFrom('organization_profiles')
    .select('org_id')
    .where('org_id', '=', orgId)
    .executeTakeFirst()
  if (exists) await trx.updateTable('organization_profiles').set(values).where('org_id', '=', orgId).execute()
  else
    await trx
      .insertInto('organization_profiles')
      .values({ org_id: orgId, ...values })
      .execute()
}

async function writeExpert(
  trx: Trx,
  orgId: number,
  record: ExpertRecord,
  resolution: Resolution,
  tags: Tags,
  now: number,
): Promise<{ id: number; username: string; outcome: keyof ImportCounts }> {
  const { key, sections, is_published, is_private, ...fields } = record
  const columns = toColumns(fields) as Partial<ExpertColumns>
  const targetId = resolution.targets.get(key)
  const stored = targetId === undefined ? undefined : resolution.rows.get(targetId)
  resolveState(columns, stored)
  if (is_published !== undefined) columns.is_published = is_published
  if (is_private !== undefined) columns.is_private = is_private
  let id: number
  let username: string
  let changed: boolean
  if (!stored) {
    username = await claimUsername(trx, usernameBase(record.firstname, record.lastname), now)
    id = await insertExpert(trx, {
      ...(columns as ExpertColumns),
      org_id: orgId,
      username,
      is_published: is_published ?? 0,
      is_private: is_private ?? 0,
      created_at: now,
      updated_at: now,
    })
    changed = true
  } else {
    id = stored.id
    username = stored.username
    const changes = Object.fromEntries(
      Object.entries(columns).filter(([field, value]) => stored[field as keyof ExpertRow] !== value),
    )
    changed = Object.keys(changes).length > 0
    if (changed) await updateExpertRow(trx, orgId, id, changes)
  }
  if (!resolution.linkedKeys.has(key))
    await trx.insertInto('expert_import_keys').values({ org_id: orgId, key, expert_id: id }).execute()
  const sectionsChanged = await syncSections(trx, orgId, id, sections ?? {}, tags)
  if (stored && (changed || sectionsChanged)) await updateExpertRow(trx, orgId, id, { updated_at: now })
  if (changed || sectionsChanged) await refreshExpertSearch(trx, orgId, id)
  return { id, username, outcome: !stored ? 'created' : changed || sectionsChanged ? 'updated' : 'unchanged' }
}

const seoColumns = (seo: SpotlightRecord['seo']) => ({
  seo_title: seo?.title ?? null,
  seo_description: seo?.description ?? null,
  seo_keywords: seo?.keywords ?? null,
  seo_image: seo?.image ?? null,
  seo_canonical_url: seo?.canonical_url ?? null,
})

async function syncTags(
  trx: Trx,
  table: 'spotlight_tags' | 'question_tags',
  ownerId: number,
  names: string[],
  tags: Tags,
) {
  const existing = await trx
    .selectFrom(table)
    .select(['id', 'content_tag_id', 'position'])
    .where('owner_id', '=', ownerId)
    .execute()
  const ids = [...new Set(names.map((name) => tags.get(name.toLowerCase())?.id as number))]
  return syncChildren(
    existing.map((row) => ({ id: row.id, key: String(row.content_tag_id), position: row.position })),
    ids.map((id, position) => ({ key: String(id), values: { position } })),
    {
      insert: async () => {},
      update: async (id, values) => {
        await trx.updateTable(table).set(values).where('id', '=', id).execute()
      },
      remove: async (stale) => {
        await trx.deleteFrom(table).where('id', 'in', stale).execute()
      },
    },
  ).then(async (changed) => {
    // Inserts are done here, where the tag id (the key) is at hand.
    const present = new Set(existing.map((row) => row.content_tag_id))
    const added = ids
      .map((id, position) => ({ owner_id: ownerId, content_tag_id: id, position }))
      .filter((row) => !present.has(row.content_tag_id))
    if (added.length > 0) await trx.insertInto(table).values(added).execute()
    return changed || added.length > 0
  })
}

/** Inserts or updates a post or question row by its key; returns its id and whether it changed. */
async function upsertContent<T extends 'spotlights' | 'questions'>(
  trx: Trx,
  table: T,
  orgId: number,
  key: string,
  columns: Record<string, unknown>,
  now: number,
): Promise<{ id: number; created: boolean; changed: boolean }> {
  const row = (await trx
    .selectFrom(table as 'spotlights')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('external_key', '=', key)
    .executeTakeFirst()) as Record<string, unknown> | undefined
  if (!row) {
    const inserted = await trx
      .insertInto(table as 'spotlights')
      .values({ ...columns, org_id: orgId, external_key: key, created_at: now, updated_at: now } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: inserted.id, created: true, changed: true }
  }
  const changed = Object.entries(columns).some(([field, value]) => row[field] !== value)
  if (changed)
    await trx
      .updateTable(table as 'spotlights')
      .set(columns as never)
      .where('id', '=', row.id as number)
      .execute()
  return { id: row.id as number, created: false, changed }
}

async function touch(trx: Trx, table: 'spotlights' | 'questions', id: number, now: number) {
  await trx
    .updateTable(table as 'spotlights')
    .set({ updated_at: now })
    .where('id', '=', id)
    .execute()
}

async function writeSpotlight(
  trx: Trx,
  orgId: number,
  record: SpotlightRecord,
  expertId: (ref: string) => number,
  tags: Tags,
  now: number,
) {
  const { id, created, changed } = await upsertContent(
    trx,
    'spotlights',
    orgId,
    record.key,
    {
      title: record.title,
      html: record.html,
      featured_image: record.featured_image ?? null,
      published: record.published ?? 0,
      published_at: ms(record.published_date as number | null | undefined),
      ...seoColumns(record.seo),
    },
    now,
  )
  const wanted = [...new Set((record.experts ?? []).map(expertId))]
  const current = await trx
    .selectFrom('spotlight_experts')
    .select(['expert_id'])
    .where('spotlight_id', '=', id)
    .orderBy('position')
    .execute()
  const expertsChanged = current.map((row) => row.expert_id).join() !== wanted.join()
  if (expertsChanged) {
    await trx.deleteFrom('spotlight_experts').where('spotlight_id', '=', id).execute()
    if (wanted.length > 0)
      await trx
        .insertInto('spotlight_experts')
        .values(wanted.map((expert_id, position) => ({ spotlight_id: id, expert_id, position })))
        .execute()
  }
  const tagsChanged = await syncTags(trx, 'spotlight_tags', id, record.tags ?? [], tags)
  if (!created && !changed && (expertsChanged || tagsChanged)) await touch(trx, 'spotlights', id, now)
  if (created || changed) await refreshSpotlightSearch(trx, orgId, id)
  return { id, outcome: outcomeOf(created, changed || expertsChanged || tagsChanged) }
}

async function writeQuestion(
  trx: Trx,
  orgId: number,
  record: QuestionRecord,
  expertId: (ref: string) => number,
  tags: Tags,
  now: number,
) {
  const { id, created, changed } = await upsertContent(
    trx,
    'questions',
    orgId,
    record.key,
    {
      question: record.question,
      details: record.details ?? null,
      published: record.published ?? 0,
      published_at: ms(record.published_date as number | null | undefined),
      ...seoColumns(record.seo),
    },
    now,
  )
  const existing = await trx
    .selectFrom('answers')
    .select(['id', 'external_key', 'expert_id', 'answer', 'position', 'created_at'])
    .where('question_id', '=', id)
    .execute()
  const createdAt = new Map(existing.map((row) => [row.external_key, row.created_at]))
  const desired = (record.answers ?? []).map((answer, position) => {
    const key = answer.key ?? `#${position}`
    return {
      key,
      values: {
        expert_id: expertId(answer.expert),
        answer: answer.answer,
        position,
        created_at: ms(answer.created) ?? createdAt.get(key) ?? now,
      },
    }
  })
  const answersChanged = await syncChildren(
    existing.map(({ external_key, ...row }) => ({ ...row, key: external_key })),
    desired,
    {
      insert: async (values) => {
        const key = desired.find((d) => d.values === values)?.key as string
        await trx
          .insertInto('answers')
          .values({ question_id: id, external_key: key, ...values })
          .execute()
      },
      update: async (answerId, values) => {
        await trx.updateTable('answers').set(values).where('id', '=', answerId).execute()
      },
      remove: async (ids) => {
        await trx.deleteFrom('answers').where('id', 'in', ids).execute()
      },
    },
  )
  const tagsChanged = await syncTags(trx, 'question_tags', id, record.tags ?? [], tags)
  if (!created && !changed && (answersChanged || tagsChanged)) await touch(trx, 'questions', id, now)
  if (created || changed || answersChanged) await refreshQuestionSearch(trx, orgId, id)
  return { id, outcome: outcomeOf(created, changed || answersChanged || tagsChanged) }
}

function outcomeOf(created: boolean, changed: boolean): keyof ImportCounts {
  return created ? 'created' : changed ? 'updated' : 'unchanged'
}

/** Writes a validated plan in the caller's transaction. Throws ImportRejected before writing anything when references do not resolve. */
export async function writePlan(
  trx: Trx,
  orgId: number,
  plan: ImportPlan,
  now: number,
  onRecord: () => void = () => {},
): Promise<ImportResult> {
  const resolution = await resolve(trx, orgId, plan)
  const result: ImportResult = {
    experts: counts(),
    spotlights: counts(),
    questions: counts(),
    ids: { experts: [], spotlights: [], questions: [] },
  }
  if (plan.organization) {
    await writeOrganization(trx, orgId, plan.organization.record)
    onRecord()
  }
  const tags = await ensureTags(trx, orgId, [
    ...plan.experts.flatMap((e) =>
      ((e.record.sections as { tag?: { tag: string }[] } | undefined)?.tag ?? []).map((t) => t.tag),
    ),
    ...plan.spotlights.flatMap((s) => s.record.tags ?? []),
    ...plan.questions.flatMap((q) => q.record.tags ?? []),
  ])
  const fileExperts = new Map<string, number>()
  for (const { record } of plan.experts) {
    const written = await writeExpert(trx, orgId, record, resolution, tags, now)
    fileExperts.set(record.key, written.id)
    result.experts[written.outcome]++
    result.ids.experts.push(written.username)
    onRecord()
  }
  const expertId = (ref: string) => (fileExperts.get(ref) ?? resolution.references.get(ref)) as number
  for (const { record } of plan.spotlights) {
    const written = await writeSpotlight(trx, orgId, record, expertId, tags, now)
    result.spotlights[written.outcome]++
    result.ids.spotlights.push(written.id)
    onRecord()
  }
  for (const { record } of plan.questions) {
    const written = await writeQuestion(trx, orgId, record, expertId, tags, now)
    result.questions[written.outcome]++
    result.ids.questions.push(written.id)
    onRecord()
  }
  return result
}
