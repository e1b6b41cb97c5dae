import { createHash } from 'node:crypto'
import { Random } from './random.js'
import { type Concept, FILLER, type Field, makeFields } from './vocabulary.js'

/**
 * The evaluation's synthetic organization: experts in labs of one research field (some with a second
 * field), each with profile topics, tags, a tagline and a biography in the profile vocabulary, and works
 * written by one to four co-authors, mostly lab mates, whose titles and abstracts use the papers'
 * vocabulary. One work per queried expert is held out: its abstract is a query and it is never loaded.
 * The same seed and sizes give the same organization, byte for byte (`fingerprintOf`).
 */

export interface SyntheticExpert {
  index: number
  /** The import key. */
  key: string
  firstname: string
  lastname: string
  email: string
  orcid: string
  jobTitle: string
  /** Field indexes: the lab's field first. */
  fields: number[]
  lab: number
  /** The profile's topics, in the profile vocabulary (concept labels). */
  topics: Concept[]
  industries: string[]
  tags: string[]
  tagline: string
  biography: string
}

export interface SyntheticWork {
  index: number
  doi: string
  title: string
  abstract: string
  year: number
  /** Expert indexes, first author first. */
  authors: number[]
  field: number
  concepts: Concept[]
}

export interface HeldOut {
  /** The expert the work was held out for. */
  expert: number
  work: SyntheticWork
}

export interface SyntheticOrganization {
  seed: number
  fields: Field[]
  experts: SyntheticExpert[]
  /** The works loaded into the organization. */
  works: SyntheticWork[]
  /** The works held out as queries: never loaded. */
  heldOut: HeldOut[]
}

export interface GenerateOptions {
  seed: number
  experts: number
  /** How many experts get a held-out work (experts with too few works are passed over). */
  queries: number
}

const FIRST_NAMES = [
  'Amara',
  'Hans',
  'Omer',
  'Zoe',
  'Jose',
  'Chloe',
  'Grace',
  'Alan',
  'Rosa',
  'Ada',
  'Marie',
  'Nils',
  'Soren',
  'Aisha',
  'Wei',
  'Yuki',
  'Priya',
  'Lucas',
  'Elena',
  'Mateo',
  'Fatima',
  'Liam',
  'Ines',
  'Kofi',
  'Ngozi',
  'Raj',
  'Sofia',
  'Hugo',
  'Lea',
  'Tomas',
  'Mei',
  'Omar',
]
const SYLLABLES = ['ka', 'ro', 'mi', 'ne', 'sa', 'to', 'lu', 'be', 'da', 'fi', 'go', 'ha', 'je', 'ki', 'lo']
const ENDINGS = ['man', 'son', 'ley', 'ton', 'berg', 'ski', 'ez', 'ini', 'ova', 'ar']
const RANKS = ['Professor', 'Associate Professor', 'Senior Lecturer', 'Research Fellow', 'Lecturer']

const LAB_SIZE = { min: 4, max: 8 }
const SECOND_FIELD_SHARE = 0.3
/** How often an abstract names a concept by its profile label rather than a paper synonym. */
const LABEL_IN_ABSTRACT = 0.03

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** An ORCID iD from fifteen digits, with its ISO 7064 mod 11-2 check digit. */
export function orcidOf(digits: string): string {
  let total = 0
  for (const digit of digits) total = (total + Number(digit)) * 2
  const check = (12 - (total % 11)) % 11
  const all = `${digits}${check === 10 ? 'X' : String(check)}`
  return `${all.slice(0, 4)}-${all.slice(4, 8)}-${all.slice(8, 12)}-${all.slice(12)}`
}

function fieldOf(fields: Field[], index: number): Field {
  const field = fields[index]
  if (!field) throw new Error(`no field ${index}`)
  return field
}

interface Lab {
  field: number
  focus: Concept[]
  members: number[]
}

function makeExperts(
  random: Random,
  fields: Field[],
  count: number,
): { experts: SyntheticExpert[]; labs: Lab[] } {
  const experts: SyntheticExpert[] = []
  const labs: Lab[] = []
  while (experts.length < count) {
    const fieldIndex = random.int(0, fields.length - 1)
    const field = fieldOf(fields, fieldIndex)
    const lab: Lab = { field: fieldIndex, focus: random.sample(field.concepts, 4), members: [] }
    labs.push(lab)
    const size = Math.min(random.int(LAB_SIZE.min, LAB_SIZE.max), count - experts.length)
    for (let member = 0; member < size; member++) {
      const index = experts.length
      const second = random.chance(SECOND_FIELD_SHARE)
        ? (fieldIndex + random.int(1, fields.length - 1)) % fields.length
        : undefined
      const own = random.sample(lab.focus, random.int(2, 3))
      const extra = random.pick(field.concepts)
      if (!own.includes(extra)) own.push(extra)
      const secondTopics =
        second === undefined ? [] : random.sample(fieldOf(fields, second).concepts, random.int(1, 2))
      const topics = [...own, ...secondTopics]
      const firstname = random.pick(FIRST_NAMES)
      const lastname = capitalize(`${random.pick(SYLLABLES)}${random.pick(SYLLABLES)}${random.pick(ENDINGS)}`)
      const jobTitle = `${random.pick(RANKS)} of ${field.name}`
      const labels = topics.map((topic) => topic.label.toLowerCase())
      const [firstLabel = '', secondLabel = ''] = labels
      experts.push({
        index,
        key: `eval-${index}`,
        firstname,
        lastname,
        email: `expert${index}@eval.example`,
        orcid: orcidOf(`0000000300${String(10_000 + index).padStart(5, '0')}`),
        jobTitle,
        fields: second === undefined ? [fieldIndex] : [fieldIndex, second],
        lab: labs.length - 1,
        topics,
        industries: [
          ...new Set([field.industry, ...(second === undefined ? [] : [fieldOf(fields, second).industry])]),
        ],
        tags: random.sample(topics, 2).map((topic) => topic.label),
        tagline: `${jobTitle} working on ${firstLabel} and ${secondLabel}`,
        biography: [
          `${firstname} ${lastname} is a researcher in ${field.name.toLowerCase()}, trained in ${random.pick(field.words)}.`,
          `Their work covers ${labels.join(', ')}.`,
          second === undefined
            ? ''
            : `They also collaborate on ${fieldOf(fields, second).name.toLowerCase()}.`,
        ]
          .filter(Boolean)
          .join(' '),
      })
      lab.members.push(index)
    }
  }
  return { experts, labs }
}

/** A concept as a paper names it: mostly a synonym, now and then the profile label. */
function termFor(random: Random, concept: Concept): string {
  return random.chance(LABEL_IN_ABSTRACT) ? concept.label.toLowerCase() : random.pick(concept.synonyms)
}

function abstractOf(random: Random, field: Field, concepts: Concept[]): string {
  const [a, b = a, c = b] = concepts
  if (!a || !b || !c) throw new Error('a work needs a concept')
  const term = (concept: Concept) => termFor(random, concept)
  const jargon = () => random.pick(field.words)
  const low = random.int(11, 15) / 10
  const sentences = [
    `${random.pick(FILLER.openings)} ${capitalize(term(a))} is a growing concern in ${jargon()} research, yet its relation to ${term(b)} remains unclear.`,
    `We conducted ${random.pick(FILLER.designs)} of ${random.int(40, 4000)} participants to examine how ${term(a)} and ${term(b)} interact over time.`,
    `We ${random.pick(FILLER.measures)} ${term(a)} at baseline and after ${random.int(3, 36)} months, together with ${term(c)} and routine clinical and demographic covariates.`,
    `${capitalize(term(a))} ${random.pick(FILLER.links)} ${term(b)} (odds ratio ${low.toFixed(1)}, 95% confidence interval ${(low - 0.2).toFixed(1)} to ${(low + 0.4).toFixed(1)}).`,
    `The effect was stronger where ${term(c)} was high and persisted after adjustment for ${jargon()} factors, season and site.`,
    `Exposure and outcome definitions followed published ${jargon()} guidelines, and missing values were handled by multiple imputation.`,
    `Secondary analyses of ${term(b)} showed consistent patterns across sites, age groups and measurement protocols.`,
    `We also observed that ${term(c)} ${random.pick(FILLER.links)} ${term(a)} in a subset of ${random.int(12, 300)} cases with complete follow-up.`,
    `Limitations include the observational design, possible residual confounding and the reliance on self-reported measures of ${term(c)}.`,
    `${random.pick(FILLER.closings)} that ${term(a)} should be considered alongside ${term(b)} when planning ${jargon()} interventions and future studies.`,
  ]
  return sentences.join(' ')
}

function titleOf(random: Random, field: Field, concepts: Concept[]): string {
  const [a, b = a] = concepts
  if (!a || !b) throw new Error('a work needs a concept')
  const setting = random.pick(['cohorts', 'populations', 'systems', 'models', 'settings', 'samples'])
  return `${capitalize(termFor(random, a))} and ${termFor(random, b)} in ${random.pick(field.words)} ${setting}`
}

function coauthorsFor(
  random: Random,
  lead: SyntheticExpert,
  field: number,
  experts: SyntheticExpert[],
  labs: Lab[],
): number[] {
  const count = random.pick([0, 1, 1, 2, 2, 3])
  const chosen = new Set<number>([lead.index])
  const lab = labs[lead.lab]
  const sameField = experts.filter((expert) => expert.fields.includes(field))
  for (let tries = 0; chosen.size < count + 1 && tries < 20; tries++) {
    const roll = random.next()
    const pool =
      roll < 0.8 && lab && lab.field === field
        ? lab.members
        : roll < 0.95
          ? sameField.map((e) => e.index)
          : []
    chosen.add(pool.length > 0 ? random.pick(pool) : random.int(0, experts.length - 1))
  }
  return [...chosen]
}

function conceptsFor(random: Random, fields: Field[], lead: SyntheticExpert, field: number): Concept[] {
  const own = lead.topics.filter((topic) => fieldOf(fields, field).concepts.includes(topic))
  const concepts = random.sample(own, random.int(2, 3))
  if (concepts.length < 2 || random.chance(0.25)) {
    const extra = random.pick(fieldOf(fields, field).concepts)
    if (!concepts.includes(extra)) concepts.push(extra)
  }
  return concepts
}

function makeWorks(
  random: Random,
  fields: Field[],
  experts: SyntheticExpert[],
  labs: Lab[],
): SyntheticWork[] {
  const works: SyntheticWork[] = []
  for (const lead of experts) {
    const count = random.int(1, 3)
    for (let n = 0; n < count; n++) {
      const [primary = 0, second] = lead.fields
      const field = second !== undefined && random.chance(0.2) ? second : primary
      const concepts = conceptsFor(random, fields, lead, field)
      const index = works.length
      works.push({
        index,
        doi: `10.5555/eval.${index}`,
        title: titleOf(random, fieldOf(fields, field), concepts),
        abstract: abstractOf(random, fieldOf(fields, field), concepts),
        year: random.int(2012, 2025),
        authors: coauthorsFor(random, lead, field, experts, labs),
        field,
        concepts,
      })
    }
  }
  return works
}

/** One work per queried expert, held out while every author keeps at least one loaded work. */
function holdOut(
  random: Random,
  experts: SyntheticExpert[],
  works: SyntheticWork[],
  queries: number,
): HeldOut[] {
  const loaded = new Map<number, number>()
  for (const work of works)
    for (const author of work.authors) loaded.set(author, (loaded.get(author) ?? 0) + 1)
  const taken = new Set<number>()
  const heldOut: HeldOut[] = []
  for (const expert of random.sample(experts, experts.length)) {
    if (heldOut.length >= queries) break
    if ((loaded.get(expert.index) ?? 0) < 3) continue
    const work = random
      .sample(
        works.filter((w) => w.authors.includes(expert.index)),
        works.length,
      )
      .find((w) => !taken.has(w.index) && w.authors.every((author) => (loaded.get(author) ?? 0) >= 2))
    if (!work) continue
    taken.add(work.index)
    for (const author of work.authors) loaded.set(author, (loaded.get(author) ?? 0) - 1)
    heldOut.push({ expert: expert.index, work })
  }
  return heldOut
}

export function generateOrganization({
  seed,
  experts: count,
  queries,
}: GenerateOptions): SyntheticOrganization {
  const random = new Random(seed)
  const fields = makeFields(random)
  const { experts, labs } = makeExperts(random, fields, count)
  const all = makeWorks(random, fields, experts, labs)
  const heldOut = holdOut(random, experts, all, queries)
  const held = new Set(heldOut.map(({ work }) => work.index))
  return { seed, fields, experts, works: all.filter((work) => !held.has(work.index)), heldOut }
}

/** SHA-256 of the organization as JSON: equal fingerprints, equal organizations. */
export function fingerprintOf(organization: SyntheticOrganization): string {
  return createHash('sha256').update(JSON.stringify(organization)).digest('hex')
}

/** Who co-authored with whom in the loaded works (the ground truth of similar experts). */
export function coauthorsOf(organization: SyntheticOrganization): Map<number, Set<number>> {
  const graph = new Map<number, Set<number>>()
  for (const work of organization.works)
    for (const author of work.authors) {
      const set = graph.get(author) ?? new Set<number>()
      for (const other of work.authors) if (other !== author) set.add(other)
      graph.set(author, set)
    }
  return graph
}
