import type { ReactNode } from 'react'
import { messageOf } from '../api/failure.ts'

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  )
}

export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="error-note" role="alert">
      <p>{messageOf(error)}</p>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  )
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>
}

/** A polite live message (saved, published...). */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  )
}

/** A unix time in seconds, as the person's locale writes it. */
export function Time({ seconds }: { seconds: number }) {
  const date = new Date(seconds * 1000)
  return <time dateTime={date.toISOString()}>{date.toLocaleString()}</time>
}
