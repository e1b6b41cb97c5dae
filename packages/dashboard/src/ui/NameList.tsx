import { type FormEvent, useId, useState } from 'react'
import { ApiFailure, messageOf } from '../api/failure.ts'

/** Names (tags, usernames, domains) added and removed one by one; each change writes the whole list. */
export function NameList({
  label,
  inputLabel,
  names,
  write,
}: {
  label: string
  inputLabel: string
  names: readonly string[]
  write: (names: string[]) => Promise<unknown>
}) {
  const inputId = useId()
  const errorId = useId()
  const [name, setName] = useState('')
  const [failure, setFailure] = useState<unknown>()
  const run = async (next: string[]) => {
    setFailure(undefined)
    try {
      await write(next)
      return true
    } catch (error) {
      setFailure(error)
      return false
    }
  }
  // The server names the value it refuses in the field's message (an unknown username, a tag too long).
  const fieldMessage = failure instanceof ApiFailure ? Object.values(failure.fields)[0] : undefined
  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const trimmed = name.trim()
    if (!trimmed) return
    if (await run([...names, trimmed])) setName('')
  }
  return (
    <div className="name-set">
      {names.length === 0 ? <p className="empty">None yet.</p> : null}
      <ul className="chips" aria-label={label}>
        {names.map((shown) => (
          <li key={shown} className="chip">
            {shown}
            <button
              type="button"
              aria-label={`Remove ${shown}`}
              onClick={() => void run(names.filter((other) => other !== shown))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={add} className="inline-form">
        <label htmlFor={inputId}>{inputLabel}</label>
        <input
          id={inputId}
          value={name}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={failure ? true : undefined}
          aria-describedby={failure ? errorId : undefined}
        />
        <button type="submit">Add</button>
      </form>
      {failure ? (
        <p id={errorId} className="form-error" role="alert">
          {fieldMessage ? `${label}: ${fieldMessage}` : messageOf(failure)}
        </p>
      ) : null}
    </div>
  )
}
