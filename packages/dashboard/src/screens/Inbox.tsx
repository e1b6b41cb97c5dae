import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query'
import { getRouteApi, Link } from '@tanstack/react-router'
import { type FormEvent, type KeyboardEvent, useEffect, useId, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { administers, canHandleInquiries } from '../roles.ts'
import { Empty, ErrorNote, Loading } from '../ui/parts.tsx'
import {
  fieldLabel,
  fieldText,
  isDeadline,
  isLongText,
  kindLabel,
  readableTime,
  STATUS_CHOICES,
  statusLabel,
} from './inquiry-display.ts'

type Inquiry = components['schemas']['Inquiry']
type Assignee = components['schemas']['InquiryAssignee']
const STATUSES = ['new', 'assigned', 'answered', 'closed', 'spam'] as const
type Status = (typeof STATUSES)[number]

export interface InboxSearch {
  status?: Status
  /** The id of the person handling them. */
  assignee?: number
  expert?: string
  id?: number
}

const statusOf = (value: unknown): Status | undefined => STATUSES.find((status) => status === value)
const positive = (value: unknown) => {
  const number = Number(value)
  return Number.isInteger(number) && number > 0 ? number : undefined
}

export function inboxSearchOf(search: Record<string, unknown>): InboxSearch {
  const id = positive(search.id)
  const assignee = positive(search.assignee)
  return {
    ...(statusOf(search.status) ? { status: statusOf(search.status) } : {}),
    ...(assignee ? { assignee } : {}),
    ...(typeof search.expert === 'string' && search.expert ? { expert: search.expert } : {}),
    ...(id ? { id } : {}),
  }
}

const route = getRouteApi('/signed-in/inquiries')
const senderOf = (inquiry: Inquiry) =>
  [inquiry.fields.firstname, inquiry.fields.lastname].filter(Boolean).join(' ') || 'Sender removed'

/** The fields of an inquiry that hold a value, in the table's order. */
const filledFields = (inquiry: Inquiry) =>
  Object.entries(inquiry.fields).filter(
    (entry): entry is [string, string | number] =>
      entry[1] !== null && entry[1] !== undefined && entry[1] !== '',
  )

/** The people an inquiry may be assigned to (`GET .../inquiry/assignees`). */
function useAssignees(enabled: boolean) {
  const me = useSignedIn()
  return useQuery({
    queryKey: ['inquiry-assignees', me.organization],
    enabled,
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/inquiry/assignees', {
          params: { path: { corporation: me.organization } },
        }),
      ).assignees,
  })
}

/** The inquiry inbox (CONTRACT §11, §17, §22): filters, the list newest first, and the chosen inquiry. */
export function InboxScreen() {
  const me = useSignedIn()
  const search = route.useSearch()
  const navigate = route.useNavigate()
  const expertPerson = me.role === 'expert'
  const assignees = useAssignees(!expertPerson)
  const filters = { status: search.status, assignee: search.assignee, expert: search.expert }
  const filtered = Object.values(filters).some((value) => value !== undefined)
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
              ...(expertPerson && me.expert
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
  // Filtering keeps the inquiry that is open.
  const set = (change: Partial<InboxSearch>) =>
    navigate({ search: (previous) => inboxSearchOf({ ...previous, ...change }) })

  return (
    <div className="inbox">
      <div className="inbox-head">
        <h1>{expertPerson ? 'My inquiries' : 'Inquiries'}</h1>
        {administers(me) ? <Link to="/notifications">Who is emailed about inquiries</Link> : null}
      </div>
      <fieldset className="filters">
        <legend className="visually-hidden">Filter inquiries</legend>
        <label>
          Status{' '}
          <select
            value={search.status ?? ''}
            onChange={(event) => set({ status: statusOf(event.target.value) })}
          >
            <option value="">Any status</option>
            {STATUS_CHOICES.map((choice) => (
              <option key={choice.const} value={choice.const}>
                {choice.title}
              </option>
            ))}
          </select>
        </label>
        {expertPerson ? null : (
          <>
            <label>
              Assigned to{' '}
              <select
                value={search.assignee ?? ''}
                onChange={(event) => set({ assignee: positive(event.target.value) })}
              >
                <option value="">Anyone</option>
                {(assignees.data ?? []).map((person) => (
                  <option key={person.id} value={person.id}>
                    {person.name}
                  </option>
                ))}
              </select>
            </label>
            <ExpertFilter value={search.expert} onChange={(expert) => set({ expert })} />
          </>
        )}
      </fieldset>
      <div className="inbox-body">
        <section aria-label="Inquiry list" className="inbox-list">
          {list.isPending ? <Loading what="inquiries" /> : null}
          {list.isError ? <ErrorNote error={list.error} retry={() => void list.refetch()} /> : null}
          {list.data && inquiries.length === 0 ? (
            <Empty>
              {filtered
                ? 'No inquiry matches these filters.'
                : 'No inquiries yet. They arrive here from the contact forms of the directory and from your website.'}
            </Empty>
          ) : null}
          <ul>
            {inquiries.map((inquiry) => (
              <li key={inquiry.id}>
                <InquiryRow
                  inquiry={inquiry}
                  open={search.id === inquiry.id}
                  onOpen={() => set({ id: inquiry.id })}
                />
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

function InquiryRow({ inquiry, open, onOpen }: { inquiry: Inquiry; open: boolean; onOpen: () => void }) {
  const deadline = filledFields(inquiry).find(([name]) => isDeadline(name))
  return (
    <button type="button" className="inquiry-row" aria-current={open ? 'true' : undefined} onClick={onOpen}>
      <span className="strong">{senderOf(inquiry)}</span>
      <span className="muted">
        {kindLabel(inquiry.kind)} · to {inquiry.username ?? 'the organization'} ·{' '}
        {readableTime(inquiry.created_at)}
      </span>
      <span className="muted">
        {inquiry.assignee ? `Assigned to ${inquiry.assignee.name}` : 'Unassigned'}
        {deadline ? ` · ${fieldLabel(deadline[0])}: ${fieldText(...deadline)}` : ''}
      </span>
      <span className={`badge status-${inquiry.status}`}>{statusLabel(inquiry.status)}</span>
    </button>
  )
}

/**
 * Narrows the inbox to one expert, found by name (`GET .../expert?q=`): nobody has to know a username.
 */
function ExpertFilter({ value, onChange }: { value?: string; onChange: (username?: string) => void }) {
  const me = useSignedIn()
  const id = useId()
  const [text, setText] = useState('')
  const [query, setQuery] = useState('')
  const [chosenName, setChosenName] = useState('')
  const found = useQuery({
    queryKey: ['inbox-expert-filter', me.organization, query],
    enabled: query !== '',
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert', {
          params: {
            path: { corporation: me.organization },
            query: { q: query, status: 'all', access: 'all', page_size: 8, page_from: 0 },
          },
        }),
      ),
  })
  if (value) {
    return (
      <p className="chosen-filter">
        Expert: <span className="strong">{chosenName || value}</span>{' '}
        <button
          type="button"
          onClick={() => {
            setChosenName('')
            onChange(undefined)
          }}
        >
          Any expert
        </button>
      </p>
    )
  }
  const search = () => setQuery(text.trim())
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return
    event.preventDefault()
    search()
  }
  return (
    <div className="expert-filter">
      <div className="inline-form">
        <label htmlFor={`${id}-q`}>Expert</label>
        <input
          id={`${id}-q`}
          type="search"
          placeholder="Name"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="button" onClick={search}>
          Find expert
        </button>
      </div>
      {found.isFetching ? <Loading what="experts" /> : null}
      {found.isError ? <ErrorNote error={found.error} /> : null}
      {found.data && query !== '' ? (
        found.data.experts.length === 0 ? (
          <Empty>No expert matches “{query}”.</Empty>
        ) : (
          <ul className="picker-results" aria-label="Matching experts">
            {found.data.experts.map((expert) => (
              <li key={expert.username}>
                <button
                  type="button"
                  onClick={() => {
                    setChosenName(expert.fullname)
                    setQuery('')
                    setText('')
                    onChange(expert.username)
                  }}
                >
                  Inquiries to {expert.fullname}
                </button>
              </li>
            ))}
          </ul>
        )
      ) : null}
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
  const fields = filledFields(item).filter(([name]) => name !== 'message')
  return (
    <section className="card inquiry-detail" aria-labelledby="inquiry-title">
      <h2 id="inquiry-title">
        {kindLabel(item.kind)} inquiry from {senderOf(item)}
      </h2>
      <p className="muted">
        To {item.username ?? 'the organization'}, received {readableTime(item.created_at)}
      </p>
      <blockquote className="message">{item.fields.message}</blockquote>
      <dl className="facts">
        {fields.map(([name, value]) => (
          <div key={name}>
            <dt>{fieldLabel(name)}</dt>
            <dd className={isLongText(name) ? 'long-text' : undefined}>{fieldText(name, value)}</dd>
          </div>
        ))}
        <div>
          <dt>Assigned to</dt>
          <dd>{item.assignee ? item.assignee.name : 'Nobody'}</dd>
        </div>
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
          Status: <span className={`badge status-${item.status}`}>{statusLabel(item.status)}</span>
        </p>
      )}
    </section>
  )
}

function HandleForm({ inquiry, onSaved }: { inquiry: Inquiry; onSaved: (saved: Inquiry) => Promise<void> }) {
  const me = useSignedIn()
  const assignees = useAssignees(true)
  const [status, setStatus] = useState<Status>(inquiry.status)
  const [assignee, setAssignee] = useState(inquiry.assignee?.id ?? 0)
  const [notes, setNotes] = useState(inquiry.notes ?? '')
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  useEffect(() => {
    setStatus(inquiry.status)
    setAssignee(inquiry.assignee?.id ?? 0)
    setNotes(inquiry.notes ?? '')
  }, [inquiry])
  // The current assignee stays a choice even when their role no longer handles inquiries.
  const people: Assignee[] = [...(assignees.data ?? [])]
  if (inquiry.assignee && !people.some((person) => person.id === inquiry.assignee?.id))
    people.push(inquiry.assignee)

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setFailure(undefined)
    setNotice('')
    try {
      const saved = dataOf(
        await api.PATCH('/v2/organization/{corporation}/inquiry/{id}', {
          params: { path: { corporation: me.organization, id: inquiry.id } },
          body: { status, assignee: assignee === 0 ? null : assignee, notes },
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
          {STATUS_CHOICES.map((choice) => (
            <option key={choice.const} value={choice.const}>
              {choice.title}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="inquiry-assignee">Assignee</label>
        <select
          id="inquiry-assignee"
          value={assignee}
          onChange={(event) => {
            const chosen = Number(event.target.value)
            setAssignee(chosen)
            // Giving a new inquiry to someone assigns it, as the API does when no status is named.
            if (chosen !== 0 && status === 'new') setStatus('assigned')
          }}
          aria-describedby="assignee-hint"
        >
          <option value={0}>Nobody</option>
          {people.map((person) => (
            <option key={person.id} value={person.id}>
              {person.name} ({person.email})
            </option>
          ))}
        </select>
        <p id="assignee-hint" className="hint">
          The people whose role handles inquiries (owners, admins and inquiry handlers).
        </p>
        {assignees.isError ? (
          <ErrorNote error={assignees.error} retry={() => void assignees.refetch()} />
        ) : null}
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
