import type { Transaction } from 'kysely'
import { type ItemWrite, replaceAnswers, saveItem } from '../content/publishing.js'
import { findContentByKey } from '../content/repository.js'
import {
  byContentTable,
  CONTENT_KIND_NAMES,
  CONTENT_KINDS,
  type ContentKind,
  type ContentTable,
} from '../db/content-kinds.js'
import type { DB, ExpertRow } from '../db/schema.js'
import { profileChanged } from '../derived/changes.js'
import { createAccount, updateAccount } from '../experts/account.js'
import { findExpertIds, findExpertsByEmail, findExpertsForWrite } from '../experts/repository.js'
import { setOrganizationProfile } from '../profiles/organization.js'
import { ORGANIZATION_PROFILE_COLUMNS } from '../profiles/repository.js'
import { replaceSections } from '../profiles/sections.js'
import type { ImportIssue } from './format.js'
import { findImportKeys, findImportKeysOfExperts, linkImportKey } from './repository.js'
import type { ContentRecords, ExpertRecord, ImportPlan, OrganizationRecord, Valid } from './validate.js'

type Trx = Transaction<DB>

export interface ImportCounts {
  created: number
  updated: number
  unchanged: number
}

type ContentLists = ContentTable

/** What an import wrote: experts, and each content kind under its list's name (`spotlights`, `questions`). */
export type ImportResult = { experts: ImportCounts } & Record<ContentLists, ImportCounts> & {
    /** Usernames of the file's experts and ids of its posts and questions, in file order. */
    ids: { experts: string[] } & Record<ContentLists, number[]>
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

const counts = (): ImportCounts => ({ created: 0, updated: 0, unchanged: 0 })

function outcomeOf(created: boolean, changed: boolean): keyof ImportCounts {
  return created ? 'created' : changed ? 'updated' : 'unchanged'
}

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
  const byKey = await findImportKeys(trx, orgId, [...fileKeys])
  const emailRows = await findExpertsByEmail(
    trx,
    orgId,
    plan.experts.map((e) => e.record.email.toLowerCase()),
  )
  const byEmail = new Map(emailRows.map((row) => [row.email_key, row]))
  const keyOfExpert = await findImportKeysOfExperts(
    trx,
    orgId,
    emailRows.map((row) => row.id),
  )

  const targets = new Map<string, number>()
  for (const { position, record } of plan.experts) {
    const target = byKey.get(record.key)
    const holder = byEmail.get(record.email.toLowerCase())
    const conflict = (message: string) => issues.push({ position, key: record.key, field: 'email', message })
    if (holder?.type === 'staff') conflict(`is already used by staff member ${holder.username}`)
    else if (target !== undefined) {
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
    ...plan.content.spotlight.flatMap((s) => s.record.experts ?? []),
    ...plan.content.question.flatMap((q) => (q.record.answers ?? []).map((a) => a.expert)),
  ].filter((ref) => !fileKeys.has(ref))
  const references = await findImportKeys(trx, orgId, refs)
  for (const [username, id] of await findExpertIds(
    trx,
    orgId,
    refs.filter((ref) => !references.has(ref)),
  ))
    references.set(username, id)
  const unknown =
    'is neither the key of an expert in this file or an earlier import, nor the username of an expert of this organization'
  for (const { position, record } of plan.content.spotlight) {
    ;(record.experts ?? []).forEach((ref, i) => {
      if (!fileKeys.has(ref) && !references.has(ref))
        issues.push({ position, key: record.key, field: `experts[${i}]`, message: unknown })
    })
  }
  for (const { position, record } of plan.content.question) {
    ;(record.answers ?? []).forEach((answer, i) => {
      if (!fileKeys.has(answer.expert) && !references.has(answer.expert))
        issues.push({ position, key: record.key, field: `answers[${i}].expert`, message: unknown })
    })
  }
  if (issues.length > 0) throw new ImportRejected(issues)

  const rows = new Map<number, ExpertRow>()
  for (const row of await findExpertsForWrite(trx, orgId, [...targets.values()])) rows.set(row.id, row)
  return { targets, references, rows, linkedKeys: new Set(byKey.keys()) }
}

/** An organization record sets the whole public profile: fields it leaves out are cleared. */
async function writeOrganization(trx: Trx, orgId: number, record: OrganizationRecord, now: number) {
  const values = Object.fromEntries(
    ORGANIZATION_PROFILE_COLUMNS.map((column) => [column, record[column] ?? null]),
  )
  await setOrganizationProfile(trx, orgId, values, now)
}

async function writeExpert(
  trx: Trx,
  orgId: number,
  record: ExpertRecord,
  resolution: Resolution,
  now: number,
) {
  const { key, sections, ...account } = record
  const targetId = resolution.targets.get(key)
  const stored = targetId === undefined ? undefined : resolution.rows.get(targetId)
  let id: number
  let username: string
  let changed: boolean
  if (!stored) {
    ;({ id, username } = await createAccount(trx, orgId, account, now))
    changed = true
  } else {
    ;({ id, username } = stored)
    changed = await updateAccount(trx, orgId, stored, account, now)
  }
  if (!resolution.linkedKeys.has(key)) await linkImportKey(trx, orgId, key, id)
  const sectionsChanged = await replaceSections(trx, orgId, id, sections ?? {})
  if (changed || sectionsChanged)
    await profileChanged(trx, orgId, id, now, { account: Boolean(stored) && changed })
  return { id, username, outcome: outcomeOf(!stored, changed || sectionsChanged) }
}

const seoOf = (seo: ContentRecords[ContentKind]['seo']) => ({
  title: seo?.title ?? null,
  description: seo?.description ?? null,
  keywords: seo?.keywords ?? null,
  image: seo?.image ?? null,
  canonical_url: seo?.canonical_url ?? null,
})

const publicationOf = (record: ContentRecords[ContentKind]) => ({
  published: record.published ?? 0,
  published_date: record.published_date ?? null,
  seo: seoOf(record.seo),
  tags: record.tags ?? [],
})

/** How each kind's record becomes the service's write: a post's experts and a question's answers. */
const ITEM_WRITES: {
  [K in ContentKind]: (record: ContentRecords[K], expertId: (ref: string) => number) => ItemWrite<K>
} = {
  spotlight: (record, expertId) => ({
    title: record.title,
    html: record.html,
    featured_image: record.featured_image ?? null,
    expertIds: (record.experts ?? []).map(expertId),
    ...publicationOf(record),
  }),
  question: (record) => ({
    question: record.question,
    details: record.details ?? null,
    ...publicationOf(record),
  }),
}

/** What a kind's record writes after the item itself: a question's answers, matched by their keys. */
const AFTER_ITEM: {
  [K in ContentKind]: (
    trx: Trx,
    orgId: number,
    id: number,
    record: ContentRecords[K],
    expertId: (ref: string) => number,
    now: number,
  ) => Promise<boolean>
} = {
  spotlight: async () => false,
  question: (trx, orgId, id, record, expertId, now) =>
    replaceAnswers(
      trx,
      orgId,
      id,
      (record.answers ?? []).map((answer, position) => ({
        key: answer.key ?? `#${position}`,
        expertId: expertId(answer.expert),
        answer: answer.answer,
        ...(answer.created !== undefined ? { createdAt: answer.created * 1000 } : {}),
      })),
      now,
    ),
}

/** A post or a question by its import key, through the same service as the API. */
async function writeItem<K extends ContentKind>(
  trx: Trx,
  orgId: number,
  kind: K,
  record: ContentRecords[K],
  expertId: (ref: string) => number,
  now: number,
) {
  const existing = await findContentByKey(trx, orgId, kind, record.key)
  const saved = await saveItem(
    trx,
    orgId,
    kind,
    existing,
    ITEM_WRITES[kind](record, expertId),
    now,
    record.key,
  )
  const afterChanged = await AFTER_ITEM[kind](trx, orgId, saved.id, record, expertId, now)
  return { id: saved.id, outcome: outcomeOf(!existing, saved.changed || afterChanged) }
}

/** Writes a kind's records in file order, counting each outcome under the kind's list name. */
async function writeKind<K extends ContentKind>(
  trx: Trx,
  orgId: number,
  kind: K,
  plan: ImportPlan,
  write: { result: ImportResult; expertId: (ref: string) => number; now: number; onRecord: () => void },
) {
  const list = CONTENT_KINDS[kind].table
  const records: Valid<ContentRecords[K]>[] = plan.content[kind]
  for (const { record } of records) {
    const written = await writeItem(trx, orgId, kind, record, write.expertId, write.now)
    write.result[list][written.outcome]++
    write.result.ids[list].push(written.id)
    write.onRecord()
  }
}

/**
 * Writes a validated plan in the caller's transaction through the same services as the API. Throws
 * ImportRejected before writing anything when references do not resolve.
 */
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
    ...byContentTable(counts),
    ids: { experts: [], ...byContentTable(() => []) },
  }
  if (plan.organization) {
    await writeOrganization(trx, orgId, plan.organization.record, now)
    onRecord()
  }
  const fileExperts = new Map<string, number>()
  for (const { record } of plan.experts) {
    const written = await writeExpert(trx, orgId, record, resolution, now)
    fileExperts.set(record.key, written.id)
    result.experts[written.outcome]++
    result.ids.experts.push(written.username)
    onRecord()
  }
  const expertId = (ref: string) => {
    const id = fileExperts.get(ref) ?? resolution.references.get(ref)
    // Unreachable: every reference was resolved before the writes began.
    if (id === undefined) throw new Error(`The expert reference "${ref}" was not resolved.`)
    return id
  }
  for (const kind of CONTENT_KIND_NAMES)
    await writeKind(trx, orgId, kind, plan, { result, expertId, now, onRecord })
  return result
}
