import { once } from 'node:events'
import { createWriteStream } from 'node:fs'

/**
 * Writes an NDJSON import file of `count` experts (docs/import.md), each with a tagline, a biography
 * and 2 to 4 topics. Names follow a long-tailed distribution, as an HR export of a large
 * organization does: 300 first names and 300 last names, each drawn with weight 1/sqrt(rank), so the
 * most common full name comes up about once in a thousand people. `sameName` gives every expert the
 * same name instead. The file is the same for the same arguments (a seeded generator).
 */
export async function writePeopleFile(
  path: string,
  count: number,
  { sameName = false, seed = 1 }: { sameName?: boolean; seed?: number } = {},
): Promise<void> {
  const random = mulberry32(seed)
  const pickFirst = weightedPicker(FIRST_NAMES, random)
  const pickLast = weightedPicker(LAST_NAMES, random)
  const out = createWriteStream(path)
  for (let i = 1; i <= count; i++) {
    const firstname = sameName ? 'Maria' : pickFirst()
    const lastname = sameName ? 'García' : pickLast()
    const topics = Array.from(
      { length: 2 + Math.floor(random() * 3) },
      (_, t) => TOPICS[(i * 7 + t * 13) % TOPICS.length],
    )
    const record = {
      type: 'expert',
      key: `staff-${i}`,
      firstname,
      lastname,
      job_title: JOB_TITLES[i % JOB_TITLES.length],
      email: `person${i}@org.example`,
      company: 'The Organization',
      is_published: 1,
      sections: {
        tagline: { tagline: `${topics[0]} and ${topics[1]}` },
        biography: {
          biography: `<p>${firstname} ${lastname} works on ${topics.join(', ')}. ${BIOGRAPHY}</p>`,
        },
        topic: [...new Set(topics)].map((name) => ({ name })),
      },
    }
    if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Draws from `names` with weight 1/sqrt(rank). */
function weightedPicker(names: readonly string[], random: () => number): () => string {
  const cumulative: number[] = []
  let sum = 0
  names.forEach((_, rank) => {
    sum += 1 / Math.sqrt(rank + 1)
    cumulative.push(sum)
  })
  return () => {
    const target = random() * sum
    let low = 0
    let high = cumulative.length - 1
    while (low < high) {
      const mid = (low + high) >> 1
      if ((cumulative[mid] ?? 0) < target) low = mid + 1
      else high = mid
    }
    return names[low] ?? ''
  }
}

/** 300 names: common real ones first, then made-up ones built from syllables (some with accents). */
function nameList(real: string[], syllables: string[], endings: string[]): string[] {
  const names = [...real]
  for (const start of syllables)
    for (const end of endings) {
      if (names.length >= 300) return names
      const name = `${start}${end}`
      names.push(name[0]?.toUpperCase() + name.slice(1))
    }
  return names
}

const FIRST_NAMES = nameList(
  'Maria,James,Wei,Fatima,José,Anna,Mohammed,Emma,Chen,Olga,David,Aisha,Lucas,Sofia,Hiroshi,Amara,Ivan,Noor,Zoë,Björn'.split(
    ',',
  ),
  ['al', 'be', 'ca', 'da', 'el', 'fa', 'ga', 'ha', 'ì', 'jo', 'ka', 'le', 'mi', 'no', 'ó'],
  [
    'ra',
    'na',
    'lia',
    'mon',
    'rik',
    'sha',
    'ndro',
    'vin',
    'tte',
    'ko',
    'rin',
    'lo',
    'dy',
    'mé',
    'xi',
    'an',
    'ur',
    'ia',
    'en',
    'is',
  ],
)
const LAST_NAMES = nameList(
  'García,Smith,Wang,Müller,Nwosu,Kowalski,Haddad,Silva,Nguyen,Ivanova,Johnson,Tanaka,Okafor,Rossi,Dubois,Kim,Patel,Andersson,López,Cohen'.split(
    ',',
  ),
  ['ber', 'cas', 'dol', 'fer', 'gut', 'hol', 'jan', 'kar', 'lin', 'mar', 'nør', 'pet', 'ros', 'sch', 'vol'],
  [
    'man',
    'son',
    'ez',
    'ini',
    'berg',
    'ski',
    'ova',
    'stein',
    'ard',
    'ley',
    'ton',
    'ić',
    'sen',
    'well',
    'ides',
    'escu',
    'aki',
    'ian',
    'feld',
    'ers',
  ],
)

const JOB_TITLES = ['Professor', 'Research Fellow', 'Senior Lecturer', 'Engineer', 'Analyst', 'Director']
const TOPICS = [
  'Climate change',
  'Public health',
  'Machine learning',
  'Water policy',
  'Urban planning',
  'Energy markets',
  'Migration',
  'Food security',
  'Cybersecurity',
  'Ancient history',
  'Labour law',
  'Oceanography',
  'Genomics',
  'Education policy',
  'Trade',
  'Astronomy',
  'Public finance',
  'Linguistics',
]
const BIOGRAPHY =
  'Before joining the organization they led research groups abroad, advised public bodies and taught graduate courses. Their work is cited in policy reports and they speak regularly to the press.'
