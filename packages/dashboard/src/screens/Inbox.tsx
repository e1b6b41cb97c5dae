import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi } from '@tanstack/react-router'
import { type FormEvent, useEffect, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { Empty, ErrorNote, Loading } from '../ui/parts.tsx'
import { canHandleInquiries } from './Shell.tsx'

type Inquiry = components['schemas']['Inquiry']
const STATUSES = ['new', 'assigned', 'answered', 'closed', 'spam'] as const
type Status = (typeof STATUSES)[number]

export interface InboxSearch {
  status?: Status
  assignee?: string
  expert?: string
  id?: number
}

const statusOf = (value: unknown): Status | undefined => STATUSES.find((status) => status === value)

export function inboxSearchOf(search: Record<string, unknown>): InboxSearch {
  const id = Number(search.id)
  return {
    ...(statusOf(search.status) ? { status: statusOf(search.status) } : {}),
    ...(typeof search.assignee === 'string' && search.assignee ? { assignee: search.assignee } : {}),
    ...(typeof search.expert === 'string' && search.expert ? { expert: search.expert } : {}),
    ...(Number.isInteger(id) && id > 0 ? { id } : {}),
  }
}

const route = getRouteApi('/inquiries')
const when = (seconds: number) => new Date(seconds * 1000).toLocaleString()
const senderOf = (inquiry: Inquiry) =>
  [inquiry.fields.firstname, inquiry.fields.lastname].filter(Boolean).join(' ') || 'Sender removed'

/** The inquiry inbox (CONTRACT §11, §17): filters, the list newest first, and the chosen inquiry. */
export function InboxScreen() {
  const me = useSignedIn()
  const search = route.useSearch()
  const navigate = route.useNavigate()
  const filters = { status: search.status, assignee: search.assignee, expert: search.expert }
  const list = useInfiniteQuery({
    queryKey: ['inbox', me.organization, filters],
    initialPageParam: '',
    queryFn: async ({ pageParam }) =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/inquiry', {
          params: {
            path: { corporation: me.organization },
            query: {
              page_size: 20,
              ...(pageParam ? { cursor: pageParam } : {}),
              ...(search.status ? { status: search.status } : {}),
              ...(search.assignee ? { assignee: search.assignee } : {}),
              // An expert person's token reaches only its own expert's inquiries, and says so in the query.
              ...(me.role === 'expert' && me.expert
                ? { username: me.expert }
                : search.expert
                  ? { username: search.expert }
                  : {}),
            },
          },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  })
  const inquiries = list.data?.pages.flatMap((page) => page.inquiries) ?? []
  const set = (change: Partial<InboxSearch>) =>
    navigate({ search: (previous) => inboxSearchOf({ ...previous, ...change }) })

  const applyFilters = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    set({
      status: statusOf(form.get('status')),
      assignee: String(form.get('assignee') ?? ''),
      expert: String(form.get('expert') ?? ''),
      id: undefined,
    })
  }

  return (
    <div className="inbox">
      <h1>{me.role === 'expert' ? 'My inquiries' : 'Inquiries'}</h1>
      <form
        className="filters"
        onSubmit={applyFilters}
        aria-label="Filter inquiries"
        key={JSON.stringify(filters)}
      >
        <label>
          Status{' '}
          <select name="status" defaultValue={search.status ?? ''}>
            <option value="">Any</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        {me.role === 'expert' ? null : (
          <>
            <label>
              Assignee <input name="assignee" type="email" defaultValue={search.assignee ?? ''} />
            </label>
            <label>
              Expert (username) <input name="expert" defaultValue={search.expert ?? ''} />
            </label>
          </>
        )}
        <button type="submit">Filter</button>
      </form>
      <div className="inbox-body">
        <section aria-label="Inquiry list" className="inbox-list">
          {list.isPending ? <Loading what="inquiries" /> : null}
          {list.isError ? <ErrorNote error={list.error} retry={() => void list.refetch()} /> : null}
          {list.data && inquiries.length === 0 ? <Empty>No inquiry matches.</Empty> : null}
          <ul>
            {inquiries.map((inquiry) => (
              <li key={inquiry.id}>
                <button
                  type="button"
                  className="inquiry-row"
                  aria-current={search.id === inquiry.id ? 'true' : undefined}
                  onClick={() => set({ id: inquiry.id })}
                >
                  <span className="strong">{senderOf(inquiry)}</span>
                  <span className="muted">
                    {inquiry.kind} · {inquiry.username ?? 'organization'} · {when(inquiry.created_at)}
                  </span>
                  <span className={`badge status-${inquiry.status}`}>{inquiry.status}</span>
                </button>
              </li>
            ))}
          </ul>
          {list.hasNextPage ? (
            <button
              type="button"
              onClick={() => void list.fetchNextPage()}
              disabled={list.isFetchingNextPage}
            >
              Show older inquiries
            </button>
          ) : null}
        </section>
        {search.id ? <InquiryDetail id={search.id} /> : null}
      </div>
    </div>
  )
}

function InquiryDetail({ id }: { id: number }) {
  const me = useSignedIn()
  const queries = useQueryClient()
  const inquiry = useQuery({
    queryKey: ['inquiry', me.organization, id],
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/inquiry/{id}', {
          params: { path: { corporation: me.organization, id } },
        }),
      ),
  })
  if (inquiry.isPending) return <Loading what="the inquiry" />
  if (inquiry.isError) return <ErrorNote error={inquiry.error} />
  const item = inquiry.data
  const fields = Object.entries(item.fields).filter(
    ([name, value]) => value !== null && value !== '' && name !== 'message',
  )
  return (
    <section className="card inquiry-detail" aria-labelledby="inquiry-title">
      <h2 id="inquiry-title">
        {item.kind} inquiry from {senderOf(item)}
      </h2>
      <p className="muted">
        To {item.username ?? 'the organization'}, received {when(item.created_at)}
      </p>
      <blockquote className="message">{item.fields.message}</blockquote>
      <dl className="facts">
        {fields.map(([name, value]) => (
          <div key={name}>
            <dt>{name.replaceAll('_', ' ')}</dt>
            <dd>{String(value)}</dd>
          </div>
        ))}
      </dl>
      {canHandleInquiries(me) ? (
        <HandleForm
          inquiry={item}
          onSaved={async (saved) => {
            queries.setQueryData(['inquiry', me.organization, id], saved)
            await queries.invalidateQueries({ queryKey: ['inbox', me.organization] })
          }}
        />
      ) : (
        <p>
          Status: <span className={`badge status-${item.status}`}>{item.status}</span>
        </p>
      )}
    </section>
  )
}

function HandleForm({ inquiry, onSaved }: { inquiry: Inquiry; onSaved: (saved: Inquiry) => Promise<void> }) {
  const me = useSignedIn()
  const [status, setStatus] = useState<Status>(inquiry.status)
  const [assignee, setAssignee] = useState(inquiry.assignee ?? '')
  const [notes, setNotes] = useState(inquiry.notes ?? '')
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  useEffect(() => {
    setStatus(inquiry.status)
    setAssignee(inquiry.assignee ?? '')
    setNotes(inquiry.notes ?? '')
  }, [inquiry])

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setFailure(undefined)
    setNotice('')
    try {
      const saved = dataOf(
        await api.PATCH('/v2/organization/{corporation}/inquiry/{id}', {
          params: { path: { corporation: me.organization, id: inquiry.id } },
          body: { status, assignee, notes },
        }),
      )
      await onSaved(saved)
      setNotice('Saved.')
    } catch (error) {
      setFailure(error)
    }
  }
  const fields = failure instanceof ApiFailure ? failure.fields : {}
  return (
    <form onSubmit={submit} className="handle-form" noValidate>
      <div className="field">
        <label htmlFor="inquiry-status">Status</label>
        <select
          id="inquiry-status"
          value={status}
          onChange={(event) => setStatus(statusOf(event.target.value) ?? 'new')}
        >
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="inquiry-assignee">Assignee</label>
        <input
          id="inquiry-assignee"
          type="email"
          value={assignee}
          onChange={(event) => setAssignee(event.target.value)}
          aria-describedby="assignee-hint"
        />
        <p id="assignee-hint" className="hint">
          An address of the notification settings; empty for nobody.
        </p>
        {fields.assignee ? <p className="field-error">Assignee {fields.assignee}</p> : null}
      </div>
      <div className="field">
        <label htmlFor="inquiry-notes">Internal notes</label>
        <textarea
          id="inquiry-notes"
          rows={4}
          value={notes}
          onChange={(event) => setNotes(event.target.value)}
        />
        {fields.notes ? <p className="field-error">Notes {fields.notes}</p> : null}
      </div>
      {failure ? (
        <p className="form-error" role="alert">
          {messageOf(failure)}
        </p>
      ) : null}
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <button type="submit" className="primary">
        Save
      </button>
    </form>
  )
}
