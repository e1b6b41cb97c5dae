import { useLocation } from '@tanstack/react-router'
import { type FormEvent, useState } from 'react'
import { api } from '../api/client.ts'
import { dataOf, messageOf } from '../api/failure.ts'
import { useSessionActions } from '../api/session.ts'
import { useAction } from '../ui/action.tsx'
import { confirmationProblem, NewPasswordFields } from './NewPassword.tsx'

/**
 * The page an emailed link opens: `/admin/invitation#token=...` (set the first password; the person is
 * then signed in) or `/admin/reset#token=...` (set a new one, then sign in with it). The token stays in
 * the fragment, which is never sent to a server or written to its logs.
 */
export function LinkPassword({ purpose }: { purpose: 'invitation' | 'reset' }) {
  // Read from the router's address: a new link opened over this one changes only the fragment.
  const token = new URLSearchParams(useLocation({ select: (location) => location.hash })).get('token') ?? ''
  const { recheck } = useSessionActions()
  const { busy, failure, errors, run, reset } = useAction()
  const [confirmError, setConfirmError] = useState<string>()
  const [done, setDone] = useState(false)

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    reset()
    const mismatch = confirmationProblem(form, 'password', 'password-confirm')
    setConfirmError(mismatch)
    if (mismatch) return
    void run(async () => {
      const body = { token, password: String(form.get('password')) }
      dataOf(
        purpose === 'invitation'
          ? await api.POST('/auth/invitation/accept', { body })
          : await api.POST('/auth/password-reset/complete', { body }),
      )
      // An accepted invitation signed the person in: the dashboard's session check must see it.
      if (purpose === 'invitation') await recheck()
      setDone(true)
    })
  }

  const title = purpose === 'invitation' ? 'Welcome: choose your password' : 'Choose a new password'
  const passwordError = errors.password
  return (
    <main className="auth-page" id="main">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="link-title" noValidate>
        <h1 id="link-title">{title}</h1>
        {done ? (
          purpose === 'invitation' ? (
            <p className="notice" role="status">
              Your password is set and you are signed in. <a href="/admin/">Open the dashboard</a>
            </p>
          ) : (
            <p className="notice" role="status">
              Your password is set. <a href="/admin/">Sign in</a> with it.
            </p>
          )
        ) : token ? (
          <>
            <NewPasswordFields
              id="link-password"
              name="password"
              label="Password"
              error={passwordError}
              confirmError={confirmError}
            />
            {failure && !passwordError ? (
              <p className="form-error" role="alert">
                {messageOf(failure)}
              </p>
            ) : null}
            <button type="submit" className="primary" disabled={busy}>
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
