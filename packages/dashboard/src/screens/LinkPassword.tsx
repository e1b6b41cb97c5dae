import { type FormEvent, useState } from 'react'
import { api } from '../api/client.ts'
import { ApiFailure, dataOf, messageOf } from '../api/failure.ts'

/**
 * The page an emailed link opens: `/admin/invitation#token=...` (set the first password) or
 * `/admin/reset#token=...` (set a new one). The token stays in the fragment, which is never sent to a
 * server or written to its logs.
 */
export function LinkPassword({ purpose }: { purpose: 'invitation' | 'reset' }) {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? ''
  const [failure, setFailure] = useState<unknown>()
  const [done, setDone] = useState(false)

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const password = String(new FormData(event.currentTarget).get('password'))
    setFailure(undefined)
    try {
      const body = { token, password }
      dataOf(
        purpose === 'invitation'
          ? await api.POST('/auth/invitation/accept', { body })
          : await api.POST('/auth/password-reset/complete', { body }),
      )
      setDone(true)
    } catch (error) {
      setFailure(error)
    }
  }

  const title = purpose === 'invitation' ? 'Welcome: choose your password' : 'Choose a new password'
  return (
    <main className="auth-page" id="main">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="link-title" noValidate>
        <h1 id="link-title">{title}</h1>
        {done ? (
          <p className="notice" role="status">
            Your password is set. <a href="/admin/">Sign in</a>
          </p>
        ) : token ? (
          <>
            <div className="field">
              <label htmlFor="link-password">Password</label>
              <input
                id="link-password"
                name="password"
                type="password"
                autoComplete="new-password"
                required
                aria-describedby="link-password-hint"
              />
              <p id="link-password-hint" className="hint">
                At least 12 characters, not a common password.
              </p>
              {failure instanceof ApiFailure && failure.fields.password ? (
                <p className="field-error">Password {failure.fields.password}</p>
              ) : null}
            </div>
            {failure ? (
              <p className="form-error" role="alert">
                {messageOf(failure)}
              </p>
            ) : null}
            <button type="submit" className="primary">
              Save password
            </button>
          </>
        ) : (
          <p className="form-error" role="alert">
            This link is incomplete: open the link from the email again.
          </p>
        )}
      </form>
    </main>
  )
}
