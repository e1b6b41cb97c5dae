/**
 * Finding by meaning at scale (`npm run bench`, docs/performance.md): an organization of 10,000 or
 * 100,000 experts made of blocks of the similarity evaluation's synthetic organization
 * (bench/similarity/generate.ts, a seed per block of 1,000 experts: each block has its own fields,
 * concepts and words, as a large organization has more subjects than a small one, and blocks share
 * words by chance), written in large batched inserts (experts, their profile sections, their works and
 * claims), then the meaning rows derived by the production rebuild (src/derived/meaning/). The
 * measurement sends similar experts and 2,000-character texts one at a time: p50, p99 and the app's CPU
 * time per request, bounded in requests and in seconds. With `--meaning-reuse` the database is kept and
 * a later run finds the organization by its name (keptMeaningDataset): the blocks are generated again
 * from their seeds, without writing, for the usernames and texts they give.
 */
import type { Insertable, Kysely } from 'kysely'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import type { DB } from '../src/db/schema.js'
import type { SectionName } from '../src/db/sections.js'
import { rebuildMeaning } from '../src/derived/meaning/maintenance.js'
import { rebuildSearchIndex } from '../src/derived/search-maintenance.js'
import { createOrganization } from '../src/organizations/repository.js'
import { fieldsOf, serializeWorkFields } from '../src/works/fields.js'
import { familyName, titleFingerprint } from '../src/works/normalize.js'
import { generateOrganization, type SyntheticOrganization } from './similarity/generate.js'
import { sourceWorkOf } from './similarity/load.js'

const BLOCK = 1000
/** Characters of each pasted text: held-out abstracts of one block run together, cut at a word. */
export const TEXT_CHARACTERS = 2000

export interface MeaningDataset {
  orgId: number
  client: IssuedClient
  experts: number
  works: number
  /** Experts whose similar experts are asked for, spread over the blocks. */
  usernames: string[]
  /** Texts of TEXT_CHARACTERS characters for the match route. */
  texts: string[]
  seconds: number
}

/** Inserts `rows` in statements of at most 30,000 values (under both databases' parameter limits). */
async function insertBatched<R extends object>(
  rows: R[],
  insert: (batch: R[]) => Promise<unknown>,
): Promise<void> {
  const first = rows[0]
  if (first === undefined) return
  const size = Math.floor(30_000 / Object.keys(first).length)
  for (let start = 0; start < rows.length; start += size) await insert(rows.slice(start, start + size))
}

async function nextId(db: Kysely<DB>, table: 'experts' | 'works'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst()
  return Number(row?.max ?? 0) + 1
}

function textOf(abstracts: string[]): string {
  const joined = abstracts.join(' ')
  const cut = joined.slice(0, TEXT_CHARACTERS)
  return cut.length < TEXT_CHARACTERS ? cut : cut.slice(0, cut.lastIndexOf(' '))
}

const organizationName = (count: number) => `Meaning Bench ${count}`
const blockOf = (count: number, block: number) =>
  generateOrganization({ seed: 41 + block, experts: Math.min(BLOCK, count - block * BLOCK), queries: 10 })
const usernameOf = (block: number, index: number) => `meaning-${block}-${index}`

/**
 * The experts asked about and the texts sent, taken from one block: the same whether the block is
 * written or only generated again (keptMeaningDataset).
 */
function sampleBlock(
  organization: SyntheticOrganization,
  block: number,
  usernames: string[],
  texts: string[],
): void {
  usernames.push(...organization.heldOut.slice(0, 5).map(({ expert }) => usernameOf(block, expert)))
  const abstracts = organization.heldOut.map(({ work }) => work.abstract)
  for (let i = 0; i + 1 < abstracts.length && texts.length < 100; i += 2)
    texts.push(textOf(abstracts.slice(i, i + 3)))
}

/**
 * The organization of `count` experts that an earlier run built in this database (`--meaning-reuse`),
 * or undefined when there is none. Its usernames and texts are generated again from the blocks' seeds
 * (nothing is written but a new API client: the first run's secret is not kept). An organization whose
 * building was cut short (no meaning statistics: they are written last, in one transaction) is an error.
 */
export async function keptMeaningDataset(
  db: Kysely<DB>,
  count: number,
  now: number,
): Promise<MeaningDataset | undefined> {
  const started = performance.now()
  const org = await db
    .selectFrom('organizations')
    .leftJoin('meaning_stats', 'meaning_stats.org_id', 'organizations.id')
    .select(['organizations.id', 'meaning_stats.documents'])
    .where('organizations.name', '=', organizationName(count))
    .orderBy('organizations.id', 'desc')
    .executeTakeFirst()
  if (!org) return undefined
  if (org.documents === null)
    throw new Error(
      `organization ${org.id} (${organizationName(count)}) was not completely built: remove the database and build again`,
    )
  const client = await createClient(db, org.id, 'bench', now)
  const usernames: string[] = []
  const texts: string[] = []
  let works = 0
  for (let block = 0; block * BLOCK < count; block++) {
    const organization = blockOf(count, block)
    works += organization.works.length
    sampleBlock(organization, block, usernames, texts)
  }
  return {
    orgId: Number(org.id),
    client,
    experts: count,
    works,
    usernames,
    texts,
    seconds: (performance.now() - started) / 1000,
  }
}

/** `count` experts (a multiple of 1,000, or fewer) with works and claims, and their meaning rows. */
export async function buildMeaningDataset(
  db: Kysely<DB>,
  count: number,
  now: number,
): Promise<MeaningDataset> {
  const started = performance.now()
  const org = await createOrganization(db, { name: organizationName(count) }, now)
  const client = await createClient(db, org.id, 'bench', now)
  const usernames: string[] = []
  const texts: string[] = []
  let works = 0
  for (let block = 0; block * BLOCK < count; block++) {
    const organization = blockOf(count, block)
    await db.transaction().execute(async (trx) => {
      const firstExpert = await nextId(trx, 'experts')
      const name = (index: number) => usernameOf(block, index)
      const experts: Insertable<DB['experts']>[] = []
      const names: Insertable<DB['usernames']>[] = []
      const items: Insertable<DB['profile_items']>[] = []
      for (const expert of organization.experts) {
        const username = name(expert.index)
        names.push({ org_id: org.id, username, created_at: now })
        experts.push({
          id: firstExpert + expert.index,
          org_id: org.id,
          username,
          firstname: expert.firstname,
          lastname: expert.lastname,
          job_title: expert.jobTitle,
          email: expert.email.replace('@', `.${block}@`),
          email_key: expert.email.replace('@', `.${block}@`),
          company: 'Bench University',
          department: organization.fields[expert.fields[0] ?? 0]?.name ?? '',
          phone_number: null,
          phone_number_extension: null,
          location_city: null,
          location_state: null,
          location_country: null,
          location_postal: null,
          location_address: null,
          location_building: null,
          location_room: null,
          is_published: 1,
          is_private: 0,
          created_at: now,
          updated_at: now,
        })
        const sections: [SectionName, Record<string, unknown>][] = [
          ...expert.topics.map((topic): [SectionName, Record<string, unknown>] => [
            'topic',
            { name: topic.label },
          ]),
          ...expert.industries.map((industry): [SectionName, Record<string, unknown>] => [
            'industry',
            { name: industry },
          ]),
          ...expert.tags.map((tag): [SectionName, Record<string, unknown>] => ['tag', { tag }]),
          ['tagline', { tagline: expert.tagline }],
          ['biography', { biography: `<p>${expert.biography}</p>` }],
        ]
        sections.forEach(([section, data], position) => {
          items.push({
            expert_id: firstExpert + expert.index,
            org_id: org.id,
            section,
            position,
            external_key: `#${position}`,
            data: JSON.stringify(data),
          })
        })
      }
      await insertBatched(names, (batch) => trx.insertInto('usernames').values(batch).execute())
      await insertBatched(experts, (batch) => trx.insertInto('experts').values(batch).execute())
      await insertBatched(items, (batch) => trx.insertInto('profile_items').values(batch).execute())

      const firstWork = await nextId(trx, 'works')
      const workRows: Insertable<DB['works']>[] = []
      const claims: Insertable<DB['work_candidates']>[] = []
      for (const [position, work] of organization.works.entries()) {
        const fields = fieldsOf(sourceWorkOf(organization, work))
        workRows.push({
          id: firstWork + position,
          org_id: org.id,
          doi_norm: `10.5555/bench.${block}.${work.index}`,
          pmid: null,
          openalex_id: null,
          orcid_putcodes: '[]',
          fields: serializeWorkFields(fields),
          title_fingerprint: titleFingerprint(fields.title?.value) ?? null,
          year: work.year,
          first_author: familyName(fields.authors?.value[0]) ?? null,
          needs_lookup: 0,
          created_at: now,
          updated_at: now,
        })
        for (const author of work.authors)
          claims.push({
            org_id: org.id,
            expert_id: firstExpert + author,
            work_id: firstWork + position,
            state: 'claimed',
            reason: 'orcid_record',
            score: 1,
            first_seen: now,
            decided_by: null,
            decided_at: null,
            note: null,
          })
      }
      await insertBatched(workRows, (batch) => trx.insertInto('works').values(batch).execute())
      await insertBatched(claims, (batch) => trx.insertInto('work_candidates').values(batch).execute())
      works += workRows.length
      sampleBlock(organization, block, usernames, texts)
    })
  }
  await db.transaction().execute(async (trx) => {
    await rebuildSearchIndex(trx, org.id)
    await rebuildMeaning(trx, org.id, now)
  })
  return {
    orgId: org.id,
    client,
    experts: count,
    works,
    usernames,
    texts,
    seconds: (performance.now() - started) / 1000,
  }
}

export interface Latency {
  requests: number
  p50: number
  p99: number
  /** The app's CPU time (user + system) per request, in milliseconds; undefined without /proc. */
  cpuMsPerRequest: number | undefined
}

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0

const round = (value: number) => Math.round(value * 10) / 10

/**
 * Sends `request(i)` one at a time, after `warmup` unmeasured ones, until `maxRequests` were measured or
 * `seconds` passed (at least 10 requests): service time, no queueing.
 */
export async function measureSequential(
  request: (i: number) => Promise<number>,
  {
    maxRequests,
    seconds,
    warmup,
    cpuSeconds,
  }: {
    maxRequests: number
    seconds: number
    warmup: number
    cpuSeconds: () => number | undefined
  },
): Promise<Latency> {
  for (let i = 0; i < warmup; i++) await request(i)
  const times: number[] = []
  const cpuBefore = cpuSeconds()
  const deadline = performance.now() + seconds * 1000
  for (let i = 0; i < maxRequests && (times.length < 10 || performance.now() < deadline); i++) {
    const started = performance.now()
    const status = await request(warmup + i)
    times.push(performance.now() - started)
    if (status !== 200) throw new Error(`meaning request ${i}: status ${status}`)
  }
  const cpuAfter = cpuSeconds()
  times.sort((a, b) => a - b)
  return {
    requests: times.length,
    p50: round(percentile(times, 0.5)),
    p99: round(percentile(times, 0.99)),
    cpuMsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : round(((cpuAfter - cpuBefore) * 1000) / times.length),
  }
}
