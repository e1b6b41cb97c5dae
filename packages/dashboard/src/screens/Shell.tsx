import { Link, Navigate, Outlet, useLocation } from '@tanstack/react-router'
import { useEffect } from 'react'
import { whenSessionLost } from '../api/client.ts'
import { type Me, useMe, useSessionActions } from '../api/session.ts'
import { ErrorNote, Loading } from '../ui/parts.tsx'
import { ChangePassword } from './ChangePassword.tsx'
import { LinkPassword } from './LinkPassword.tsx'
import { SignIn } from './SignIn.tsx'

export const canWrite = (me: Me) => me.scope.split(' ').includes('write')
export const canHandleInquiries = (me: Me) => me.scope.split(' ').includes('inquiries:handle')
/** Posts and Q&A are the organization's, out of an expert person's reach. */
const writesContent = (me: Me) => canWrite(me) && me.role !== 'expert'
/** Owners and admins: the organization's settings (scope admin). */
export const administers = (me: Me) => me.scope.split(' ').includes('admin')
const readsInquiries = (me: Me) => me.scope.split(' ').includes('inquiries:read')

/** Where a person starts: an expert on its own profile. */
export function homeOf(me: Me): string {
  if (me.role === 'expert' && me.expert) return `/experts/${me.expert}`
  return me.role === 'inquiries' ? '/inquiries' : '/experts'
}

/** An expert person may see only its own profile and its own inquiries. */
function allowed(me: Me, path: string): boolean {
  if (me.role !== 'expert') return true
  return path === `/experts/${me.expert}` || path === '/inquiries'
}

/** The session check on load: the sign-in screen, the forced password change, or the app. */
export function Shell() {
  const me = useMe()
  const { recheck } = useSessionActions()
  const { pathname } = useLocation()
  useEffect(() => whenSessionLost(() => void recheck()), [recheck])
  // The pages of emailed links work whoever is signed in, or nobody.
  if (pathname === '/invitation' || pathname === '/reset')
    return <LinkPassword purpose={pathname === '/invitation' ? 'invitation' : 'reset'} />
  if (me.isPending) return <Loading what="your session" />
  if (me.isError) return <ErrorNote error={me.error} retry={() => void me.refetch()} />
  if (!me.data) return <SignIn />
  if (me.data.password_change_required) return <ChangePassword />
  return <Layout me={me.data} />
}

function Layout({ me }: { me: Me }) {
  const { signOut } = useSessionActions()
  const { pathname } = useLocation()
  if (pathname === '/' || !allowed(me, pathname)) return <Navigate to={homeOf(me)} replace />
  const expert = me.role === 'expert'
  return (
    <div className="layout">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Expert directory</span>
        <nav aria-label="Main">
          {expert ? (
            <Link to="/experts/$username" params={{ username: me.expert ?? '' }}>
              My profile
            </Link>
          ) : (
            <Link to="/experts">Experts</Link>
          )}
          {writesContent(me) ? (
            <>
              <Link to="/staff">Staff</Link>
              <Link to="/posts">Posts</Link>
              <Link to="/questions">Q&amp;A</Link>
              <Link to="/organization">Organization</Link>
            </>
          ) : null}
          {administers(me) ? (
            <>
              <Link to="/sso">Single sign-on</Link>
              <Link to="/audit">Audit log</Link>
              <Link to="/integrations">Integrations</Link>
              <Link to="/people">People</Link>
            </>
          ) : null}
          {readsInquiries(me) ? <Link to="/inquiries">{expert ? 'My inquiries' : 'Inquiries'}</Link> : null}
        </nav>
        <div className="who">
          <span>
            {me.name || me.email} <span className="muted">({me.role})</span>
          </span>
          <button type="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  )
}
