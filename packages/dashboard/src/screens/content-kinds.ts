import { CONTENT_SCHEMAS, type ContentSchema } from '../schemas.ts'

/** Posts ("spotlight") and Q&A items share one list screen and one editor; this says how they differ. */
export interface ContentKind {
  kind: 'post' | 'question'
  /** The API's path segment: /v2/spotlight or /v2/qanda. */
  segment: 'spotlight' | 'qanda'
  /** The dashboard's route. */
  route: '/posts' | '/questions'
  heading: string
  singular: string
  /** The field that names an item in lists. */
  titleField: 'title' | 'question'
  schema: ContentSchema
}

export const POSTS: ContentKind = {
  kind: 'post',
  segment: 'spotlight',
  route: '/posts',
  heading: 'Posts',
  singular: 'post',
  titleField: 'title',
  schema: CONTENT_SCHEMAS.post,
}

export const QUESTIONS: ContentKind = {
  kind: 'question',
  segment: 'qanda',
  route: '/questions',
  heading: 'Q&A',
  singular: 'question',
  titleField: 'question',
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
