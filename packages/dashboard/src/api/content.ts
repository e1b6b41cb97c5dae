import type { components } from '../../../client/src/schema.ts'
import type { ContentItem, ContentKind, ContentRow } from '../screens/content-kinds.ts'
import { api } from './client.ts'
import { dataOf } from './failure.ts'

type Schemas = components['schemas']

/**
 * Posts and Q&A items through the typed client (CONTRACT §7, §9, §10). The bodies of the generated
 * forms are checked by the server against the same schemas the forms were generated from
 * (src/schemas.ts), hence the one cast per write.
 */
export interface ListQuery {
  q?: string
  status?: 'published' | 'unpublished'
  page: number
}

export const PAGE_SIZE = 20

export async function listContent(
  kind: ContentKind,
  corporation: number,
  query: ListQuery,
): Promise<{ rows: ContentRow[]; total: number }> {
  const params = {
    path: { corporation },
    query: {
      page_size: PAGE_SIZE,
      page_from: (query.page - 1) * PAGE_SIZE,
      ...(query.q ? { q: query.q } : {}),
      ...(query.status ? { status: query.status } : {}),
    },
  }
  const fullName = (person: { firstname: string; lastname: string }) =>
    `${person.firstname} ${person.lastname}`.trim()
  if (kind.kind === 'post') {
    const data = dataOf(await api.GET('/v2/spotlight/{corporation}/search', { params }))
    return {
      total: data.total,
      rows: data.spotlights.map((post) => ({
        id: post.id,
        title: post.title,
        published: post.published,
        published_date: post.published_date ?? null,
        tags: post.tags.map((tag) => tag.tag),
        people: post.tagged_experts.map(fullName),
      })),
    }
  }
  const data = dataOf(await api.GET('/v2/qanda/{corporation}/search', { params }))
  return {
    total: data.total,
    rows: data.questions.map((question) => ({
      id: question.id,
      title: question.question,
      published: question.published,
      published_date: question.published_date ?? null,
      tags: question.tags.map((tag) => tag.tag),
      people: question.answered_by.map(fullName),
    })),
  }
}

export async function readContent(kind: ContentKind, corporation: number, id: number): Promise<ContentItem> {
  const params = { path: { corporation, id } }
  if (kind.kind === 'post') {
    const data = dataOf(await api.GET('/v2/spotlight/{corporation}/{id}', { params }))
    const post = data.spotlight[0]
    if (!post) throw new Error('The post was not found.')
    return {
      element: { ...post },
      tags: data.tags.map((tag) => tag.tag),
      tagged: post.tagged_experts.map((expert) => expert.username),
      answers: [],
      seo: { ...data.seo[0] },
    }
  }
  const data = dataOf(await api.GET('/v2/qanda/{corporation}/{id}', { params }))
  const question = data.question[0]
  if (!question) throw new Error('The question was not found.')
  return {
    element: { ...question },
    tags: data.tags.map((tag) => tag.tag),
    tagged: [],
    answers: question.answers,
    seo: { ...data.seo[0] },
  }
}

export async function createContent(
  kind: ContentKind,
  corporation: number,
  body: Record<string, unknown>,
): Promise<number> {
  const params = { path: { corporation } }
  const created =
    kind.kind === 'post'
      ? dataOf(await api.POST('/v2/spotlight/{corporation}', { params, body: body as Schemas['PostCreate'] }))
      : dataOf(await api.POST('/v2/qanda/{corporation}', { params, body: body as Schemas['QuestionCreate'] }))
  return created.id
}

/** A partial update; `tags` and `tagged` replace their lists. */
export async function updateContent(
  kind: ContentKind,
  corporation: number,
  id: number,
  body: Record<string, unknown>,
): Promise<void> {
  const params = { path: { corporation, id } }
  if (kind.kind === 'post')
    dataOf<unknown>(
      await api.PUT('/v2/spotlight/{corporation}/{id}', { params, body: body as Schemas['PostUpdate'] }),
    )
  else
    dataOf<unknown>(
      await api.PUT('/v2/qanda/{corporation}/{id}', { params, body: body as Schemas['QuestionUpdate'] }),
    )
}

export async function deleteContent(kind: ContentKind, corporation: number, id: number): Promise<void> {
  const params = { path: { corporation, id } }
  if (kind.kind === 'post') dataOf(await api.DELETE('/v2/spotlight/{corporation}/{id}', { params }))
  else dataOf(await api.DELETE('/v2/qanda/{corporation}/{id}', { params }))
}

export async function addAnswer(corporation: number, id: number, body: Record<string, unknown>) {
  dataOf(
    await api.POST('/v2/qanda/{corporation}/{id}/answer', {
      params: { path: { corporation, id } },
      body: body as Schemas['AnswerCreate'],
    }),
  )
}

export async function changeAnswer(
  corporation: number,
  id: number,
  answer_id: number,
  body: Record<string, unknown>,
) {
  dataOf(
    await api.PUT('/v2/qanda/{corporation}/{id}/answer/{answer_id}', {
      params: { path: { corporation, id, answer_id } },
      body: body as Schemas['AnswerUpdate'],
    }),
  )
}

export async function removeAnswer(corporation: number, id: number, answer_id: number) {
  dataOf(
    await api.DELETE('/v2/qanda/{corporation}/{id}/answer/{answer_id}', {
      params: { path: { corporation, id, answer_id } },
    }),
  )
}
