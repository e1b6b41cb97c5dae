import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { Empty, ErrorNote, Loading, Time } from '../ui/parts.tsx'

type Entry = components['schemas']['AuditEntry']
type Subject = NonNullable<Entry['record']['subject']>

const ACTORS: Record<Entry['actor']['kind'], string> = {
  person: 'A person',
  client: 'An API client',
  cli: 'The command line',
  system: 'The service',
  schedule: 'The schedule',
}

/** Who, in words: a delegate names the profile it acted for, the schedule who set it. */
function actorOf(entry: Entry): string {
  if (entry.actor.kind === 'client') return `${entry.actor.name ?? entry.actor.id} (API client)`
  if (entry.actor.kind === 'schedule')
    return entry.actor.name ? `The schedule set by ${entry.actor.name}` : ACTORS.schedule
  const actor = entry.actor.name ?? ACTORS[entry.actor.kind]
  const delegated = entry.on_behalf_of
  return delegated ? `${actor}, as a delegate of ${delegated.name ?? delegated.username}` : actor
}

/** One record's history: what the log is narrowed to, named as the entries name it. */
interface RecordFilter {
  kind: Subject['kind']
  id: string
  label: string
}

/** The record an entry touched, as a link to its screen where it has one. */
function RecordLink({ subject, label }: { subject: Subject; label: string }) {
  switch (subject.kind) {
    case 'expert':
      return (
        <Link to="/experts/$username" params={{ username: subject.id }}>
          {label}
        </Link>
      )
    case 'spotlight':
      return (
        <Link to="/posts/$id" params={{ id: subject.id }}>
          {label}
        </Link>
      )
    case 'question':
      return (
        <Link to="/questions/$id" params={{ id: subject.id }}>
          {label}
        </Link>
      )
    case 'inquiry':
      return (
        <Link to="/inquiries" search={{ id: Number(subject.id) }}>
          {label}
        </Link>
      )
    case 'person':
      return <Link to="/people">{label}</Link>
    case 'client':
      return <Link to="/integrations">{label}</Link>
    default:
      return <>{label}</>
  }
}

/** The people and clients of the organization, for the "Who" filter. */
function useActors(organization: number) {
  return useQuery({
    queryKey: ['audit-actors', organization],
    queryFn: async () => {
      const path = { params: { path: { corporation: organization } } }
      const [people, clients] = await Promise.all([
        api.GET('/v2/organization/{corporation}/people', path),
        api.GET('/v2/organization/{corporation}/client', path),
      ])
      return { people: dataOf(people).people, clients: dataOf(clients).clients }
    },
  })
}

/**
 * Who wrote what and when (`GET .../audit`, scope admin): newest first, a page at a time, each entry a
 * sentence with the names of today; narrowed to one person or client, or to one record's history.
 */
export function AuditLogScreen() {
  const me = useSignedIn()
  const [actor, setActor] = useState('')
  const [record, setRecord] = useState<RecordFilter>()
  const actors = useActors(me.organization)
  const log = useInfiniteQuery({
    queryKey: ['audit', me.organization, actor, record?.kind, record?.id],
    initialPageParam: '',
    queryFn: async ({ pageParam }) =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/audit', {
          params: {
            path: { corporation: me.organization },
            query: {
              page_size: 25,
              ...(actor ? { actor } : {}),
              ...(record ? { kind: record.kind, record: record.id } : {}),
              ...(pageParam ? { cursor: pageParam } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    // A new filter keeps the entries shown until its own arrive, rather than blanking the table.
    placeholderData: keepPreviousData,
  })
  const entries = log.data?.pages.flatMap((page) => page.entries) ?? []
  const filtered = actor !== '' || record !== undefined
  return (
    <div className="audit">
      <h1>Audit log</h1>
      <p className="muted">Every write through the API, the dashboard, imports and the command line.</p>
      <div className="search-bar audit-filters">
        <label>
          Who{' '}
          <select value={actor} onChange={(event) => setActor(event.target.value)}>
            <option value="">Everyone</option>
            {actors.data?.people.length ? (
              <optgroup label="People">
                {actors.data.people.map((person) => (
                  <option key={person.id} value={`person:${person.id}`}>
                    {person.name || person.email}
                  </option>
                ))}
              </optgroup>
            ) : null}
            {actors.data?.clients.length ? (
              <optgroup label="API clients">
                {actors.data.clients.map((client) => (
                  <option key={client.client_id} value={`client:${client.client_id}`}>
                    {client.label || client.client_id}
                  </option>
                ))}
              </optgroup>
            ) : null}
            <option value="cli">The command line</option>
            <option value="system">The service</option>
            <option value="schedule">The publishing schedule</option>
          </select>
        </label>
        {record ? (
          <button type="button" className="chip" onClick={() => setRecord(undefined)}>
            History of {record.label} <span aria-hidden="true">×</span>
            <span className="visually-hidden"> (show every record)</span>
          </button>
        ) : null}
      </div>
      {log.isPending ? <Loading what="the audit log" /> : null}
      {log.isError ? <ErrorNote error={log.error} retry={() => void log.refetch()} /> : null}
      {log.data && entries.length === 0 ? (
        <Empty>{filtered ? 'No entry matches these filters.' : 'Nothing has been written yet.'}</Empty>
      ) : null}
      {entries.length > 0 ? (
        <div className="table-scroll">
          {/* On a narrow screen each row stacks its cells, each named by its column (styles.css). */}
          <table className="data-table audit-table">
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
                  <td data-label="When">
                    <Time seconds={entry.created_at} />
                  </td>
                  <td data-label="Who">{actorOf(entry)}</td>
                  <td data-label="What">
                    <span title={entry.action}>{entry.summary}</span>
                  </td>
                  <td data-label="Record">
                    <RecordCell entry={entry} current={record} onHistory={setRecord} />
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

function RecordCell({
  entry,
  current,
  onHistory,
}: {
  entry: Entry
  current: RecordFilter | undefined
  onHistory: (filter: RecordFilter) => void
}) {
  const { subject, label } = entry.record
  if (!subject) return <span className="muted">{label ?? ''}</span>
  const name = label ?? subject.id
  const shown = current?.kind === subject.kind && current.id === subject.id
  return (
    <span className="audit-record">
      <RecordLink subject={subject} label={name} />
      {shown ? null : (
        <button
          type="button"
          className="link"
          onClick={() => onHistory({ kind: subject.kind, id: subject.id, label: name })}
        >
          History<span className="visually-hidden"> of {name}</span>
        </button>
      )}
    </span>
  )
}
