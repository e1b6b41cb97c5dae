import type { Random } from './random.js'

/**
 * The research fields of the synthetic organization and their concepts. Each concept has two
 * vocabularies, as real subjects do: the words experts put on their profiles (its `label`, the way an
 * expert writes "heat waves and older people") and the words papers use for the same thing (its
 * `synonyms`, "thermal stress in elderly populations"). The words are made up from Greek-like
 * morphemes, so that no two concepts share a word by accident and no stemmer joins them.
 */

export interface Concept {
  /** OpenAlex-style topic id (`T10017`). */
  topicId: string
  /** MeSH-style descriptor UI (`D006358`). */
  meshUi: string
  /** The profile vocabulary: two words, title case. */
  label: string
  /** The papers' vocabulary: phrases for the same concept that share no word with the label. */
  synonyms: string[]
  /** The MeSH heading: one of the synonyms, title case. */
  meshLabel: string
}

export interface Field {
  name: string
  industry: string
  /** Words of the field's own jargon, found on its experts' profiles and in its papers. */
  words: string[]
  concepts: Concept[]
}

const FIELD_NAMES = [
  'Climate Science',
  'Epidemiology',
  'Cardiology',
  'Neuroscience',
  'Oncology',
  'Immunology',
  'Genetics',
  'Microbiology',
  'Ecology',
  'Oceanography',
  'Geology',
  'Hydrology',
  'Atmospheric Chemistry',
  'Materials Science',
  'Solid State Physics',
  'Astrophysics',
  'Particle Physics',
  'Organic Chemistry',
  'Biochemistry',
  'Pharmacology',
  'Nursing',
  'Public Health',
  'Nutrition',
  'Psychology',
  'Sociology',
  'Economics',
  'Political Science',
  'Linguistics',
  'History',
  'Archaeology',
  'Education',
  'Law',
  'Computer Science',
  'Robotics',
  'Civil Engineering',
  'Electrical Engineering',
  'Agronomy',
  'Veterinary Medicine',
  'Urban Planning',
  'Statistics',
] as const

const INDUSTRIES = [
  'Healthcare',
  'Environmental Services',
  'Higher Education',
  'Government',
  'Energy',
  'Biotechnology',
  'Insurance',
  'Agriculture',
  'Information Technology',
  'Manufacturing',
  'Public Policy',
  'Media',
]

const PREFIXES = [
  'thermo',
  'cardio',
  'neuro',
  'hydro',
  'geo',
  'bio',
  'photo',
  'electro',
  'immuno',
  'cyto',
  'hepato',
  'myo',
  'osteo',
  'dermo',
  'pneumo',
  'nephro',
  'gastro',
  'chrono',
  'litho',
  'aero',
  'pyro',
  'cryo',
  'halo',
  'xeno',
  'endo',
  'exo',
  'meta',
  'poly',
  'mono',
  'iso',
  'micro',
  'macro',
  'nano',
  'proto',
  'astro',
  'socio',
  'psycho',
  'morpho',
  'chemo',
  'tecto',
]
const MIDDLES = ['', 'ki', 'la', 'ro', 'ne', 'ta', 'vi', 'so', 'mi', 'de', 'pa', 'ru', 'lo', 'be', 'ga', 'zo']
const SUFFIXES = [
  'genesis',
  'lysis',
  'metry',
  'plasty',
  'stasis',
  'philia',
  'tropy',
  'kinesis',
  'graphy',
  'nomics',
  'phoresis',
  'scopy',
  'dynamics',
  'sorption',
  'tonia',
  'pathy',
  'trophy',
  'cline',
  'morphism',
  'sphere',
]

const CONCEPTS_PER_FIELD = 10
const WORDS_PER_FIELD = 5

const titleCase = (text: string) => text.replace(/\b[a-z]/g, (letter) => letter.toUpperCase())

/** Made-up words, each used once across the whole vocabulary. */
class WordMaker {
  #used = new Set<string>()
  constructor(private readonly random: Random) {}

  word(): string {
    for (;;) {
      const word = `${this.random.pick(PREFIXES)}${this.random.pick(MIDDLES)}${this.random.pick(SUFFIXES)}`
      if (this.#used.has(word)) continue
      this.#used.add(word)
      return word
    }
  }

  phrase(words: number): string {
    return Array.from({ length: words }, () => this.word()).join(' ')
  }
}

/** The ~40 fields, their jargon and concepts; ids are numbered in field order. */
export function makeFields(random: Random): Field[] {
  const words = new WordMaker(random)
  let conceptNumber = 0
  return FIELD_NAMES.map((name, index) => ({
    name,
    industry: INDUSTRIES[index % INDUSTRIES.length] ?? 'Higher Education',
    words: Array.from({ length: WORDS_PER_FIELD }, () => words.word()),
    concepts: Array.from({ length: CONCEPTS_PER_FIELD }, () => {
      conceptNumber++
      const synonyms = Array.from({ length: 3 }, () => words.phrase(random.int(1, 2)))
      return {
        topicId: `T${10_000 + conceptNumber * 7}`,
        meshUi: `D${String(1000 + conceptNumber * 13).padStart(6, '0')}`,
        label: titleCase(words.phrase(2)),
        synonyms,
        meshLabel: titleCase(random.pick(synonyms)),
      }
    }),
  }))
}

/** Common words of scientific prose: every abstract has them, so they tell nothing apart. */
export const FILLER = {
  openings: ['Background:', 'Objective:', 'Purpose:', 'Introduction:'],
  designs: [
    'a prospective cohort',
    'a randomised trial',
    'a cross-sectional survey',
    'a longitudinal panel',
    'a multi-site study',
    'a retrospective analysis',
  ],
  measures: ['measured', 'assessed', 'quantified', 'estimated', 'modelled', 'characterised'],
  links: ['was associated with', 'predicted', 'moderated', 'was linked to', 'increased', 'reduced'],
  closings: [
    'These findings suggest',
    'Our results indicate',
    'Taken together, the data show',
    'This evidence implies',
  ],
}
