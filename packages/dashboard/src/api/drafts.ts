import { useQueryClient } from '@tanstack/react-query'
import type { components, operations } from '../../../client/src/schema.ts'
import { api } from './client.ts'
import { dataOf } from './failure.ts'

export type DraftSummary = components['schemas']['DraftSummary']
/** One draft as `GET .../drafts/:id` answers it: with its diff and the live changes since it was opened. */
export type Draft = operations['getDraft']['responses'][200]['content']['application/json']['data']
export type DraftState = NonNullable<NonNullable<operations['listDrafts']['parameters']['query']>['state']>

/** What the editor says when a change is kept for review instead of written live (CONTRACT §21). */
export const KEPT_FOR_REVIEW =
  'Your change waits for review; the public profile is unchanged until it is approved.'

/** Every draft query of an organization: a step or a write kept as a draft refreshes them all. */
export const draftsKey = (organization: number) => ['drafts', organization]

export async function listDrafts(organization: number, state: DraftState | undefined) {
  return dataOf(
    await api.GET('/v2/organization/{corporation}/drafts', {
      params: { path: { corporation: organization }, query: state ? { state } : {} },
    }),
  ).drafts
}

export async function readDraft(organization: number, id: number): Promise<Draft> {
  return dataOf(
    await api.GET('/v2/organization/{corporation}/drafts/{id}', {
      params: { path: { corporation: organization, id } },
    }),
  )
}

export async function submitDraft(organization: number, id: number): Promise<Draft> {
  return dataOf(
    await api.POST('/v2/organization/{corporation}/drafts/{id}/submit', {
      params: { path: { corporation: organization, id } },
    }),
  )
}

export async function approveDraft(
  organization: number,
  id: number,
  body: components['schemas']['DraftApproval'],
): Promise<Draft> {
  return dataOf(
    await api.POST('/v2/organization/{corporation}/drafts/{id}/approve', {
      params: { path: { corporation: organization, id } },
      body,
    }),
  )
}

export async function returnDraft(organization: number, id: number, comment: string): Promise<Draft> {
  return dataOf(
    await api.POST('/v2/organization/{corporation}/drafts/{id}/return', {
      params: { path: { corporation: organization, id } },
      body: { comment },
    }),
  )
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The draft a write's answer names when the write was kept for review (202 `{"draft": {"id"}}`), whether
 * the answer is the envelope (a section write) or its data (the typed client's); undefined: written live.
 */
export function draftOf(answer: unknown): number | undefined {
  const data = isObject(answer) && isObject(answer.data) ? answer.data : answer
  if (!isObject(data) || !isObject(data.draft)) return undefined
  return typeof data.draft.id === 'number' ? data.draft.id : undefined
}

/**
 * After a profile write: when the server kept it as a draft, the draft is submitted for review at once
 * (saving is proposing; a draft left open would wait for nobody) and the answer is `KEPT_FOR_REVIEW`, the
 * notice a form shows instead of "Saved."; a live write's answer is passed on as it is.
 */
export function useKeptForReview(organization: number) {
  const queries = useQueryClient()
  return async (answer: unknown): Promise<unknown> => {
    const id = draftOf(answer)
    if (id === undefined) return answer
    try {
      await submitDraft(organization, id)
    } finally {
      await queries.invalidateQueries({ queryKey: draftsKey(organization) })
    }
    return KEPT_FOR_REVIEW
  }
}
