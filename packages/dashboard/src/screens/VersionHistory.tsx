import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { FailureNote, useAction } from '../ui/action.tsx'
import { Empty, ErrorNote, Loading, Notice, Time } from '../ui/parts.tsx'

type VersionSummary = components['schemas']['VersionSummary']
type VersionDetail = components['schemas']['VersionDetail']
type FieldChange = components['schemas']['FieldChange']

/** Where a record's versions are read and restored: an expert's profile, a post or a Q&A item. */
/** A restore's answer: done, or kept as a draft for review (202). */
type Restored = components['schemas']['VersionRestored'] | components['schemas']['DraftOpened']

export interface VersionSource {
  /** The query key of its versions; a restore refreshes every query under it. */
  key: readonly unknown[]
  list(cursor: string | undefined): Promise<{ versions: VersionSummary[]; next_cursor: string | null }>
  read(id: number): Promise<VersionDetail>
  /** The restore, or the draft it was kept as when the person's changes need review. */
  restore(id: number): Promise<Restored>
  /** What a part is called on this record's screen (`item`: "the post"). */
  partName(part: string): string
}

/** The first page's cursor: none, the newest versions. */
const NEWEST: string | undefined = undefined

const sectionName = (part: string) => part.replaceAll('_', ' ')

export const expertVersions = (organization: number, username: string): VersionSource => {
  const path = { corporation: organization, username }
  return {
    key: ['versions', organization, 'expert', username],
    list: async (cursor) =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert/{username}/versions', {
          params: { path, query: { cursor } },
        }),
      ),
    read: async (id) =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert/{username}/versions/{id}', {
          params: { path: { ...path, id } },
        }),
      ),
    restore: async (id) =>
      dataOf<Restored>(
        await api.POST('/v2/organization/{corporation}/expert/{username}/versions/{id}/restore', {
          params: { path: { ...path, id } },
        }),
      ),
    partName: (part) => (part === 'account' ? 'the account' : `the ${sectionName(part)} section`),
  }
}

export const postVersions = (organization: number, id: number): VersionSource => ({
  key: ['versions', organization, 'post', id],
  list: async (cursor) =>
    dataOf(
      await api.GET('/v2/spotlight/{corporation}/{id}/versions', {
        params: { path: { corporation: organization, id }, query: { cursor } },
      }),
    ),
  read: async (version) =>
    dataOf(
      await api.GET('/v2/spotlight/{corporation}/{id}/versions/{version}', {
        params: { path: { corporation: organization, id, version } },
      }),
    ),
  restore: async (version) =>
    dataOf<Restored>(
      await api.POST('/v2/spotlight/{corporation}/{id}/versions/{version}/restore', {
        params: { path: { corporation: organization, id, version } },
      }),
    ),
  partName: () => 'the post',
})

export const questionVersions = (organization: number, id: number): VersionSource => ({
  key: ['versions', organization, 'question', id],
  list: async (cursor) =>
    dataOf(
      await api.GET('/v2/qanda/{corporation}/{id}/versions', {
        params: { path: { corporation: organization, id }, query: { cursor } },
      }),
    ),
  read: async (version) =>
    dataOf(
      await api.GET('/v2/qanda/{corporation}/{id}/versions/{version}', {
        params: { path: { corporation: organization, id, version } },
      }),
    ),
  restore: async (version) =>
    dataOf<Restored>(
      await api.POST('/v2/qanda/{corporation}/{id}/versions/{version}/restore', {
        params: { path: { corporation: organization, id, version } },
      }),
    ),
  partName: () => 'the question',
})

/** Who made a change, as a version names it. */
function actorName(actor: VersionSummary['actor']): string {
  if (actor.name) return actor.name
  if (actor.kind === 'cli') return 'the command line'
  if (actor.kind === 'system') return 'the service'
  if (actor.kind === 'client') return `API client ${actor.id ?? ''}`.trim()
  return 'a person since deleted'
}

/**
 * The History panel: the record's versions, newest first (who, when, which part). Opening one shows what
 * it changed; "Restore this version" asks once more, then makes that part the record's again and calls
 * `onRestored` so the screen reads the record anew.
 */
export function VersionHistory({
  source,
  revision,
  writable,
  onRestored,
}: {
  source: VersionSource
  /** The record's revision as the screen read it (its ETag): when it changes, the list is read again. */
  revision?: string
  writable: boolean
  onRestored: () => Promise<unknown>
}) {
  const [opened, setOpened] = useState<number | undefined>()
  // Kept here: the opened version closes once restored, and the list is read again.
  const [restored, setRestored] = useState('')
  const versions = useInfiniteQuery({
    queryKey: [...source.key, 'list', revision],
    queryFn: ({ pageParam }) => source.list(pageParam),
    initialPageParam: NEWEST,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  })
  const all = versions.data?.pages.flatMap((page) => page.versions) ?? []
  return (
    <section className="card history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {restored ? <Notice>{restored}</Notice> : null}
      {versions.isPending ? <Loading what="the history" /> : null}
      {versions.isError ? <ErrorNote error={versions.error} retry={() => void versions.refetch()} /> : null}
      {versions.data && all.length === 0 ? <Empty>No change has been kept yet.</Empty> : null}
      {all.length > 0 ? (
        <ol className="version-list" aria-label="Versions">
          {all.map((version) => (
            <li key={version.id} className={opened === version.id ? 'version opened' : 'version'}>
              <div className="version-line">
                <span>
                  <Time seconds={version.created_at} />: {source.partName(version.part)} by{' '}
                  {actorName(version.actor)}
                </span>
                <button
                  type="button"
                  aria-expanded={opened === version.id}
                  onClick={() => {
                    setRestored('')
                    setOpened(opened === version.id ? undefined : version.id)
                  }}
                >
                  {opened === version.id ? 'Close' : 'Open'}
                  <span className="visually-hidden"> version {version.id}</span>
                </button>
              </div>
              {opened === version.id ? (
                <VersionChanges
                  source={source}
                  id={version.id}
                  writable={writable}
                  onRestored={async (message) => {
                    setOpened(undefined)
                    await onRestored()
                    setRestored(message)
                  }}
                />
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      {versions.hasNextPage ? (
        <button
          type="button"
          disabled={versions.isFetchingNextPage}
          onClick={() => void versions.fetchNextPage()}
        >
          Show older versions
        </button>
      ) : null}
    </section>
  )
}

function VersionChanges({
  source,
  id,
  writable,
  onRestored,
}: {
  source: VersionSource
  id: number
  writable: boolean
  onRestored: (message: string) => Promise<unknown>
}) {
  const queries = useQueryClient()
  const [confirming, setConfirming] = useState(false)
  const { busy, failure, run } = useAction()
  const version = useQuery({ queryKey: [...source.key, 'version', id], queryFn: () => source.read(id) })
  if (version.isPending) return <Loading what="the changes" />
  if (version.isError) return <ErrorNote error={version.error} retry={() => void version.refetch()} />
  const part = source.partName(version.data.part)
  const restore = () =>
    void run(async () => {
      const result = await source.restore(id)
      setConfirming(false)
      await queries.invalidateQueries({ queryKey: source.key })
      await onRestored(
        'draft' in result
          ? `The restore of ${part} is kept as draft ${result.draft.id}, for review.`
          : result.updated
            ? `Restored ${part} as it was then.`
            : `Nothing to restore: ${part} already reads as this version.`,
      )
    })
  return (
    <div className="version-changes">
      {version.data.diff.length === 0 ? (
        <Empty>This change left every field as it was.</Empty>
      ) : (
        <ul className="field-changes" aria-label={`Changes of version ${id}`}>
          {version.data.diff.map((change) => (
            <FieldChangeRow key={change.field} change={change} />
          ))}
        </ul>
      )}
      {writable ? (
        confirming ? (
          <div className="confirm">
            <p>
              Restore {part} as this version kept it? It replaces what {part} holds now; the change is kept as
              a new version.
            </p>
            <div className="actions">
              <button type="button" className="primary" disabled={busy} onClick={restore}>
                Yes, restore it
              </button>
              <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : (
          <div className="actions">
            <button type="button" onClick={() => setConfirming(true)}>
              Restore this version
            </button>
          </div>
        )
      ) : null}
      <FailureNote failure={failure} />
    </div>
  )
}

export function FieldChangeRow({ change }: { change: FieldChange }) {
  return (
    <li className="field-change">
      <h3 className="field-name">{change.field}</h3>
      {change.words ? (
        <p className="word-diff">
          {change.words.map((word, n) =>
            word.op === 'same' ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: the words of one diff never reorder
              <span key={n}>{word.text}</span>
            ) : word.op === 'added' ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: the words of one diff never reorder
              <ins key={n}>
                <span className="visually-hidden">[added: </span>
                {word.text}
                <span className="visually-hidden">]</span>
              </ins>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: the words of one diff never reorder
              <del key={n}>
                <span className="visually-hidden">[removed: </span>
                {word.text}
                <span className="visually-hidden">]</span>
              </del>
            ),
          )}
        </p>
      ) : (
        <dl className="before-after">
          <dt>Before</dt>
          <dd>{shown(change.before)}</dd>
          <dt>After</dt>
          <dd>{shown(change.after)}</dd>
        </dl>
      )}
    </li>
  )
}

/** A field's value as text: a string as is, nothing as "(none)", anything else as compact JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)'
  return typeof value === 'string' ? value : JSON.stringify(value)
}
