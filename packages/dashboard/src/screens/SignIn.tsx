import { useQuery } from '@tanstack/react-query'
import { getRouteApi } from '@tanstack/react-router'
import { type FormEvent, useRef, useState } from 'react'
import type { components } from '../../../client/src/schema.ts'
import { api } from '../api/client.ts'
import { dataOf } from '../api/failure.ts'
import { useSessionActions } from '../api/session.ts'
import { FailureNote, useAction } from '../ui/action.tsx'
import { ForgotPassword } from './ForgotPassword.tsx'

const signInRoute = getRouteApi('/sign-in')

type SsoOption = components['schemas']['SsoOption']
const PROVIDERS: Record<SsoOption['protocol'], string> = { oidc: 'OpenID Connect', saml: 'SAML' }

/**
 * The single sign-on buttons: of the organization in the address (`/admin/?organization=N`, from
 * `GET /auth/sso/:corporation`) or of the typed email's domain (`GET /auth/sso?email=`).
 */
function useSsoOptions(email: string, organization: number | undefined) {
  return useQuery({
    queryKey: ['sso-options', organization ?? email],
    enabled: organization !== undefined || /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email),
    retry: false,
    queryFn: async (): Promise<SsoOption[]> => {
      try {
        const found =
          organization !== undefined
            ? await api.GET('/auth/sso/{corporation}', { params: { path: { corporation: organization } } })
            : await api.GET('/auth/sso', { params: { query: { email } } })
        return dataOf(found).options
      } catch {
        // No single sign-on (404) or an address the lookup refuses: the password form is the way in.
        return []
      }
    },
  })
}

function SsoButtons({ options }: { options: readonly SsoOption[] }) {
  if (options.length === 0) return null
  return (
    <div className="sso">
      {options.map((option) => (
        <a key={option.organization} className="button primary" href={option.sign_in_url}>
          Sign in with {PROVIDERS[option.protocol]}
        </a>
      ))}
      {options.every((option) => !option.passwords) ? (
        <p className="muted">Your organization signs in through its identity provider only.</p>
      ) : (
        <p className="muted">Or with your password:</p>
      )}
    </div>
  )
}

/** Sign-in with email and password (`POST /auth/sign-in`); the session cookie is set by the server. */
export function SignIn() {
  const { signIn } = useSessionActions()
  const { busy, failure, run } = useAction()
  const [email, setEmail] = useState('')
  const [forgot, setForgot] = useState(false)
  const emailInput = useRef<HTMLInputElement>(null)
  const told = signInRoute.useSearch()
  const sso = useSsoOptions(email, told.organization)
  // Where a first single sign-on into an existing account lands while its emailed link waits.
  const checkEmail = told.sso === 'check-email'

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    void run(async () => {
      await signIn(String(form.get('email')), String(form.get('password')))
    })
  }

  if (forgot) return <ForgotPassword email={email} onBack={() => setForgot(false)} />
  return (
    <main className="auth-page" id="main">
      <form className="card auth-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in</h1>
        <p className="muted">The expert directory's dashboard.</p>
        {checkEmail ? (
          <p className="notice" role="status">
            Your first single sign-on to your account must be confirmed: we emailed you a link. Open it in
            this browser within 30 minutes.
          </p>
        ) : null}
        <div className="field">
          <label htmlFor="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            ref={emailInput}
            defaultValue={email}
            onBlur={(event) => setEmail(event.target.value.trim())}
          />
        </div>
        <SsoButtons options={sso.data ?? []} />
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required />
          <button
            type="button"
            className="link"
            onClick={() => {
              setEmail(emailInput.current?.value.trim() ?? email)
              setForgot(true)
            }}
          >
            Forgot password?
          </button>
        </div>
        <FailureNote failure={failure} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  )
}
