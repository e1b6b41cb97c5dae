import { useQuery } from '@tanstack/react-query'
import { type KeyboardEvent, useId, useState } from 'react'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSignedIn } from '../api/session.ts'
import { Empty, ErrorNote, Loading } from './parts.tsx'

const RESULTS = 8

/**
 * Chooses one of the organization's experts by searching their names (`GET .../expert?q=`): the value
 * is the expert's username, which nobody has to know or type.
 */
export function ExpertPicker({
  label,
  value,
  onChange,
  error,
}: {
  label: string
  /** The chosen expert's username, or "". */
  value: string
  onChange: (username: string) => void
  /** The server's message for the field. */
  error?: string | undefined
}) {
  const me = useSignedIn()
  const id = useId()
  const [text, setText] = useState('')
  const [query, setQuery] = useState('')
  const [chosenName, setChosenName] = useState('')
  const found = useQuery({
    queryKey: ['expert-picker', me.organization, query],
    enabled: query !== '',
    queryFn: async () =>
      dataOf(
        await api.GET('/v2/organization/{corporation}/expert', {
          params: {
            path: { corporation: me.organization },
            query: { q: query, status: 'all', access: 'all', page_size: RESULTS, page_from: 0 },
          },
        }),
      ),
  })
  const search = () => setQuery(text.trim())
  // Enter searches rather than submitting the form the picker sits in.
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return
    event.preventDefault()
    search()
  }
  const errorId = `${id}-error`
  return (
    <fieldset className="expert-picker" aria-describedby={error ? errorId : undefined}>
      <legend>
        {label}
        <span aria-hidden="true"> *</span>
      </legend>
      {value ? (
        <p className="chosen">
          <span>
            {chosenName || value} <span className="muted">({value})</span>
          </span>
          <button
            type="button"
            onClick={() => {
              onChange('')
              setChosenName('')
            }}
          >
            Choose another expert
          </button>
        </p>
      ) : (
        <>
          <div className="inline-form">
            <label htmlFor={`${id}-q`}>Search experts by name</label>
            <input
              id={`${id}-q`}
              type="search"
              value={text}
              onChange={(event) => setText(event.target.value)}
              onKeyDown={onKeyDown}
              aria-invalid={error ? true : undefined}
            />
            <button type="button" onClick={search}>
              Find
            </button>
          </div>
          {found.isFetching ? <Loading what="experts" /> : null}
          {found.isError ? <ErrorNote error={found.error} retry={() => void found.refetch()} /> : null}
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
                        onChange(expert.username)
                        setChosenName(expert.fullname)
                      }}
                    >
                      Link {expert.fullname}
                    </button>{' '}
                    <span className="muted">{expert.job_title}</span>
                  </li>
                ))}
              </ul>
            )
          ) : null}
        </>
      )}
      {error ? (
        <p id={errorId} className="field-error">
          {label} {error}
        </p>
      ) : null}
    </fieldset>
  )
}
