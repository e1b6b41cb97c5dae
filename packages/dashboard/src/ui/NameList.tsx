import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { ApiFailure, messageOf } from '../api/failure.ts'

/** How long "Undo" stays offered after a removal, once it has neither the focus nor the pointer. */
const UNDO_MS = 8000

/**
 * Names (tags, usernames, domains) added and removed one by one; each change writes the whole list.
 * A change shows at once (TanStack Query's optimistic update through the mutation's variables): the
 * chips are the list being written while the write runs, and `names` again when it fails, with the
 * reason. Writes of one list run one after another (the mutation's scope), each built on the last.
 */
export function NameList({
  label,
  inputLabel,
  names,
  write,
}: {
  label: string
  inputLabel: string
  names: readonly string[]
  /** Writes the list; when it resolves, `names` is the list written. */
  write: (names: string[]) => Promise<unknown>
}) {
  const inputId = useId()
  const errorId = useId()
  const scope = useId()
  const [name, setName] = useState('')
  const [removed, setRemoved] = useState<{ name: string; index: number }>()
  // While the offer has the focus or the pointer it stays (WCAG 2.2.1: no time limit on someone using it).
  const [held, setHeld] = useState(false)
  const undoButton = useRef<HTMLButtonElement>(null)
  const mutation = useMutation({ mutationFn: write, scope: { id: scope } })
  const shown = mutation.isPending ? mutation.variables : names
  const failure = mutation.error

  useEffect(() => {
    // The removed chip's button took the focus with it: it goes to Undo, not to the page's start.
    if (removed !== undefined && document.activeElement === document.body) undoButton.current?.focus()
  }, [removed])
  useEffect(() => {
    if (removed === undefined || held) return
    const timer = setTimeout(() => setRemoved(undefined), UNDO_MS)
    return () => clearTimeout(timer)
  }, [removed, held])

  const change = (next: string[], callbacks: { onSuccess?: () => void; onError?: () => void } = {}) => {
    setRemoved(undefined)
    setHeld(false)
    mutation.mutate(next, callbacks)
  }
  const remove = (gone: string) =>
    change(
      shown.filter((other) => other !== gone),
      { onSuccess: () => setRemoved({ name: gone, index: shown.indexOf(gone) }) },
    )
  const undo = ({ name: back, index }: { name: string; index: number }) =>
    change([...shown.slice(0, index), back, ...shown.slice(index)])
  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const trimmed = name.trim()
    setName('')
    if (!trimmed || shown.includes(trimmed)) return
    // A refused name comes back to the box, to be corrected.
    change([...shown, trimmed], { onError: () => setName((typed) => typed || trimmed) })
  }
  // The server names the value it refuses in the field's message (an unknown username, a tag too long).
  const fieldMessage = failure instanceof ApiFailure ? Object.values(failure.fields)[0] : undefined
  return (
    <div className="name-set">
      {shown.length === 0 ? <p className="empty">None yet.</p> : null}
      <ul className="chips" aria-label={label} aria-busy={mutation.isPending || undefined}>
        {shown.map((chip) => (
          <li key={chip} className="chip">
            {chip}
            <button type="button" aria-label={`Remove ${chip}`} onClick={() => remove(chip)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div
        className="undo"
        role="status"
        onFocus={() => setHeld(true)}
        onBlur={() => setHeld(false)}
        onMouseEnter={() => setHeld(true)}
        onMouseLeave={() => setHeld(false)}
      >
        {removed !== undefined ? (
          <>
            Removed {removed.name}.{' '}
            <button type="button" ref={undoButton} onClick={() => undo(removed)}>
              Undo
            </button>
          </>
        ) : null}
      </div>
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
