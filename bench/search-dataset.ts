/**
 * The search benchmark's dataset: experts with varied names, job titles, taglines, biographies,
 * topics, industries, categories, tags and countries (the demo clones of bench/dataset.ts all carry
 * the same name, which would make search meaningless). Only the sections search reads are written.
 * Deterministic: the same size gives the same data.
 */
import type { Insertable, Kysely } from 'kysely'
import { createClient, type IssuedClient } from '../src/auth/clients.js'
import type { DB } from '../src/db/schema.js'
import type { SectionName } from '../src/db/sections.js'
import { rebuildSearchIndex } from '../src/derived/search-maintenance.js'
import { createOrganization } from '../src/organizations/repository.js'

/** A profile item to store: its section and its element. */
type Section = [SectionName, Record<string, unknown>]

const FIRST = [
  'Amara',
  'Hans',
  'Ömer',
  'Zoë',
  'José',
  'Chloé',
  'Grace',
  'Alan',
  'Rosa',
  'Ada',
  'Marie',
  'Nils',
  'Søren',
  'Aisha',
  'Wei',
  'Yuki',
  'Priya',
  'Lucas',
  'Elena',
  'Mateo',
  'Fatima',
  'Liam',
  'Noah',
  'Emma',
  'Olivia',
  'Ines',
  'Björn',
  'Kofi',
  'Ngozi',
  'Raj',
  'Sofia',
  'Hugo',
  'Léa',
  'Jan',
  'Anna',
  'Tomás',
  'Mei',
  'Omar',
]
const SYLLABLES = [
  'ka',
  'ro',
  'mi',
  'ne',
  'sa',
  'to',
  'lu',
  'be',
  'da',
  'fi',
  'go',
  'ha',
  'je',
  'ki',
  'lo',
  'mu',
  'ni',
  'pa',
  're',
  'si',
  'tu',
  'va',
  'we',
  'zo',
  'ber',
  'man',
  'son',
  'sky',
  'ley',
  'ton',
]
const DISCIPLINES = [
  'Chemistry',
  'Physics',
  'Biology',
  'History',
  'Economics',
  'Linguistics',
  'Geology',
  'Astronomy',
  'Psychology',
  'Sociology',
  'Philosophy',
  'Mathematics',
  'Medicine',
  'Nursing',
  'Law',
  'Engineering',
  'Architecture',
  'Music',
  'Climatology',
  'Oceanography',
  'Neuroscience',
  'Genetics',
  'Statistics',
  'Anthropology',
  'Archaeology',
  'Epidemiology',
  'Robotics',
  'Ecology',
  'Education',
  'Journalism',
]
const ASPECTS = ['Policy', 'Theory', 'Methods', 'History', 'Ethics', 'Applications', 'Data']
const INDUSTRIES = [
  'Higher Education',
  'Healthcare',
  'Energy',
  'Finance',
  'Technology',
  'Government',
  'Media',
  'Agriculture',
  'Transportation',
  'Manufacturing',
  'Retail',
  'Tourism',
  'Defence',
  'Mining',
  'Telecommunications',
  'Pharmaceuticals',
  'Insurance',
  'Construction',
  'Non-profit',
  'Law',
]
const CATEGORIES = [
  'Faculty',
  'Researcher',
  'Clinician',
  'Administrator',
  'Alumni',
  'Postdoc',
  'Staff',
  'Emeritus',
]
const COUNTRIES = [
  'CA',
  'US',
  'GB',
  'DE',
  'FR',
  'NG',
  'IN',
  'JP',
  'BR',
  'AU',
  'ZA',
  'MX',
  'SE',
  'TR',
  'KE',
  'CN',
]
const TITLES = [
  'Professor',
  'Associate Professor',
  'Assistant Professor',
  'Lecturer',
  'Research Fellow',
  'Director',
]
const VOCABULARY = [
  'research',
  'studies',
  'teaches',
  'leads',
  'laboratory',
  'team',
  'climate',
  'policy',
  'health',
  'data',
  'models',
  'field',
  'work',
  'communities',
  'public',
  'understanding',
  'change',
  'systems',
  'history',
  'evidence',
  'methods',
  'international',
  'collaboration',
  'students',
  'published',
  'articles',
  'journals',
  'award',
  'grant',
  'national',
  'projects',
  'impact',
  'society',
  'innovation',
  'analysis',
  'media',
  'interviews',
  'expertise',
  'regional',
  'global',
  'rural',
  'urban',
  'water',
  'energy',
  'food',
  'security',
  'markets',
  'language',
  'culture',
  'memory',
  'justice',
  'technology',
  'learning',
  'machines',
  'ocean',
]

/** A small deterministic generator (mulberry32), so every run builds the same dataset. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const TOPICS = DISCIPLINES.flatMap((discipline) => ASPECTS.map((aspect) => `${discipline} ${aspect}`))
const TAGS = Array.from({ length: 100 }, (_, i) => `tag-${SYLLABLES[i % SYLLABLES.length]}${i}`)

export interface SearchDataset {
  orgId: number
  client: IssuedClient
  experts: number
  /** Surnames that exist, for the surname query. */
  surnames: string[]
  disciplines: string[]
  /** Facet values that exist, for the three-filter query. */
  filters: { countries: string[]; topics: string[]; industries: string[] }
  seconds: number
}

async function insertBatched<T extends 'experts' | 'usernames' | 'profile_items'>(
  db: Kysely<DB>,
  table: T,
  rows: Insertable<DB[T]>[],
): Promise<void> {
  if (rows.length === 0) return
  const size = Math.floor(30_000 / Object.keys(rows[0] as object).length)
  for (let start = 0; start < rows.length; start += size)
    await db
      .insertInto(table)
      .values(rows.slice(start, start + size) as never)
      .execute()
}

/** `count` experts in a new organization, then the organization's search index built in batches. */
export async function buildSearchDataset(db: Kysely<DB>, count: number, now: number): Promise<SearchDataset> {
  const started = performance.now()
  const org = await createOrganization(db, { name: `Search Bench ${count}` }, now)
  const client = await createClient(db, org.id, 'bench', now)
  const next = random(count)
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T
  const surname = () => {
    const length = 2 + Math.floor(next() * 2)
    const word = Array.from({ length }, () => pick(SYLLABLES)).join('')
    return word[0]?.toUpperCase() + word.slice(1)
  }
  const surnames: string[] = []
  const chunk = 5000
  for (let from = 0; from < count; from += chunk) {
    const experts: Insertable<DB['experts']>[] = []
    const usernames: Insertable<DB['usernames']>[] = []
    const items: Insertable<DB['profile_items']>[] = []
    const ids: number[] = []
    for (let i = from; i < Math.min(count, from + chunk); i++) {
      const username = `search-${org.id}-${i + 1}`
      const email = `${username}@bench.example`
      const firstname = pick(FIRST)
      const lastname = surname()
      if (surnames.length < 200 && i % 7 === 0) surnames.push(lastname)
      const discipline = pick(DISCIPLINES)
      usernames.push({ org_id: org.id, username, created_at: now })
      experts.push({
        org_id: org.id,
        username,
        firstname,
        lastname,
        job_title: `${pick(TITLES)} of ${discipline}`,
        email,
        email_key: email,
        company: `University of ${pick(SYLLABLES)}${pick(SYLLABLES)}`,
        department: `Department of ${discipline}`,
        phone_number: null,
        phone_number_extension: null,
        location_city: null,
        location_state: null,
        location_country: pick(COUNTRIES),
        location_postal: null,
        location_address: null,
        location_building: null,
        location_room: null,
        is_published: next() < 0.9 ? 1 : 0,
        is_private: next() < 0.05 ? 1 : 0,
        created_at: now,
        updated_at: now - Math.floor(next() * 1e9),
      })
      ids.push(i)
      const topics = [`${discipline} ${pick(ASPECTS)}`, pick(TOPICS), pick(TOPICS)]
      const biography = Array.from({ length: 40 + Math.floor(next() * 40) }, () => pick(VOCABULARY)).join(' ')
      const sections: Section[] = [
        ['tagline', { tagline: `${discipline} expert on ${pick(VOCABULARY)} and ${pick(VOCABULARY)}` }],
        ['biography', { biography: `<p>${firstname} ${lastname} ${biography}.</p>` }],
        ...[...new Set(topics)].map((name): Section => ['topic', { name }]),
        ['industry', { name: pick(INDUSTRIES) }],
        ...(next() < 0.5 ? [['industry', { name: pick(INDUSTRIES) }] as Section] : []),
        ['category', { name: pick(CATEGORIES) }],
        ['tag', { tag: pick(TAGS) }],
        ['tag', { tag: pick(TAGS) }],
      ]
      sections.forEach(([section, data], position) => {
        items.push({
          expert_id: 0,
          org_id: org.id,
          section,
          position,
          external_key: `#${position}`,
          data: JSON.stringify(data),
        })
      })
    }
    await db.transaction().execute(async (trx) => {
      await insertBatched(trx as unknown as Kysely<DB>, 'usernames', usernames)
      const inserted = await trx
        .selectFrom('experts')
        .select((eb) => eb.fn.max('id').as('max'))
        .executeTakeFirst()
      const firstId = Number(inserted?.max ?? 0) + 1
      await insertBatched(
        trx as unknown as Kysely<DB>,
        'experts',
        experts.map((expert, i) => ({ ...expert, id: firstId + i })),
      )
      // Items were numbered per expert of this chunk; map them to the ids just given.
      let expertIndex = -1
      await insertBatched(
        trx as unknown as Kysely<DB>,
        'profile_items',
        items.map((item) => {
          if (item.position === 0) expertIndex++
          return { ...item, expert_id: firstId + expertIndex }
        }),
      )
    })
  }
  await db.transaction().execute((trx) => rebuildSearchIndex(trx, org.id))
  return {
    orgId: org.id,
    client,
    experts: count,
    surnames,
    disciplines: DISCIPLINES,
    filters: { countries: COUNTRIES, topics: TOPICS, industries: INDUSTRIES },
    seconds: (performance.now() - started) / 1000,
  }
}
