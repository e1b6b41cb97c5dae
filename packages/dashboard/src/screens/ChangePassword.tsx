import { type FormEvent, useState } from 'react'
import { ApiFailure, messageOf } from '../api/failure.ts'
import { useSessionActions } from '../api/session.ts'

/** The one-time password must be replaced before anything else (`POST /auth/password`). */
export function ChangePassword() {
  const { changePassword, signOut } = useSessionActions()
  const [errors, setErrors] = useState<{ form?: string; current?: string; next?: string }>({})
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setBusy(true)
    setErrors({})
    try {
      await changePassword(String(form.get('current')), String(form.get('next')))
    } catch (failure) {
      const fields = failure instanceof ApiFailure ? failure.fields : {}
      setErrors({ form: messageOf(failure), current: fields.current_password, next: fields.new_password })
    } finally {
      setBusy(false)
    }
  }

  return (
    <main className="auth-page" id="main">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="password-title">
        <h1 id="password-title">Choose your password</h1>
        <p className="muted">You signed in with a one-time password. Choose your own to continue.</p>
        <div className="field">
          <label htmlFor="current">One-time password</label>
          <input
            id="current"
            name="current"
            type="password"
            autoComplete="current-password"
            required
            aria-describedby={errors.current ? 'current-error' : undefined}
          />
          {errors.current ? (
            <p id="current-error" className="field-error">
              {errors.current}
            </p>
          ) : null}
        </div>
        <div className="field">
          <label htmlFor="next">New password</label>
          <input
            id="next"
            name="next"
            type="password"
            autoComplete="new-password"
            required
            minLength={12}
            aria-describedby="next-hint"
          />
          <p id="next-hint" className="hint">
            At least 12 characters, not a common password.
          </p>
          {errors.next ? <p className="field-error">{errors.next}</p> : null}
        </div>
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
