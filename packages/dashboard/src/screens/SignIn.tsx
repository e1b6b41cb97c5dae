import { type FormEvent, useState } from 'react'
import { messageOf } from '../api/failure.ts'
import { useSessionActions } from '../api/session.ts'

/** Sign-in with email and password (`POST /auth/sign-in`); the session cookie is set by the server. */
export function SignIn() {
  const { signIn } = useSessionActions()
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setBusy(true)
    setError('')
    try {
      await signIn(String(form.get('email')), String(form.get('password')))
    } catch (failure) {
      setError(messageOf(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <main className="auth-page" id="main">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in</h1>
        <p className="muted">The expert directory's dashboard.</p>
        <div className="field">
          <label htmlFor="email">Email</label>
          <input id="email" name="email" type="email" autoComplete="username" required />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required />
        </div>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  )
}
