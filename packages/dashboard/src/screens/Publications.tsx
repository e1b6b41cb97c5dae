import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { canWrite } from '../roles.ts'
import { FailureNote, useAction } from '../ui/action.tsx'
import { Empty, ErrorNote, Loading, Notice, Time } from '../ui/parts.tsx'
import { RunSummary } from './RunSummary.tsx'

type Work = components['schemas']['Work']
type State = Work['state']

const route = getRouteApi('/signed-in/experts/$username/publications')
/** The queue's order: what waits for a decision comes first. */
const STATES: readonly { state: State; heading: string }[] = [
  { state: 'pending', heading: 'Waiting for a decision' },
  { state: 'claimed', heading: 'Claimed (shown as articles)' },
  { state: 'hidden', heading: 'Hidden' },
  { state: 'rejected', heading: 'Rejected' },
]
const DECISIONS: readonly { state: State; verb: string }[] = [
  { state: 'claimed', verb: 'Claim' },
  { state: 'rejected', verb: 'Reject' },
  { state: 'hidden', verb: 'Hide' },
]
const REASONS: Readonly<Record<string, string>> = {
  orcid_record: 'On the expert’s ORCID record',
  authenticated_orcid: 'An author with the expert’s authenticated ORCID iD',
  identifier: 'Found through the expert’s identifier',
  name_affiliation: 'Name and affiliation match',
}
const PAGE_SIZE = 100
/** A queue longer than this is read in pieces by the API; the screen shows its first part. */
const MOST_PAGES = 5

const worksKey = (organization: number, username: string) => ['works', organization, username]

/** An expert's works found by the importer: the queue to decide on, and the refresh. */
export function PublicationsScreen() {
  const me = useSignedIn()
  const { username } = route.useParams()
  const works = useQuery({
    queryKey: worksKey(me.organization, username),
    queryFn: async () => {
      const all: Work[] = []
      let cursor: string | undefined
      for (let page = 0; page < MOST_PAGES; page++) {
        const read = dataOf(
          await api.GET('/v2/organization/{corporation}/expert/{username}/works', {
            params: {
              path: { corporation: me.organization, username },
              query: { page_size: PAGE_SIZE, ...(cursor ? { cursor } : {}) },
            },
          }),
        )
        all.push(...read.works)
        if (!read.next_cursor) return { works: all, more: false }
        cursor = read.next_cursor
      }
      return { works: all, more: true }
    },
  })
  return (
    <div className="publications">
      <div className="page-head">
        <h1>Publications</h1>
        <Link to="/experts/$username" params={{ username }}>
          Back to the profile
        </Link>
      </div>
      <p className="muted">
        Works the scholarly sources (ORCID, OpenAlex, Crossref, PubMed) list for this expert. A claimed work
        is shown in the profile’s articles; a rejected one is never offered again.
      </p>
      {canWrite(me) ? <Refresh organization={me.organization} username={username} /> : null}
      {works.isPending ? <Loading what="the publications" /> : null}
      {works.isError ? <ErrorNote error={works.error} retry={() => void works.refetch()} /> : null}
      {works.data && works.data.works.length === 0 ? (
        <Empty>No works have been found for this expert yet.</Empty>
      ) : null}
      {works.data && works.data.works.length > 0 ? (
        <Queue works={works.data.works} username={username} writable={canWrite(me)} />
      ) : null}
      {works.data?.more ? (
        <p className="muted">The first {works.data.works.length} works are shown; decide on these first.</p>
      ) : null}
    </div>
  )
}

function Queue({ works, username, writable }: { works: Work[]; username: string; writable: boolean }) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const action = useAction()
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set())
  const [bulkState, setBulkState] = useState<State>('claimed')
  const everyId = works.map((work) => work.id)
  const allChosen = chosen.size > 0 && everyId.every((id) => chosen.has(id))
  const decide = (ids: readonly number[], state: State) =>
    action.run(async () => {
      const result = dataOf(
        await api.POST('/v2/organization/{corporation}/expert/{username}/works/decisions', {
          params: { path: { corporation: me.organization, username } },
          body: { decisions: ids.map((id) => ({ id, state })) },
        }),
      )
      setChosen(new Set())
      await queries.invalidateQueries({ queryKey: worksKey(me.organization, username) })
      const works = result.updated === 1 ? 'work' : 'works'
      return `${result.updated} ${works} ${pastOf(state)}.`
    })
  const toggle = (id: number) => {
    const next = new Set(chosen)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    setChosen(next)
  }
  return (
    <>
      {writable ? (
        <fieldset className="bulk" disabled={action.busy}>
          <legend className="visually-hidden">Decide on several works</legend>
          <label className="field-flag">
            <input
              type="checkbox"
              checked={allChosen}
              onChange={() => setChosen(allChosen ? new Set() : new Set(everyId))}
            />
            Select all
          </label>
          <label>
            Decision for the selected works{' '}
            <select value={bulkState} onChange={(event) => setBulkState(stateOf(event.target.value))}>
              {DECISIONS.map((decision) => (
                <option key={decision.state} value={decision.state}>
                  {decision.verb}
                </option>
              ))}
              <option value="pending">Back to pending</option>
            </select>
          </label>
          <button
            type="button"
            className="primary"
            disabled={chosen.size === 0}
            onClick={() => void decide([...chosen], bulkState)}
          >
            Apply to {chosen.size} selected
          </button>
        </fieldset>
      ) : null}
      {action.notice ? <Notice>{action.notice}</Notice> : null}
      <FailureNote failure={action.failure} />
      {STATES.map(({ state, heading }) => {
        const inState = works.filter((work) => work.state === state)
        if (inState.length === 0) return null
        return (
          <section key={state} aria-labelledby={`works-${state}`}>
            <h2 id={`works-${state}`}>
              {heading} ({inState.length})
            </h2>
            <ul className="work-list" aria-label={heading}>
              {inState.map((work) => (
                <WorkRow
                  key={work.id}
                  work={work}
                  chosen={chosen.has(work.id)}
                  toggle={writable ? () => toggle(work.id) : undefined}
                  decide={writable && !action.busy ? (next) => void decide([work.id], next) : undefined}
                />
              ))}
            </ul>
          </section>
        )
      })}
    </>
  )
}

function WorkRow({
  work,
  chosen,
  toggle,
  decide,
}: {
  work: Work
  chosen: boolean
  toggle: (() => void) | undefined
  decide: ((state: State) => void) | undefined
}) {
  const title = work.title ?? `Untitled (${work.doi ?? work.pmid ?? work.openalex_id ?? `work ${work.id}`})`
  const titleId = `work-${work.id}`
  return (
    <li className="work-row" aria-labelledby={titleId}>
      {toggle ? (
        <input type="checkbox" checked={chosen} onChange={toggle} aria-label={`Select ${title}`} />
      ) : null}
      <div>
        <strong id={titleId}>{work.url ? <a href={work.url}>{title}</a> : title}</strong>
        <p className="muted">{[work.year, work.container].filter(Boolean).join(' · ')}</p>
        {work.authors.length > 0 ? <p>{authorsOf(work.authors)}</p> : null}
        <p className="muted">
          {REASONS[work.reason] ?? work.reason} · score {Math.round(work.score * 100)}%
          {work.note ? ` · ${work.note}` : ''}
          {work.decided_at ? (
            <>
              {' '}
              · decided <Time seconds={work.decided_at} />
            </>
          ) : null}
        </p>
        {work.possible_duplicates.length > 0 ? (
          <p className="badge warn">Looks like another work in this list</p>
        ) : null}
      </div>
      {decide ? (
        <div className="actions">
          {DECISIONS.filter((decision) => decision.state !== work.state).map((decision) => (
            <button
              key={decision.state}
              type="button"
              aria-label={`${decision.verb} ${title}`}
              onClick={() => decide(decision.state)}
            >
              {decision.verb}
            </button>
          ))}
          {work.state === 'pending' ? null : (
            <button type="button" aria-label={`Undecide ${title}`} onClick={() => decide('pending')}>
              Undecide
            </button>
          )}
        </div>
      ) : null}
    </li>
  )
}

/**
 * "Refresh now" (202 with the run) and how the expert's last run ended, read from the expert's own runs
 * (`.../works/runs`), which a signed-in expert may read too. A run under way is read again until it ends;
 * when the run started here ends, the works are read again.
 */
function Refresh({ organization, username }: { organization: number; username: string }) {
  const queries = useQueryClient()
  const action = useAction()
  const [started, setStarted] = useState<components['schemas']['ImportRun']>()
  const runsKey = ['works-runs', organization, username]
  const runs = useQuery({
    queryKey: runsKey,
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert/{username}/works/runs', {
          params: { path: { corporation: organization, username }, query: { page_size: 1 } },
        }),
      ),
    refetchInterval: (query) => (query.state.data?.runs[0]?.status === 'running' ? 2000 : false),
  })
  const last = runs.data?.runs[0] ?? started
  const endedHere = started && last?.id === started.id && last.status !== 'running' ? last.id : undefined
  useEffect(() => {
    if (endedHere !== undefined)
      void queries.invalidateQueries({ queryKey: worksKey(organization, username) })
  }, [endedHere, organization, username, queries])
  const refresh = () =>
    action.run(async () => {
      const run = dataOf(
        await api.POST('/v2/organization/{corporation}/expert/{username}/works/refresh', {
          params: { path: { corporation: organization, username } },
        }),
      )
      setStarted(run)
      await queries.invalidateQueries({ queryKey: runsKey })
      return 'The refresh has started.'
    })
  return (
    <section className="card refresh" aria-labelledby="refresh-heading">
      <h2 id="refresh-heading">Refresh</h2>
      <p className="muted">
        The sources are asked again every week. Refresh now to ask them at once (a few times an hour).
      </p>
      <button type="button" disabled={action.busy} onClick={() => void refresh()}>
        Refresh now
      </button>
      {action.notice ? <Notice>{action.notice}</Notice> : null}
      <FailureNote failure={action.failure} />
      {runs.isError ? <ErrorNote error={runs.error} retry={() => void runs.refetch()} /> : null}
      {last ? <RunSummary run={last} /> : null}
    </section>
  )
}

function authorsOf(authors: readonly string[]): string {
  return authors.length > 8
    ? `${authors.slice(0, 8).join(', ')} and ${authors.length - 8} more`
    : authors.join(', ')
}

function pastOf(state: State): string {
  return { pending: 'put back to pending', claimed: 'claimed', rejected: 'rejected', hidden: 'hidden' }[state]
}

function stateOf(value: string): State {
  return value === 'pending' || value === 'rejected' || value === 'hidden' ? value : 'claimed'
}
