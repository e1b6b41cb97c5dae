/**
 * The two content kinds, posts (`spotlight`) and Q&A items (`question`), as stored: per kind its table,
 * its tag links, its search index table and the table linking it to the experts it shows. Here, below
 * every feature, so that derived state, search and the content features name a kind with one key; what
 * the API, the import and the dashboard add per kind is in src/content/kinds.ts, built over this table.
 */
export const CONTENT_KINDS = {
  spotlight: {
    table: 'spotlights',
    taggings: 'spotlight_tags',
    search: { table: 'spotlight_search', key: 'spotlight_id' },
    /** The experts a post tags. */
    people: { table: 'spotlight_experts', owner: 'spotlight_id' },
    noun: 'Post',
  },
  question: {
    table: 'questions',
    taggings: 'question_tags',
    search: { table: 'question_search', key: 'question_id' },
    /** The experts who answered a question. */
    people: { table: 'answers', owner: 'question_id' },
    noun: 'Question',
  },
} as const

/** A content kind: also its read document's kind, its audit record's kind and its import record's type. */
export type ContentKind = keyof typeof CONTENT_KINDS

/** Every content kind, in the order the API and the import list them. */
export const CONTENT_KIND_NAMES: readonly ContentKind[] = ['spotlight', 'question']

/** The content tables: posts (`spotlights`) and Q&A items (`questions`). */
export type ContentTable = (typeof CONTENT_KINDS)[ContentKind]['table']
/** The tag links of posts (`spotlight_tags`) and Q&A items (`question_tags`). */
export type TaggingTable = (typeof CONTENT_KINDS)[ContentKind]['taggings']

export function isContentKind(name: string): name is ContentKind {
  return CONTENT_KIND_NAMES.some((kind) => kind === name)
}

/** One value per content kind, made by `make`: the compiler checks that no kind is left out. */
export function byContentKind<T>(make: (kind: ContentKind) => T): Record<ContentKind, T> {
  return { spotlight: make('spotlight'), question: make('question') }
}

/** One value per content table (`spotlights`, `questions`: the import's lists and counts), made by `make`. */
export function byContentTable<T>(make: (kind: ContentKind) => T): Record<ContentTable, T> {
  return {
    [CONTENT_KINDS.spotlight.table]: make('spotlight'),
    [CONTENT_KINDS.question.table]: make('question'),
  }
}
