import { type FormEvent, useState } from 'react'
import { api } from '../api/client.ts'
import { dataOf, messageOf } from '../api/failure.ts'
import { useAction } from '../ui/action.tsx'

/**
 * Asks for a password-reset link (`POST /auth/password-reset`). The answer is the same whether or not
 * the address has an account, so the screen says what happens if it has one.
 */
export function ForgotPassword({ email, onBack }: { email: string; onBack: () => void }) {
  const { busy, failure, errors, run } = useAction()
  const [sentTo, setSentTo] = useState('')

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const address = String(new FormData(event.currentTarget).get('email')).trim()
    void run(async () => {
      dataOf(await api.POST('/auth/password-reset', { body: { email: address } }))
      setSentTo(address)
    })
  }

  const fieldError = errors.email
  return (
    <main className="auth-page" id="main">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="forgot-title" noValidate>
        <h1 id="forgot-title">Reset your password</h1>
        {sentTo ? (
          <p className="notice" role="status">
            If {sentTo} has an account, a link to choose a new password is on its way there. It works once,
            for 1 hour. No email after a few minutes? Check your spam folder, or ask your organization’s
            administrator.
          </p>
        ) : (
          <>
            <p className="muted">
              Type the email you sign in with: we send it a link to choose a new password.
            </p>
            <div className="field">
              <label htmlFor="forgot-email">Email</label>
              <input
                id="forgot-email"
                name="email"
                type="email"
                autoComplete="username"
                defaultValue={email}
                required
                aria-invalid={fieldError ? true : undefined}
                aria-describedby={fieldError ? 'forgot-email-error' : undefined}
              />
              {fieldError ? (
                <p id="forgot-email-error" className="field-error">
                  Email {fieldError}
                </p>
              ) : null}
            </div>
            {failure && !fieldError ? (
              <p className="form-error" role="alert">
                {messageOf(failure)}
              </p>
            ) : null}
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Sending…' : 'Email me a link'}
            </button>
          </>
        )}
        <p>
          <button type="button" className="link" onClick={onBack}>
            Back to sign in
          </button>
        </p>
      </form>
    </main>
  )
}
