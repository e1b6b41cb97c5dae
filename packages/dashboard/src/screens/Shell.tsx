import { Link, Outlet } from '@tanstack/react-router'
import { type Me, useMe, useSessionActions } from '../api/session.ts'
import { administers, findsExperts, readsInquiries, reviews, writesContent } from '../roles.ts'

/** The signed-in screens' layout: the menu of what the person may do, and the screen. */
export function Shell() {
  const { signOut } = useSessionActions()
  // Read live: a session that just ended renders nothing while the guards send the page to the sign-in.
  const me = useMe().data
  if (!me) return null
  return <Layout me={me} signOut={signOut} />
}

function Layout({ me, signOut }: { me: Me; signOut: () => Promise<void> }) {
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
          {findsExperts(me) ? <Link to="/find">Find experts</Link> : null}
          {writesContent(me) ? (
            <>
              <Link to="/publications">Publications</Link>
              <Link to="/staff">Staff</Link>
              <Link to="/posts">Posts</Link>
              <Link to="/questions">Q&amp;A</Link>
              <Link to="/organization">Organization</Link>
            </>
          ) : null}
          {reviews(me) ? <Link to="/review">Review</Link> : null}
          {administers(me) ? (
            <>
              <Link to="/sso">Single sign-on</Link>
              <Link to="/audit">Audit log</Link>
              <Link to="/integrations">Integrations</Link>
              <Link to="/people">People</Link>
              <Link to="/workflow">Workflow</Link>
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
