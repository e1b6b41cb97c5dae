import type { FormEvent } from 'react'

const STATUSES = ['all', 'published', 'unpublished'] as const
export type StatusFilter = (typeof STATUSES)[number]

/** The status a select's value names, or undefined for anything else. */
export const statusOf = (value: unknown): StatusFilter | undefined =>
  STATUSES.find((status) => status === value)

/**
 * A list's search box and its status filter. The query is read from the form when submitted, so typing
 * does not search on each key; `children` are further filters beside the status (access, a facet chip).
 */
export function SearchBar({
  label,
  q,
  status,
  onSearch,
  onStatus,
  children,
}: {
  /** The search box's accessible name ("Search experts"). */
  label: string
  q: string | undefined
  status: StatusFilter | undefined
  onSearch: (q: string) => void
  onStatus: (status: StatusFilter | undefined) => void
  children?: React.ReactNode
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    onSearch(String(new FormData(event.currentTarget).get('q') ?? ''))
  }
  return (
    <>
      <search>
        <form className="search-bar" onSubmit={submit}>
          <label htmlFor="q">{label}</label>
          <input id="q" name="q" type="search" defaultValue={q ?? ''} key={q ?? ''} />
          <button type="submit">Search</button>
        </form>
      </search>
      <div className="filters">
        <label>
          Status{' '}
          <select value={status ?? 'all'} onChange={(event) => onStatus(statusOf(event.target.value))}>
            <option value="all">All</option>
            <option value="published">Published</option>
            <option value="unpublished">Unpublished</option>
          </select>
        </label>
        {children}
      </div>
    </>
  )
}
