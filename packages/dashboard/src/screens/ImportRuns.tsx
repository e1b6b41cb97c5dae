import { useInfiniteQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { Empty, ErrorNote, Loading } from '../ui/parts.tsx'
import { RunSummary } from './RunSummary.tsx'

const PAGE_SIZE = 25

/** The organization's works refreshes (`GET .../imports`), newest first, each linked to its expert's queue. */
export function ImportRunsScreen() {
  const me = useSignedIn()
  const runs = useInfiniteQuery({
    queryKey: ['imports', me.organization],
    initialPageParam: '',
    queryFn: async ({ pageParam }) =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/imports', {
          params: {
            path: { corporation: me.organization },
            query: { page_size: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  })
  const all = runs.data?.pages.flatMap((page) => page.runs) ?? []
  return (
    <div className="import-runs">
      <h1>Publications</h1>
      <p className="muted">
        Each expert with an ORCID iD, OpenAlex or Scopus id is refreshed every week. Open an expert to decide
        on the works found.
      </p>
      {runs.isPending ? <Loading what="the refreshes" /> : null}
      {runs.isError ? <ErrorNote error={runs.error} retry={() => void runs.refetch()} /> : null}
      {runs.data && all.length === 0 ? <Empty>No refresh has run yet.</Empty> : null}
      {all.length > 0 ? (
        <ul className="run-list" aria-label="Refreshes">
          {all.map((run) => (
            <li key={run.id}>
              <Link to="/experts/$username/publications" params={{ username: run.username }}>
                {run.username}’s publications
              </Link>
              <RunSummary run={run} />
            </li>
          ))}
        </ul>
      ) : null}
      {runs.hasNextPage ? (
        <button type="button" disabled={runs.isFetchingNextPage} onClick={() => void runs.fetchNextPage()}>
          Show older refreshes
        </button>
      ) : null}
    </div>
  )
}
