import type { Static } from 'typebox'
import { CONTENT_KINDS, type ContentKind } from '../db/content-kinds.js'
import {
  PostCreate,
  PostUpdate,
  QuestionCreate,
  QuestionParams,
  QuestionRead,
  QuestionUpdate,
  SpotlightParams,
  SpotlightRead,
} from './schemas.js'

/**
 * The content kinds as the API, the services and the dashboard see them: per kind, its path word
 * (`/v2/<path>/:corporation`), its path parameters, its write and read schemas, its operations and the
 * words people read. Built over src/db/content-kinds.ts, which holds the kinds and their storage; the
 * routes, the services, the import, the directory, the MCP tools and the dashboard's generated schemas
 * read this table instead of naming the kinds themselves.
 */

interface Operation {
  operationId: string
  summary: string
}

export interface ContentKindSpec {
  /** The API's path word: `/v2/<path>/:corporation/:id`, the directory's `/<path>/:id`. */
  path: string
  /** How a message names one ("Post 12 not found"). */
  noun: string
  /** The dashboard's words: its list heading, one item, the field that names an item, who an item shows. */
  labels: { heading: string; singular: string; plural: string; titleField: string; people: string }
  params: typeof SpotlightParams | typeof QuestionParams
  read: typeof SpotlightRead | typeof QuestionRead
  create: typeof PostCreate | typeof QuestionCreate
  update: typeof PostUpdate | typeof QuestionUpdate
  operations: { read: Operation; create: Operation; update: Operation; delete: Operation }
}

export const CONTENT_API = {
  spotlight: {
    path: 'spotlight',
    noun: CONTENT_KINDS.spotlight.noun,
    labels: { heading: 'Posts', singular: 'post', plural: 'posts', titleField: 'title', people: 'With' },
    params: SpotlightParams,
    read: SpotlightRead,
    create: PostCreate,
    update: PostUpdate,
    operations: {
      read: {
        operationId: 'getSpotlight',
        summary: 'Get a post ("spotlight") with its tags and page metadata',
      },
      create: { operationId: 'createPost', summary: 'Create a post ("spotlight")' },
      update: {
        operationId: 'updatePost',
        summary: 'Update a post (partial; tags and tagged replace the lists)',
      },
      delete: { operationId: 'deletePost', summary: 'Delete a post' },
    },
  },
  question: {
    path: 'qanda',
    noun: CONTENT_KINDS.question.noun,
    labels: {
      heading: 'Q&A',
      singular: 'question',
      plural: 'questions',
      titleField: 'question',
      people: 'Answered by',
    },
    params: QuestionParams,
    read: QuestionRead,
    create: QuestionCreate,
    update: QuestionUpdate,
    operations: {
      read: {
        operationId: 'getQuestion',
        summary: 'Get a Q&A item with its answers, tags and page metadata',
      },
      create: { operationId: 'createQuestion', summary: 'Create a Q&A item' },
      update: {
        operationId: 'updateQuestion',
        summary: 'Update a Q&A item (partial; tags replace the list)',
      },
      delete: { operationId: 'deleteQuestion', summary: 'Delete a Q&A item and its answers' },
    },
  },
} as const satisfies Record<ContentKind, ContentKindSpec>

/** A kind's create body, as its schema types it: a post's create cannot take a question's fields. */
export type CreateInput<K extends ContentKind> = Static<(typeof CONTENT_API)[K]['create']>
/** A kind's partial update body. */
export type UpdateInput<K extends ContentKind> = Static<(typeof CONTENT_API)[K]['update']>
/** A kind's read, as served. */
export type ReadOf<K extends ContentKind> = Static<(typeof CONTENT_API)[K]['read']>
