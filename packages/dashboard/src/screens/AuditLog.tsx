import { useInfiniteQuery } from '@tanstack/react-query'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { Empty, ErrorNote, Loading, Time } from '../ui/parts.tsx'

type Entry = components['schemas']['AuditEntry']

const ACTORS: Record<Entry['actor']['kind'], string> = {
  person: 'Person',
  client: 'Client',
  cli: 'Command line',
  system: 'The service',
}
const actorOf = (entry: Entry) => `${ACTORS[entry.actor.kind]}${entry.actor.id ? ` ${entry.actor.id}` : ''}`

/** Who wrote what and when (`GET .../audit`, scope admin): newest first, a page at a time. */
export function AuditLogScreen() {
  const me = useSignedIn()
  const log = useInfiniteQuery({
    queryKey: ['audit', me.organization],
    initialPageParam: '',
    queryFn: async ({ pageParam }) =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/audit', {
          params: {
            path: { corporation: me.organization },
            query: { page_size: 25, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  })
  const entries = log.data?.pages.flatMap((page) => page.entries) ?? []
  return (
    <div className="audit">
      <h1>Audit log</h1>
      <p className="muted">Every write through the API, the dashboard, imports and the command line.</p>
      {log.isPending ? <Loading what="the audit log" /> : null}
      {log.isError ? <ErrorNote error={log.error} retry={() => void log.refetch()} /> : null}
      {log.data && entries.length === 0 ? <Empty>Nothing has been written yet.</Empty> : null}
      {entries.length > 0 ? (
        <div className="table-scroll">
          <table className="data-table">
            <caption className="visually-hidden">Audit log, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Record</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <Time seconds={entry.created_at} />
                  </td>
                  <td>{actorOf(entry)}</td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td>
                    {entry.record.kind}
                    {entry.record.id ? ` ${entry.record.id}` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {log.hasNextPage ? (
        <button type="button" disabled={log.isFetchingNextPage} onClick={() => void log.fetchNextPage()}>
          {log.isFetchingNextPage ? 'Loading…' : 'Older entries'}
        </button>
      ) : null}
    </div>
  )
}
