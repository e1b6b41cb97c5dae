import { parseItemData } from '../db/item-data.js'
import type {
  ExpertFacetsTable,
  ExpertRow,
  ExpertSearchTable,
  QuestionSearchTable,
  SearchFacet,
  SpotlightSearchTable,
} from '../db/schema.js'
import type { SectionName } from '../db/sections.js'
import { plainText } from '../validation/html-text.js'
import { interviewLanguagesOf, languageOfTag } from '../validation/media.js'
import { nameKey } from './name-similarity.js'
import { foldForSort, valueKey } from './search-text.js'

/** Profile sections whose element names feed a facet and the `keywords` text. */
const FACET_SECTIONS: Partial<Record<SectionName, { facet: SearchFacet; field: string }>> = {
  topic: { facet: 'topics', field: 'name' },
  industry: { facet: 'industries', field: 'name' },
  category: { facet: 'categories', field: 'name' },
  tag: { facet: 'tags', field: 'tag' },
}

export interface IndexedItem {
  section: SectionName
  data: string
}

function fieldOf(item: IndexedItem, field: string): string {
  const value = parseItemData(item.data)[field]
  return typeof value === 'string' ? value.trim() : ''
}

/**
 * The index row and facet rows of one profile, from the profile and its stored profile items. A staff
 * member gets a row (the staff and employee lists search it) but no facet rows: the facet counts are
 * the expert search's.
 */
export function expertDocument(
  expert: ExpertRow,
  items: IndexedItem[],
): { row: ExpertSearchTable; facets: ExpertFacetsTable[] } {
  const keywords: string[] = []
  const facets = new Map<string, ExpertFacetsTable>()
  const addFacet = (facet: SearchFacet, value: string) => {
    const key = valueKey(value)
    if (key === '' || facets.has(`${facet}\u0000${key}`)) return
    facets.set(`${facet}\u0000${key}`, {
      expert_id: expert.id,
      facet,
      value_key: key,
      value,
      org_id: expert.org_id,
      is_published: expert.is_published,
      is_private: expert.is_private,
    })
  }
  if (expert.location_country) addFacet('countries', expert.location_country.toUpperCase())
  // The media desk's filters (CONTRACT §22): a regional tag counts under its language too, so that `fr` finds `fr-CA`.
  if (expert.media_available === 1) addFacet('media_available', '1')
  for (const tag of interviewLanguagesOf(expert.interview_languages)) {
    addFacet('interview_languages', tag)
    addFacet('interview_languages', languageOfTag(tag))
  }
  let tagline = ''
  let biography = ''
  // Publication titles are searched with the biography's weight (CONTRACT §19: claimed works are found by search).
  const publications: string[] = []
  for (const item of items) {
    const facet = FACET_SECTIONS[item.section]
    if (facet) {
      const value = fieldOf(item, facet.field)
      keywords.push(value)
      addFacet(facet.facet, value)
    } else if (item.section === 'tagline') tagline = fieldOf(item, 'tagline')
    else if (item.section === 'biography') biography = plainText(fieldOf(item, 'biography'))
    else if (item.section === 'article') publications.push(fieldOf(item, 'title'))
  }
  if (publications.length > 0) biography = [biography, ...publications].filter(Boolean).join('\n')
  const row: ExpertSearchTable = {
    expert_id: expert.id,
    org_id: expert.org_id,
    names: `${expert.firstname} ${expert.lastname}`,
    name_key: nameKey(`${expert.firstname} ${expert.lastname}`),
    title: [expert.job_title, expert.company, expert.department ?? ''].join(' ').trim(),
    tagline,
    keywords: keywords.join(' '),
    biography,
    sort_last: foldForSort(expert.lastname),
    sort_first: foldForSort(expert.firstname),
    username: expert.username,
    company_key: valueKey(expert.company),
    is_published: expert.is_published,
    is_private: expert.is_private,
    completeness: new Set(items.map((item) => item.section)).size,
    modified: expert.updated_at,
    type: expert.type,
  }
  return { row, facets: expert.type === 'expert' ? [...facets.values()] : [] }
}

function dateColumns(item: { published_at: number | null; created_at: number }) {
  const sortDate = item.published_at ?? item.created_at
  const date = new Date(sortDate)
  return { sort_date: sortDate, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 }
}

/**
 * A post's index row. Its tags are searched with its text (a search for "climate" finds a post tagged
 * Climate): they are appended to the body, whose weight they share.
 */
export function spotlightDocument(
  post: {
    id: number
    org_id: number
    title: string
    html: string
    published: number
    published_at: number | null
    created_at: number
  },
  tags: readonly string[],
): SpotlightSearchTable {
  return {
    spotlight_id: post.id,
    org_id: post.org_id,
    title: post.title,
    body: [plainText(post.html), ...tags].join('\n'),
    published: post.published,
    ...dateColumns(post),
  }
}

/** An answer as the index takes it: its text, and whether the public may see its expert. */
export interface IndexedAnswer {
  answer: string
  visible: boolean
}

/**
 * A question's index row: the answers of experts the public may not see go apart (`hidden_answers`);
 * its tags are searched with its details, which every audience may search.
 */
export function questionDocument(
  question: {
    id: number
    org_id: number
    question: string
    details: string | null
    published: number
    published_at: number | null
    created_at: number
  },
  answers: IndexedAnswer[],
  tags: readonly string[],
): QuestionSearchTable {
  const text = (visible: boolean) =>
    answers
      .filter((answer) => answer.visible === visible)
      .map((answer) => plainText(answer.answer))
      .join(' ')
  return {
    question_id: question.id,
    org_id: question.org_id,
    question: question.question,
    details: [plainText(question.details ?? ''), ...tags].join('\n'),
    answers: text(true),
    hidden_answers: text(false),
    published: question.published,
    ...dateColumns(question),
  }
}
