import type { Transaction } from 'kysely'
import type { AuditTrail } from '../audit/actor.js'
import { type ItemWrite, replaceAnswers, saveItem } from '../content/publishing.js'
import { findContentByKey } from '../content/repository.js'
import { itemSnapshot } from '../content/snapshot.js'
import { CONTENT_KIND_NAMES, CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import type { DB, ExpertRow } from '../db/schema.js'
import { analyzeWrittenTables } from '../db/statistics.js'
import { PROFILE_DERIVED_TABLES, profileChanged } from '../derived/changes.js'
import { changeAccount, createAccounts, usernameAssigner } from '../experts/account.js'
import { accountElement } from '../experts/account-shape.js'
import { findExpertIds, findExpertsByEmail, findExpertsForWrite } from '../experts/repository.js'
import type { UsernameAssigner } from '../experts/username.js'
import { ITEM_PART, recordVersion, recordVersions } from '../history/versions.js'
import { setOrganizationProfile } from '../profiles/organization.js'
import { listSectionItemsOfExperts, ORGANIZATION_PROFILE_COLUMNS } from '../profiles/repository.js'
import { isStoredSection, type StoredSection } from '../profiles/section-fields.js'
import { elementOf, replaceSectionsOfExperts } from '../profiles/sections.js'
import type { ImportIssue } from './format.js'
import type { PreparedPhoto } from './photos.js'
import { findImportKeys, findImportKeysOfExperts, linkImportKeys } from './repository.js'
import type {
  CheckedRecord,
  ExpertRecord,
  OrganizationRecord,
  QuestionRecord,
  SpotlightRecord,
} from './validate.js'

type Trx = Transaction<DB>

interface ContentRecords {
  spotlight: SpotlightRecord
  question: QuestionRecord
}

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

/** When an import writes and through whom: its versions name the import's trail. */
interface Written {
  now: number
  trail: AuditTrail
}

const counts = (): ImportCounts => ({ created: 0, updated: 0, unchanged: 0 })

function outcomeOf(created: boolean, changed: boolean): keyof ImportCounts {
  return created ? 'created' : changed ? 'updated' : 'unchanged'
}

/** What the checking pass keeps of a file: enough to resolve it against the database, not its records. */
export interface FileSummary {
  /** The file's experts in file order. */
  experts: { position: string; key: string; email: string }[]
  /** The expert references of posts and answers, with where they are. */
  references: { position: string; key: string; field: string; ref: string }[]
  organization: boolean
  spotlights: number
  questions: number
}

export const emptySummary = (): FileSummary => ({
  experts: [],
  references: [],
  organization: false,
  spotlights: 0,
  questions: 0,
})

/** Adds a checked record to the summary. */
export function summarize(summary: FileSummary, checked: CheckedRecord): void {
  const { position } = checked.valid
  if (checked.kind === 'organization') summary.organization = true
  else if (checked.kind === 'expert')
    summary.experts.push({ position, key: checked.valid.record.key, email: checked.valid.record.email })
  else if (checked.kind === 'spotlight') {
    summary.spotlights++
    const { key, experts } = checked.valid.record
    ;(experts ?? []).forEach((ref, i) => {
      summary.references.push({ position, key, field: `experts[${i}]`, ref })
    })
  } else {
    summary.questions++
    const { key, answers } = checked.valid.record
    ;(answers ?? []).forEach((answer, i) => {
      summary.references.push({ position, key, field: `answers[${i}].expert`, ref: answer.expert })
    })
  }
}

/** Who the file's experts are in the database, and what its references point at. */
interface Resolution {
  /** File expert key -> existing expert id (by key, or adopted by email). */
  targets: Map<string, number>
  /** Reference (key or username) -> expert id, for references outside the file. */
  references: Map<string, number>
  linkedKeys: Set<string>
}

/** Reads what the file refers to; every problem found is reported together. */
async function resolve(trx: Trx, orgId: number, summary: FileSummary): Promise<Resolution> {
  const issues: ImportIssue[] = []
  const fileKeys = new Set(summary.experts.map((e) => e.key))
  const byKey = await findImportKeys(trx, orgId, [...fileKeys])
  const emailRows = await findExpertsByEmail(
    trx,
    orgId,
    summary.experts.map((e) => e.email.toLowerCase()),
  )
  const byEmail = new Map(emailRows.map((row) => [row.email_key, row]))
  const keyOfExpert = await findImportKeysOfExperts(
    trx,
    orgId,
    emailRows.map((row) => row.id),
  )

  const targets = new Map<string, number>()
  for (const { position, key, email } of summary.experts) {
    const target = byKey.get(key)
    const holder = byEmail.get(email.toLowerCase())
    const conflict = (message: string) => issues.push({ position, key, field: 'email', message })
    if (holder?.type === 'staff') conflict(`is already used by staff member ${holder.username}`)
    else if (target !== undefined) {
      targets.set(key, target)
      if (holder && holder.id !== target) conflict(`is already used by expert ${holder.username}`)
    } else if (holder) {
      const linked = keyOfExpert.get(holder.id)
      if (linked !== undefined && linked !== key)
        conflict(`is already used by expert ${holder.username}, imported with the key ${linked}`)
      else targets.set(key, holder.id)
    }
  }

  const refs = summary.references.map((r) => r.ref).filter((ref) => !fileKeys.has(ref))
  const references = await findImportKeys(trx, orgId, refs)
  for (const [username, id] of await findExpertIds(
    trx,
    orgId,
    refs.filter((ref) => !references.has(ref)),
  ))
    references.set(username, id)
  const unknown =
    'is neither the key of an expert in this file or an earlier import, nor the username of an expert of this organization'
  for (const { position, key, field, ref } of summary.references)
    if (!fileKeys.has(ref) && !references.has(ref)) issues.push({ position, key, field, message: unknown })
  if (issues.length > 0) throw new ImportRejected(issues)
  return { targets, references, linkedKeys: new Set(byKey.keys()) }
}

/** An organization record sets the whole public profile: fields it leaves out are cleared. */
async function writeOrganization(trx: Trx, orgId: number, record: OrganizationRecord, now: number) {
  const values = Object.fromEntries(
    ORGANIZATION_PROFILE_COLUMNS.map((column) => [column, record[column] ?? null]),
  )
  await setOrganizationProfile(trx, orgId, values, now)
}

/** Experts written together: a constant number of statements per batch, whatever the organization's size. */
const EXPERT_BATCH = 500

/** The tables a batch of new experts adds rows to, through the account and section services and the change hub. */
const EXPERT_TABLES = [
  'experts',
  'usernames',
  'expert_import_keys',
  'profile_items',
  ...PROFILE_DERIVED_TABLES,
] as const

/**
 * Whether the tables are analyzed after the `n`th batch that created experts: the 2nd, 4th, 8th...,
 * so the statistics never lag the rows written by more than half (src/db/statistics.ts), for a handful
 * of ANALYZEs in all; an import of one batch (a few people from the dashboard) never pays for one.
 */
const analyzeAfter = (n: number) => n >= 2 && (n & (n - 1)) === 0

/**
 * Writes a batch of experts through the account and section services: new ones created together,
 * stored ones updated where they differ, their sections replaced, and the profile change reported once
 * per batch. Returns each expert's id, username and outcome, in order.
 */
async function writeExperts(
  trx: Trx,
  orgId: number,
  records: readonly ExpertRecord[],
  resolution: Resolution,
  usernames: UsernameAssigner,
  { now, trail }: Written,
) {
  const targetIds = records.flatMap((record) => {
    const id = resolution.targets.get(record.key)
    return id === undefined ? [] : [id]
  })
  const rows = new Map((await findExpertsForWrite(trx, orgId, targetIds)).map((row) => [row.id, row]))
  const storedOf = (record: ExpertRecord) => {
    const id = resolution.targets.get(record.key)
    return id === undefined ? undefined : rows.get(id)
  }
  const accountOf = ({ key: _key, sections: _sections, ...account }: ExpertRecord) => account
  const fresh = records.filter((record) => !storedOf(record))
  const created = await createAccounts(trx, orgId, fresh.map(accountOf), now, usernames)
  const createdOf = new Map(fresh.map((record, i) => [record.key, created[i]]))
  const written: { id: number; username: string; created: boolean; changed: boolean }[] = []
  const accounts: ExpertRow[] = []
  for (const record of records) {
    const stored = storedOf(record)
    if (stored) {
      const after = await changeAccount(trx, orgId, stored, accountOf(record), now)
      if (after) accounts.push(after)
      written.push({ id: stored.id, username: stored.username, created: false, changed: after !== null })
    } else {
      const made = createdOf.get(record.key)
      if (!made) throw new Error(`The expert ${record.key} was not created.`)
      written.push({ ...made, created: true, changed: true })
    }
  }
  await linkImportKeys(
    trx,
    orgId,
    records.flatMap((record, i) => {
      const id = written[i]?.id
      return resolution.linkedKeys.has(record.key) || id === undefined
        ? []
        : [{ key: record.key, expertId: id }]
    }),
  )
  const sectionsChanged = await replaceSectionsOfExperts(
    trx,
    orgId,
    records.flatMap((record, i) => {
      const id = written[i]?.id
      return id === undefined ? [] : [{ expertId: id, sections: record.sections ?? {} }]
    }),
  )
  const accountChanged = written.filter((w) => !w.created && w.changed).map((w) => w.id)
  const otherChanged = written
    .filter((w) => (w.created || sectionsChanged.has(w.id)) && !(!w.created && w.changed))
    .map((w) => w.id)
  if (accountChanged.length > 0) await profileChanged(trx, orgId, accountChanged, now, { account: true })
  if (otherChanged.length > 0) await profileChanged(trx, orgId, otherChanged, now)
  const createdIds = written.filter((w) => w.created).map((w) => w.id)
  accounts.push(...(createdIds.length > 0 ? await findExpertsForWrite(trx, orgId, createdIds) : []))
  await recordImportVersions(trx, orgId, accounts, sectionsChanged, { now, trail })
  return written.map((w) => ({
    id: w.id,
    username: w.username,
    outcome: outcomeOf(w.created, w.changed || sectionsChanged.has(w.id)),
  }))
}

/**
 * The versions of a batch's changes (docs/editorial.md): each changed account as it is now, and each
 * changed section (but the photo, whose files do not outlive it) read back once for the whole batch.
 */
async function recordImportVersions(
  trx: Trx,
  orgId: number,
  accounts: readonly ExpertRow[],
  sectionsChanged: ReadonlyMap<number, ReadonlySet<string>>,
  { now, trail }: Written,
) {
  const changedSections = new Map<number, StoredSection[]>()
  for (const [expertId, names] of sectionsChanged)
    changedSections.set(expertId, [...names].filter(isStoredSection))
  const names = [...new Set([...changedSections.values()].flat())]
  const items = await listSectionItemsOfExperts(trx, orgId, [...changedSections.keys()], names)
  const sectionsOf = new Map<string, Record<string, unknown>[]>()
  for (const item of items) {
    if (!isStoredSection(item.section)) continue
    const key = `${item.expert_id}/${item.section}`
    const elements = sectionsOf.get(key) ?? []
    elements.push(elementOf(item.section, item))
    sectionsOf.set(key, elements)
  }
  await recordVersions(
    trx,
    orgId,
    trail,
    [
      ...accounts.map((row) => ({
        record: { kind: 'profile' as const, id: row.id },
        part: 'account',
        snapshot: accountElement(row),
      })),
      ...[...changedSections].flatMap(([expertId, sections]) =>
        sections.map((section) => ({
          record: { kind: 'profile' as const, id: expertId },
          part: section,
          snapshot: { [section]: sectionsOf.get(`${expertId}/${section}`) ?? [] },
        })),
      ),
    ],
    now,
  )
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
  { now, trail }: Written,
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
  if (saved.changed) {
    const snapshot = await itemSnapshot(trx, orgId, kind, saved.id)
    const version = { record: { kind, id: saved.id }, part: ITEM_PART, snapshot }
    if (snapshot) await recordVersion(trx, orgId, trail, version, now)
  }
  return { id: saved.id, outcome: outcomeOf(!existing, saved.changed || afterChanged) }
}

/** A checked record as its kind's record, or undefined when it is of another kind. */
const RECORD_OF: { [K in ContentKind]: (checked: CheckedRecord) => ContentRecords[K] | undefined } = {
  spotlight: (checked) => (checked.kind === 'spotlight' ? checked.valid.record : undefined),
  question: (checked) => (checked.kind === 'question' ? checked.valid.record : undefined),
}

/** The records of a checked file, read again (each call starts from the beginning). */
export type CheckedRecords = () => AsyncIterable<CheckedRecord>

/**
 * Writes a checked file in the caller's transaction through the same services as the API: first its
 * organization record and experts (in batches), then, reading the records again, its posts and
 * questions (which may name the file's experts). `avatars` replaces the avatar of the experts at
 * those indexes (photos made from files). Throws ImportRejected before writing anything when the
 * file's emails or references conflict with the database.
 */
export async function writeRecords(
  trx: Trx,
  orgId: number,
  summary: FileSummary,
  records: CheckedRecords,
  {
    now,
    trail,
    avatars,
    onRecord,
  }: Written & { avatars: ReadonlyMap<number, PreparedPhoto['avatar']>; onRecord: () => void },
): Promise<ImportResult> {
  const resolution = await resolve(trx, orgId, summary)
  const result: ImportResult = {
    experts: counts(),
    spotlights: counts(),
    questions: counts(),
    ids: { experts: [], spotlights: [], questions: [] },
  }
  const fileExperts = new Map<string, number>()
  const usernames = usernameAssigner(trx, orgId)
  let batch: ExpertRecord[] = []
  let creatingBatches = 0
  const flush = async () => {
    const written = await writeExperts(trx, orgId, batch, resolution, usernames, { now, trail })
    written.forEach(({ id, username, outcome }, i) => {
      fileExperts.set(batch[i]?.key ?? '', id)
      result.experts[outcome]++
      result.ids.experts.push(username)
      onRecord()
    })
    if (written.some((w) => w.outcome === 'created') && analyzeAfter(++creatingBatches))
      await analyzeWrittenTables(trx, EXPERT_TABLES)
    batch = []
  }
  let expertIndex = 0
  for await (const checked of records()) {
    if (checked.kind === 'organization') {
      await writeOrganization(trx, orgId, checked.valid.record, now)
      onRecord()
    } else if (checked.kind === 'expert') {
      const record = checked.valid.record
      const avatar = avatars.get(expertIndex++)
      if (avatar !== undefined && record.sections) record.sections.avatar = avatar
      batch.push(record)
      if (batch.length >= EXPERT_BATCH) await flush()
    }
  }
  if (batch.length > 0) await flush()
  if (summary.spotlights + summary.questions === 0) return result

  const expertId = (ref: string) => {
    const id = fileExperts.get(ref) ?? resolution.references.get(ref)
    // Unreachable: every reference was resolved before the writes began.
    if (id === undefined) throw new Error(`The expert reference "${ref}" was not resolved.`)
    return id
  }
  // Each kind in the table's order (posts before questions, as a JSON file lists them).
  const writeKind = async <K extends ContentKind>(kind: K) => {
    const list = CONTENT_KINDS[kind].table
    for await (const checked of records()) {
      const record = RECORD_OF[kind](checked)
      if (record === undefined) continue
      const written = await writeItem(trx, orgId, kind, record, expertId, { now, trail })
      result[list][written.outcome]++
      result.ids[list].push(written.id)
      onRecord()
    }
  }
  for (const kind of CONTENT_KIND_NAMES) await writeKind(kind)
  return result
}
