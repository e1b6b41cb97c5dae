import { type FormEvent, useState } from 'react'
import { ApiFailure, messageOf } from '../api/failure.ts'
import { takeOneTimePassword, useSessionActions } from '../api/session.ts'
import { useAction } from '../ui/action.tsx'
import { confirmationProblem, NewPasswordFields } from './NewPassword.tsx'

/** The one-time password must be replaced before anything else (`POST /auth/password`). */
export function ChangePassword() {
  const { changePassword, signOut } = useSessionActions()
  const [oneTime, setOneTime] = useState(takeOneTimePassword)
  const { busy, failure, errors: fields, run, reset } = useAction()
  const [confirm, setConfirm] = useState<string>()

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    reset()
    const problem = confirmationProblem(form, 'next', 'next-confirm')
    setConfirm(problem)
    if (problem) return
    void run(async () => {
      try {
        await changePassword(oneTime ?? String(form.get('current')), String(form.get('next')))
      } catch (refused) {
        // The password kept from sign-in is no longer the one in use: ask for it.
        if (refused instanceof ApiFailure && refused.fields.current_password) setOneTime(undefined)
        throw refused
      }
    })
  }
  const errors = {
    form: failure && !fields.new_password && !fields.current_password ? messageOf(failure) : undefined,
    current: fields.current_password,
    next: fields.new_password,
    confirm,
  }

  return (
    <main className="auth-page" id="main">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="password-title" noValidate>
        <h1 id="password-title">Choose your password</h1>
        <p className="muted">You signed in with a one-time password. Choose your own to continue.</p>
        {oneTime === undefined ? (
          <div className="field">
            <label htmlFor="current">One-time password</label>
            <input
              id="current"
              name="current"
              type="password"
              autoComplete="current-password"
              required
              aria-invalid={errors.current ? true : undefined}
              aria-describedby={errors.current ? 'current-error' : undefined}
            />
            {errors.current ? (
              <p id="current-error" className="field-error">
                The one-time password {errors.current}.
              </p>
            ) : null}
          </div>
        ) : null}
        <NewPasswordFields
          id="next"
          name="next"
          label="New password"
          error={errors.next}
          confirmError={errors.confirm}
        />
        {errors.form ? (
          <p className="form-error" role="alert">
            {errors.form}
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Save password
          </button>
          <button type="button" onClick={() => signOut()}>
            Sign out
          </button>
        </div>
      </form>
    </main>
  )
}
