import { CONTENT_KIND_WORDS, CONTENT_SCHEMAS, type ContentKindWords, type ContentSchema } from '../schemas.ts'

/**
 * Posts ("spotlight") and Q&A items share one list screen and one editor; this says how they differ.
 * The path word and the words come from the server's table of content kinds (generated).
 */
export interface ContentKind extends ContentKindWords {
  kind: 'post' | 'question'
  /** The dashboard's route. */
  route: '/posts' | '/questions'
  schema: ContentSchema
}

export const POSTS: ContentKind = {
  ...CONTENT_KIND_WORDS.spotlight,
  kind: 'post',
  route: '/posts',
  schema: CONTENT_SCHEMAS.post,
}

export const QUESTIONS: ContentKind = {
  ...CONTENT_KIND_WORDS.question,
  kind: 'question',
  route: '/questions',
  schema: CONTENT_SCHEMAS.question,
}

/** One row of a list, whichever the kind. */
export interface ContentRow {
  id: number
  title: string
  published: number
  published_date: number | null
  tags: readonly string[]
  /** Tagged experts of a post, answering experts of a question. */
  people: readonly string[]
}

/** One item as the editor shows it. */
export interface ContentItem {
  element: Record<string, unknown>
  tags: readonly string[]
  /** A post's tagged experts (usernames). */
  tagged: readonly string[]
  answers: readonly Answer[]
  /** The page metadata as pages get it: the author's values, and fallbacks where none is set. */
  seo: Record<string, unknown>
}

/** A type, not an interface: an element a generated form reads. */
export type Answer = {
  id: number
  username: string
  firstname: string
  lastname: string
  answer: string
}
