import { useMutation } from '@tanstack/react-query'
import { ApiFailure, messageOf } from '../api/failure.ts'

/** A write a form runs: it resolves to the notice to show ("Saved."); anything else shows none. */
export type Action = () => Promise<unknown>

/**
 * The one form hook of the dashboard: a form's write as a TanStack Query mutation, one at a time. Busy
 * while it runs, then its failure (with the server's message per field) or the notice it returned.
 */
export function useAction() {
  const mutation = useMutation<string, unknown, Action>({
    mutationFn: async (action) => {
      const notice = await action()
      return typeof notice === 'string' ? notice : ''
    },
  })
  /** Runs `action`; its failure is kept for the form to show, never thrown. */
  const run = async (action: Action): Promise<boolean> => {
    try {
      await mutation.mutateAsync(action)
      return true
    } catch {
      return false
    }
  }
  const failure = mutation.error ?? undefined
  const errors: Readonly<Record<string, string>> = failure instanceof ApiFailure ? failure.fields : {}
  return {
    busy: mutation.isPending,
    failure,
    notice: mutation.data ?? '',
    errors,
    run,
    reset: mutation.reset,
  }
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
