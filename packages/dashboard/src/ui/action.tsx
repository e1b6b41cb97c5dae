import { useState } from 'react'
import { ApiFailure, messageOf } from '../api/failure.ts'

/**
 * One action of a form at a time: busy while it runs, then its failure (with the server's message per
 * field) or the notice it returns.
 */
export function useAction() {
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<unknown>()
  const [notice, setNotice] = useState('')
  const run = async (action: () => Promise<string | undefined>) => {
    setBusy(true)
    setFailure(undefined)
    setNotice('')
    try {
      setNotice((await action()) ?? '')
    } catch (error) {
      setFailure(error)
    } finally {
      setBusy(false)
    }
  }
  const errors: Readonly<Record<string, string>> = failure instanceof ApiFailure ? failure.fields : {}
  return { busy, failure, notice, errors, run }
}

/** An action's failure, beside its buttons. */
export function FailureNote({ failure }: { failure: unknown }) {
  if (!failure) return null
  return (
    <p className="form-error" role="alert">
      {messageOf(failure)}
    </p>
  )
}
